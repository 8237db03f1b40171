package rpc

import (
	"bytes"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

// Input framing (bounded lines, the classification of a line, the replies to bad input) is
// package jsonl's, shared with fsbox mcp's stdio transport; see the package documentation for
// the rules. What is here is the output side: cutting a member and undoing HTML escapes.

// keepBufferBytes is the largest output line buffer kept for reuse (see linePool), so that one
// big reply does not pin its buffer.
const keepBufferBytes = 1 << 20

// ParseErrorData is the data of a -32700 reply: where the line stopped being JSON.
type ParseErrorData = jsonl.ParseErrorData

// Messages of the errors rpc answers itself; those about a line's framing are jsonl's.
const (
	msgCancelID    = "invalid params: " + CancelMethod + ": `id`: expected a string or an integer"
	msgCancelled   = "request cancelled"
	msgInternal    = "internal error"
	msgBadErrorObj = "malformed error object in response"
)

// CutMember returns obj without its top-level member named key (see [jsonl.CutMember]), for a
// server that keeps a member off the wire.
func CutMember(obj []byte, key string) []byte {
	out, _ := jsonl.CutMember(obj, key)
	return out
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
