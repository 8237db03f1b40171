package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind says what a well-formed line is.
type Kind int

const (
	Request Kind = iota + 1
	Notification
	Response
)

// Message is a line Classify accepted. Every json.RawMessage is a copy, not an alias of the line.
type Message struct {
	Kind   Kind
	ID     json.RawMessage // a request's id as sent (nil for a notification); a reply's, nil if absent
	Method string          // a request's or notification's, decoded
	Params json.RawMessage // an object or an array; nil when absent or null
	Result json.RawMessage // a reply's; nil when absent
	Error  json.RawMessage // a reply's; nil when absent
}

// Rejection is how Classify refuses a line: the error to answer with, and the id to answer to.
type Rejection struct {
	Code    int64
	Message string
	Data    any             // a ParseErrorData for CodeParseError; nil otherwise
	ID      json.RawMessage // nil: answer to "id": null
	Silent  bool            // the line is a notification, which is never answered
}

// Messages of rejections a caller makes itself, by the same rules, word for word.
const (
	// MsgTooLong answers, with CodeInvalidRequest, a line [Reader.Next] reports as too long.
	MsgTooLong = "invalid request: message exceeds the size limit"
	// MsgStrayReply answers, with CodeInvalidRequest and "id": null, a reply to an id the caller
	// did not send, or already got a reply for.
	MsgStrayReply = "invalid request: response to an unknown id"
)

// Messages of the rejections Classify makes.
const (
	msgParseError = "parse error"
	msgBatch      = "invalid request: batch requests are not supported"
	msgNotObject  = "invalid request: message must be a JSON object"
	msgDuplicate  = "invalid request: duplicate member "
	msgVersion    = `invalid request: "jsonrpc" must be "2.0"`
	msgNoVersion  = `invalid request: missing "jsonrpc" member; every message must carry "jsonrpc": "2.0"`
	msgMethod     = `invalid request: "method" must be a string`
	msgBadID      = `invalid request: "id" must be a string or an integer`
	msgBothKinds  = `invalid request: a request must not carry "result" or "error"`
	msgNoMethod   = `invalid request: missing "method"`
	msgParams     = `invalid params: "params" must be an object or an array`
)

func reject(code int64, message string) *Rejection {
	return &Rejection{Code: code, Message: message}
}

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

// parseError returns the -32700 rejection of a line that is not exactly one UTF-8 JSON value,
// saying where and what, or nil for a line that is.
func parseError(line []byte) *Rejection {
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

// parseErrorAt builds the -32700 rejection for a failure at the 0-based byte index at.
func parseErrorAt(line []byte, at int, what string) *Rejection {
	at = min(max(at, 0), len(line))
	from := max(at-maxEchoBytes, 0)
	for from < at && !utf8.RuneStart(line[from]) {
		from++
	}
	return &Rejection{
		Code:    CodeParseError,
		Message: fmt.Sprintf("%s at byte %d: %s", msgParseError, at+1, what),
		Data:    ParseErrorData{Offset: at + 1, Near: strings.ToValidUTF8(string(line[from:at]), "\uFFFD")},
	}
}

// members are the top-level members Classify looks at; others are ignored.
var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// Classify judges one line that [Trim] found not blank. It never panics, and it returns either
// a message or a rejection:
//
//   - not one UTF-8 JSON value: CodeParseError, with a ParseErrorData;
//   - an array (a batch, even an empty one), or a value that is not an object: CodeInvalidRequest;
//   - a "jsonrpc", "id", "method", "params", "result" or "error" member given twice (parsers
//     disagree on which one wins): CodeInvalidRequest, naming it;
//   - "jsonrpc" missing or not "2.0": CodeInvalidRequest, to the request's id when the line is a
//     request with a valid id (its caller waits for it), else to null;
//   - "method" not a string, "id" not a string or an integer, "method" together with "result" or
//     "error", neither "method" nor "result" or "error": CodeInvalidRequest;
//   - "params" neither an object, an array nor null: CodeInvalidParams, to the request's id, and
//     Silent for a notification.
//
// A reply is accepted whatever its id: whether it answers anything is the caller's to decide.
func Classify(line []byte) (*Message, *Rejection) {
	if rej := parseError(line); rej != nil {
		return nil, rej
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
			rej.Message = msgNoVersion
		}
		if hasMethod && hasID && ValidID(id) {
			rej.ID = id // a request we can attribute: its caller is waiting for this id
		}
		return nil, rej
	}
	switch {
	case hasMethod:
		var name string
		if method[0] != '"' || json.Unmarshal(method, &name) != nil {
			return nil, reject(CodeInvalidRequest, msgMethod)
		}
		if hasID && !ValidID(id) {
			return nil, reject(CodeInvalidRequest, msgBadID)
		}
		if hasResult || hasError {
			return nil, reject(CodeInvalidRequest, msgBothKinds)
		}
		msg := &Message{Kind: Request, ID: id, Method: name, Params: m["params"]}
		if !hasID {
			msg.Kind = Notification
		}
		switch {
		case string(msg.Params) == "null":
			msg.Params = nil
		case msg.Params != nil && msg.Params[0] != '{' && msg.Params[0] != '[':
			return nil, &Rejection{Code: CodeInvalidParams, Message: msgParams, ID: id, Silent: !hasID}
		}
		return msg, nil
	case hasResult || hasError:
		return &Message{Kind: Response, ID: id, Result: m["result"], Error: m["error"]}, nil
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
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return m, ""
	}
	i++
	for {
		i = SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return m, "" // '}' (end) or not an object member: cannot happen in valid JSON
		}
		end := SkipString(obj, i)
		key := obj[i+1 : end-1]
		name := string(key)
		if bytes.IndexByte(key, '\\') >= 0 { // an escaped name: compare it decoded
			if json.Unmarshal(obj[i:end], &name) != nil {
				return m, ""
			}
		}
		i = SkipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return m, ""
		}
		start := SkipSpace(obj, i+1)
		i = SkipValue(obj, start)
		for _, known := range members {
			if name != known {
				continue
			}
			if _, seen := m[name]; seen {
				return m, name
			}
			m[name] = append(json.RawMessage(nil), obj[start:i]...)
		}
		i = SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return m, ""
		}
		i++
	}
}

// isString reports whether raw is a JSON string equal to want.
func isString(raw json.RawMessage, want string) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == want
}
