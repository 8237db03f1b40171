package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/fsbox/fsbox/schema"
)

// decodeArgs decodes a tool's arguments strictly into dst (a pointer to an Args struct) with
// schema.Decode, the decoder every front end shares:
//
//   - the arguments must be a JSON object (null counts as {});
//   - every key must be the exact json name of a field: an unknown or differently cased key is
//     invalid_arguments naming it, and the argument meant when one is close (encoding/json
//     alone would accept "PATH" for "path", and drop "pth");
//   - a key given twice is refused (parsers disagree on which one wins);
//   - fields without omitempty are required; null stands for an omitted optional argument;
//   - a value of the wrong type is invalid_arguments naming the field and the expected type;
//   - nested objects (replacements) follow the same rules, named by their position.
func decodeArgs(op string, raw json.RawMessage, dst any) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if err := schema.Decode(raw, dst); err != nil {
		return ArgumentsError(op, err)
	}
	return nil
}

// ArgumentsError is the invalid_arguments error of tool op for arguments that schema.Decode
// refused, in words for the model: which argument, what is wrong, the one meant when the name
// is close, the valid names. A front end that decodes arguments of its own shape (the MCP
// compatibility tools) reports its failures with it, so the model reads the same sentences
// everywhere.
func ArgumentsError(op string, err error) *Error {
	var de *schema.DecodeError
	if !errors.As(err, &de) {
		return &Error{Op: op, Kind: schema.KindInvalidArguments, Msg: "The arguments are not valid JSON.", Err: err}
	}
	var msg string
	switch de.Problem {
	case schema.ProblemUnknown:
		msg = "Unknown argument '" + de.Path + "'."
		if de.Suggestion != "" {
			msg += " Did you mean '" + de.Suggestion + "'?"
		}
		if len(de.Members) == 0 {
			msg += " This tool takes no arguments."
		} else {
			msg += " Valid arguments: " + strings.Join(de.Members, ", ") + "."
		}
	case schema.ProblemDuplicate:
		msg = "Argument '" + de.Path + "' is given twice; give it once."
	case schema.ProblemMissing:
		msg = "Missing required argument '" + de.Path + "'."
	case schema.ProblemType:
		if de.Path == "" {
			msg = "The arguments must be an object."
		} else {
			msg = "Argument '" + de.Path + "' must be " + de.Expected + ", not " + de.Got + "."
		}
	default:
		msg = "The arguments are not valid JSON."
	}
	return &Error{Op: op, Kind: schema.KindInvalidArguments, Msg: msg, Err: err}
}
