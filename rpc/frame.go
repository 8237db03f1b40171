package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// readBufferBytes is the size of the bufio.Reader in front of the input: the unit in which an
// oversize line is skipped without being kept.
const readBufferBytes = 64 << 10

// keepBufferBytes is the largest line buffer kept for reuse; a bigger one (left by a large
// message) is released once its line has been classified, so one big write does not pin 16 MiB.
const keepBufferBytes = 1 << 20

// lineReader splits the input into lines. It is used by the read loop only.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte // reused between lines; the line returned by next aliases it
	err error  // sticky read error, returned once the last partial line has been delivered
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferBytes), max: max}
}

// next returns the next line without its "\n" or "\r\n". If the line is longer than lr.max,
// it is skipped to its end without being buffered, and next returns tooLong. A last line without
// a terminator is returned like any other; the read error (io.EOF at the end) comes on the call after.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if lr.err != nil {
		return nil, false, lr.err
	}
	if cap(lr.buf) > keepBufferBytes {
		lr.buf = nil
	}
	buf := lr.buf[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		complete := err == nil
		if complete {
			frag = frag[:len(frag)-1]
		}
		// Keep one byte beyond the limit so that a "\r" just past it can still be stripped.
		if !tooLong && len(buf)+len(frag) > lr.max+1 {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			buf = append(buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !complete {
			lr.err = err
			if len(buf) == 0 && !tooLong {
				return nil, false, err
			}
		}
		lr.buf = buf
		buf = bytes.TrimSuffix(buf, []byte{'\r'})
		if len(buf) > lr.max {
			return nil, true, nil
		}
		return buf, tooLong, nil
	}
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// trimLine strips a leading UTF-8 byte order mark and reports whether anything but JSON
// whitespace is left.
func trimLine(line []byte) ([]byte, bool) {
	line = bytes.TrimPrefix(line, utf8BOM)
	return line, len(bytes.Trim(line, " \t\r")) > 0
}

// msgKind says what a well-formed input line is.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// message is a classified input line. Every json.RawMessage is a copy, not an alias of the line.
type message struct {
	kind   msgKind
	id     json.RawMessage // request: the id as sent; response: the id as sent, nil if absent
	method string
	params json.RawMessage // nil when absent or null
	result json.RawMessage // response: nil when absent
	error  json.RawMessage // response: nil when absent
}

// rejection is how classify refuses a line: the error to answer with, and the id to answer to
// (nil for "id": null). silent is set for a notification, which is never answered.
type rejection struct {
	err    *Error
	id     json.RawMessage
	silent bool
}

func reject(code int64, message string) *rejection {
	return &rejection{err: &Error{Code: code, Message: message}}
}

// Messages of the errors the read loop answers itself (see the package documentation).
const (
	msgParseError  = "parse error"
	msgBatch       = "invalid request: batch requests are not supported"
	msgNotObject   = "invalid request: message must be a JSON object"
	msgDuplicate   = "invalid request: duplicate member "
	msgVersion     = `invalid request: "jsonrpc" must be "2.0"`
	msgNoVersion   = `invalid request: missing "jsonrpc" member; every message must carry "jsonrpc": "2.0"`
	msgMethod      = `invalid request: "method" must be a string`
	msgBadID       = `invalid request: "id" must be a string or an integer`
	msgBothKinds   = `invalid request: a request must not carry "result" or "error"`
	msgNoMethod    = `invalid request: missing "method"`
	msgParams      = `invalid params: "params" must be an object or an array`
	msgCancelID    = "invalid params: " + CancelMethod + ": `id`: expected a string or an integer"
	msgTooLong     = "invalid request: message exceeds the size limit"
	msgStrayReply  = "invalid request: response to an unknown id"
	msgCancelled   = "request cancelled"
	msgInternal    = "internal error"
	msgBadErrorObj = "malformed error object in response"
)

// maxEchoBytes bounds the input quoted back in a parse error's data, so that a hostile line is
// never echoed whole.
const maxEchoBytes = 32

// ParseErrorData is the data of a -32700 reply: where the line stopped being JSON.
type ParseErrorData struct {
	// Offset is the 1-based position, in bytes from the start of the line (after a byte order
	// mark), of the byte at which the line stopped being valid: the offending byte, or the
	// line's length plus one when the line ended too early.
	Offset int `json:"offset"`
	// Near is up to 32 bytes of the line just before Offset, cut on a character boundary.
	Near string `json:"near"`
}

// parseError returns the -32700 error for a line that is not exactly one UTF-8 JSON value, saying
// where and what, or nil for a line that is.
func parseError(line []byte) *Error {
	// JSON text is UTF-8 (RFC 8259 §8.1). encoding/json would let invalid bytes through, to
	// come back in an echoed id, or quietly turn them into U+FFFD, and so into another path.
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return parseErrorAt(line, i, "invalid UTF-8")
	}
	if json.Valid(line) {
		return nil
	}
	var v json.RawMessage
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return parseErrorAt(line, len(line), "invalid JSON")
	}
	at := int(se.Offset) - 1 // the offending byte: encoding/json counts it as read
	what := se.Error()
	if what == "unexpected end of JSON input" {
		at, what = len(line), "unexpected end of input (a message must be one JSON value on one line)"
	}
	return parseErrorAt(line, at, what)
}

// parseErrorAt builds the -32700 error for a failure at the 0-based byte index at.
func parseErrorAt(line []byte, at int, what string) *Error {
	at = min(max(at, 0), len(line))
	from := max(at-maxEchoBytes, 0)
	for from < at && !utf8.RuneStart(line[from]) {
		from++
	}
	return &Error{
		Code:    CodeParseError,
		Message: fmt.Sprintf("%s at byte %d: %s", msgParseError, at+1, what),
		Data:    ParseErrorData{Offset: at + 1, Near: strings.ToValidUTF8(string(line[from:at]), "\uFFFD")},
	}
}

// members are the top-level members classify looks at; others are ignored.
var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// classify validates one non-blank input line. It never panics, and it returns either a
// message or a rejection.
func classify(line []byte) (*message, *rejection) {
	if e := parseError(line); e != nil {
		return nil, &rejection{err: e}
	}
	switch bytes.TrimLeft(line, " \t\r\n")[0] {
	case '{':
	case '[':
		return nil, reject(CodeInvalidRequest, msgBatch)
	default:
		return nil, reject(CodeInvalidRequest, msgNotObject)
	}
	m, dup := topMembers(line)
	if dup != "" {
		return nil, reject(CodeInvalidRequest, msgDuplicate+dup)
	}
	id, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	method, hasMethod := m["method"]
	if v, ok := m["jsonrpc"]; !ok || !isString(v, "2.0") {
		rej := reject(CodeInvalidRequest, msgVersion)
		if !ok {
			rej.err.Message = msgNoVersion
		}
		if hasMethod && hasID && validID(id) {
			rej.id = id // a request we can attribute: its caller is waiting for this id
		}
		return nil, rej
	}
	switch {
	case hasMethod:
		var name string
		if method[0] != '"' || json.Unmarshal(method, &name) != nil {
			return nil, reject(CodeInvalidRequest, msgMethod)
		}
		if hasID && !validID(id) {
			return nil, reject(CodeInvalidRequest, msgBadID)
		}
		if hasResult || hasError {
			return nil, reject(CodeInvalidRequest, msgBothKinds)
		}
		msg := &message{kind: kindRequest, id: id, method: name, params: m["params"]}
		if !hasID {
			msg.kind = kindNotification
		}
		switch {
		case string(msg.params) == "null":
			msg.params = nil
		case msg.params != nil && msg.params[0] != '{' && msg.params[0] != '[':
			return nil, &rejection{err: &Error{Code: CodeInvalidParams, Message: msgParams}, id: id, silent: !hasID}
		}
		return msg, nil
	case hasResult || hasError:
		return &message{kind: kindResponse, id: id, result: m["result"], error: m["error"]}, nil
	default:
		return nil, reject(CodeInvalidRequest, msgNoMethod)
	}
}

// topMembers returns the known top-level members of a valid JSON object, by exact (case-sensitive)
// name, and the name of the first known member that occurs twice, if any: parsers disagree on
// which duplicate wins, so a duplicate "id" or "method" is refused rather than guessed.
//
// obj must be valid JSON (parseError checked it): the scan skips values by their brackets and
// strings without validating them again. Values are copied, so they never alias obj.
func topMembers(obj []byte) (map[string]json.RawMessage, string) {
	m := make(map[string]json.RawMessage, 4)
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return m, ""
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return m, "" // '}' (end) or not an object member: cannot happen in valid JSON
		}
		end := skipString(obj, i)
		key := obj[i+1 : end-1]
		name := string(key)
		if bytes.IndexByte(key, '\\') >= 0 { // an escaped name: compare it decoded
			if json.Unmarshal(obj[i:end], &name) != nil {
				return m, ""
			}
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return m, ""
		}
		start := skipSpace(obj, i+1)
		i = skipValue(obj, start)
		for _, known := range members {
			if name != known {
				continue
			}
			if _, seen := m[name]; seen {
				return m, name
			}
			m[name] = append(json.RawMessage(nil), obj[start:i]...)
		}
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return m, ""
		}
		i++
	}
}

// CutMember returns obj, a compact JSON object as encoding/json writes it, without its top-level
// member named key (written without escapes, as encoding/json writes field names), for a server that keeps a member off the wire. Anything else,
// or an object without the member, is returned unchanged.
func CutMember(obj []byte, key string) []byte {
	if len(obj) < 2 || obj[0] != '{' {
		return obj
	}
	want := `"` + key + `"`
	for i := 1; i < len(obj) && obj[i] == '"'; {
		start := i
		k := skipString(obj, i)
		if k >= len(obj) || obj[k] != ':' {
			return obj
		}
		end := skipValue(obj, k+1)
		if end > len(obj) {
			return obj
		}
		if string(obj[start:k]) == want {
			switch {
			case end < len(obj) && obj[end] == ',': // a member follows: drop "key":value,
				return append(obj[:start:start], obj[end+1:]...)
			case start > 1: // the last member: drop ,"key":value
				return append(obj[:start-1:start-1], obj[end:]...)
			default: // the only member
				return append(obj[:1:1], obj[end:]...)
			}
		}
		if end >= len(obj) || obj[end] != ',' {
			return obj
		}
		i = end + 1
	}
	return obj
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// isString reports whether raw is a JSON string equal to want.
func isString(raw json.RawMessage, want string) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == want
}

// validID reports whether raw (a valid JSON value) is an id this package accepts: a string, or
// a number without fraction or exponent, of any magnitude. Null is refused: the JSON-RPC spec
// reserves it for replies whose id could not be determined.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || ('0' <= c && c <= '9'):
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}

// appendUnescapedHTML appends src, a JSON text written by encoding/json, with the \u003c, \u003e
// and \u0026 escapes that encoding/json.Marshal always applies turned back into <, > and &.
// The result is the same JSON value: backslashes occur only inside strings, and an escaped
// backslash is copied as a pair, so "\\u003c" is left alone.
func appendUnescapedHTML(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '\\')
		if i < 0 || i+1 >= len(src) {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		if len(src) >= 6 && src[1] == 'u' && src[2] == '0' && src[3] == '0' {
			if c, ok := htmlEscapes[string(src[4:6])]; ok {
				dst = append(dst, c)
				src = src[6:]
				continue
			}
		}
		dst = append(dst, src[:2]...)
		src = src[2:]
	}
}

var htmlEscapes = map[string]byte{"3c": '<', "3e": '>', "26": '&'}
