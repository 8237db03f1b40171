package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTopMembers_MatchesDecoder pins the hand-written member scan to encoding/json's reading of
// the same objects: nested values, strings holding brackets, quotes and escapes, escaped member
// names, numbers, literals, whitespace everywhere, and duplicates.
func TestTopMembers_MatchesDecoder(t *testing.T) {
	for _, obj := range []string{
		`{}`, ` { } `,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":"}]"}]}}`,
		"{ \"id\" :\t-12.5e3 ,\r\n\"method\": \"x\\\"}\" , \"params\" : [ ] }",
		`{"params":{"s":"\\","t":"\"{["},"id":"a\"b","method":"m"}`,
		`{"\u0069d":7,"method":"m"}`, `{"i\\d":7}`,
		`{"id":true,"result":null,"error":false,"x":{"id":2}}`,
		`{"id":1,"id":2}`, `{"method":"a","x":1,"method":"b"}`,
		`{"params":"{\"id\":1}","id":[1,[2,[3]]],"error":{"code":-1,"message":"]}"}}`,
	} {
		got, gotDup := topMembers([]byte(obj))
		want, wantDup := decoderMembers(t, []byte(obj))
		if gotDup != wantDup {
			t.Errorf("%s: duplicate %q; want %q", obj, gotDup, wantDup)
			continue
		}
		if wantDup != "" {
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: members %v; want %v", obj, got, want)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: member %s = %s; want %s", obj, k, got[k], v)
			}
		}
	}
}

// decoderMembers is the reference: the known members as encoding/json's Decoder reads them.
func decoderMembers(t *testing.T, obj []byte) (map[string]json.RawMessage, string) {
	m := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, known := range members {
			if name == known {
				if _, seen := m[name]; seen {
					return m, name
				}
				m[name] = v
			}
		}
	}
	return m, ""
}

// TestClassify pins one line of each kind Classify tells apart, with the code, message start
// and id it answers with. (rpc's transcripts and cmd/fsbox's serve/mcp parity test pin the bytes
// of the replies built from these.)
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		line   string
		kind   Kind   // for an accepted line
		code   int64  // for a rejection
		msg    string // its message's start
		id     string // the rejection's id; "" for null
		silent bool
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, kind: Request},
		{line: `{"jsonrpc":"2.0","method":"m","params":null}`, kind: Notification},
		{line: `{"jsonrpc":"2.0","id":"srv-1","result":1}`, kind: Response},
		{line: `{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`, kind: Response},
		{line: `{"jsonrpc":"2.0",`, code: CodeParseError, msg: "parse error at byte 18: unexpected end of input"},
		{line: "\"\xff\"", code: CodeParseError, msg: "parse error at byte 2: invalid UTF-8"},
		{line: `{} {}`, code: CodeParseError, msg: "parse error at byte 4: invalid character '{'"},
		{line: `[]`, code: CodeInvalidRequest, msg: msgBatch},
		{line: `null`, code: CodeInvalidRequest, msg: msgNotObject},
		{line: `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, code: CodeInvalidRequest, msg: msgDuplicate + "id"},
		{line: `{"jsonrpc":"1.0","id":7,"method":"m"}`, code: CodeInvalidRequest, msg: msgVersion, id: "7"},
		{line: `{"id":"a","method":"m"}`, code: CodeInvalidRequest, msg: msgNoVersion, id: `"a"`},
		{line: `{"id":1.5,"method":"m"}`, code: CodeInvalidRequest, msg: msgNoVersion},
		{line: `{"jsonrpc":"2.0","id":1,"method":2}`, code: CodeInvalidRequest, msg: msgMethod},
		{line: `{"jsonrpc":"2.0","id":null,"method":"m"}`, code: CodeInvalidRequest, msg: msgBadID},
		{line: `{"jsonrpc":"2.0","id":1e3,"method":"m"}`, code: CodeInvalidRequest, msg: msgBadID},
		{line: `{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, code: CodeInvalidRequest, msg: msgBothKinds},
		{line: `{"jsonrpc":"2.0","id":1}`, code: CodeInvalidRequest, msg: msgNoMethod},
		{line: `{"jsonrpc":"2.0","id":-9,"method":"m","params":3}`, code: CodeInvalidParams, msg: msgParams, id: "-9"},
		{line: `{"jsonrpc":"2.0","method":"m","params":"x"}`, code: CodeInvalidParams, msg: msgParams, silent: true},
	} {
		msg, rej := Classify([]byte(tc.line))
		if (msg == nil) == (rej == nil) {
			t.Errorf("%s: message %v, rejection %v; want exactly one", tc.line, msg, rej)
			continue
		}
		if tc.kind != 0 {
			if msg == nil || msg.Kind != tc.kind {
				t.Errorf("%s: %+v, %+v; want kind %d", tc.line, msg, rej, tc.kind)
			}
			continue
		}
		if rej == nil {
			t.Errorf("%s: accepted as %+v; want a rejection", tc.line, msg)
			continue
		}
		if rej.Code != tc.code || !strings.HasPrefix(rej.Message, tc.msg) || string(rej.ID) != tc.id || rej.Silent != tc.silent {
			t.Errorf("%s: %d %q id %q silent %v; want %d %q… id %q silent %v",
				tc.line, rej.Code, rej.Message, rej.ID, rej.Silent, tc.code, tc.msg, tc.id, tc.silent)
		}
		if _, ok := rej.Data.(ParseErrorData); ok != (tc.code == CodeParseError) {
			t.Errorf("%s: data %#v; want a ParseErrorData exactly for -32700", tc.line, rej.Data)
		}
	}
}

// FuzzClassify: whatever the line, Classify returns exactly one of a message and a rejection,
// refuses with -32700 exactly the lines that are not one UTF-8 JSON value, and answers a
// rejection only to an id that is valid, never echoing anything else.
func FuzzClassify(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m"}`, `{"id":"\u00e9","method":"m","params":[]}`,
		`[1]`, `{"jsonrpc":"2.0","id":1,"result":null}`, "{\"a\":\"\xff\"}", `{"method":"m","id":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line, ok := Trim(line)
		if !ok {
			return
		}
		msg, rej := Classify(line)
		if (msg == nil) == (rej == nil) {
			t.Fatalf("%q: message %v, rejection %v; want exactly one", line, msg, rej)
		}
		valid := utf8.Valid(line) && json.Valid(line)
		if (rej != nil && rej.Code == CodeParseError) == valid {
			t.Fatalf("%q: parse error %v, but the line is valid JSON: %v", line, rej, valid)
		}
		if rej != nil && rej.ID != nil && !ValidID(rej.ID) {
			t.Fatalf("%q: rejection to id %s", line, rej.ID)
		}
		if msg != nil && msg.Kind != Response && msg.ID != nil && !ValidID(msg.ID) {
			t.Fatalf("%q: request with id %s", line, msg.ID)
		}
	})
}
