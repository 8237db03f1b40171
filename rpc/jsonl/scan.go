package jsonl

import (
	"bytes"
	"encoding/json"
)

// The scanners below walk JSON that is already known to be valid (checked by Classify, or
// written by encoding/json): they find where a value ends by its brackets and quotes, without
// validating it again. On bytes that are not JSON they never panic or read out of range, but
// the index they return means nothing.

// SkipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just past the string starting at b[i] == '"', or len(b) when it
// is not closed.
func SkipString(b []byte, i int) int {
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

// SkipValue returns the index just past the valid JSON value starting at b[i].
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
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

// ValidID reports whether raw (a valid JSON value) is an id JSON-RPC callers here accept: a
// string, or a number without fraction or exponent, of any magnitude. Null is refused: the
// JSON-RPC spec reserves it for replies whose id could not be determined.
func ValidID(raw json.RawMessage) bool {
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
