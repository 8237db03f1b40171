package jsonl

import (
	"bytes"
	"encoding/json"
	"testing"
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

