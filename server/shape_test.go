package server

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

func shapeParams(root, shape string) map[string]any {
	p := initParams(root, nil)
	p["capabilities"] = map[string]any{"events": true, "result_shape": shape}
	return p
}

// Every shape on the wire: the initialize result echoes it, a result has exactly the members the
// shape promises, and events and errors are the same in every shape.
func TestResultShapes(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a <b> & c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := map[string]map[string]any{}
	for _, shape := range []string{"", "both", "text", "typed"} {
		w := newWire(t, Options{})
		params := shapeParams(root, shape)
		if shape == "" {
			params = initParams(root, nil)
		}
		_, init := w.request(1, "initialize", params)
		res, _ := init["result"].(map[string]any)
		want := shape
		if want == "" {
			want = "both"
		}
		if res["result_shape"] != want {
			t.Fatalf("shape %q: initialize result_shape = %v; want %q", shape, res["result_shape"], want)
		}
		events, resp := w.request(2, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "a.txt"}})
		if len(events) != 1 || events[0]["method"] != "event" {
			t.Fatalf("shape %q: events %v; want one event", shape, events)
		}
		r, _ := resp["result"].(map[string]any)
		results[want] = r
		_, errResp := w.request(3, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "missing.txt"}})
		if code, data := errorCode(t, errResp); code != schema.CodeRetry || data["kind"] != "not_found" {
			t.Fatalf("shape %q: error %v; want the tool's not_found error", shape, errResp)
		}
	}
	both, text, typed := results["both"], results["text"], results["typed"]
	if both["text"] == nil || both["path"] != "a.txt" || both["total_lines"] == nil {
		t.Fatalf("both = %v; want text and the typed fields", both)
	}
	if len(text) != 1 || text["text"] != both["text"] {
		t.Fatalf("text = %v; want exactly {text} equal to both's text %q", text, both["text"])
	}
	if _, has := typed["text"]; has || len(typed) != len(both)-1 {
		t.Fatalf("typed = %v; want both's members without text", typed)
	}
	for k, v := range typed {
		if b, _ := json.Marshal(v); string(b) != string(must(json.Marshal(both[k]))) {
			t.Errorf("typed %s = %s; want %v", k, b, both[k])
		}
	}
	if !strings.Contains(text["text"].(string), "a <b> & c") {
		t.Errorf("text %q lost the file's <, > or &", text["text"])
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// An unknown shape is refused naming the field, and the session stays uninitialized, so the
// client may correct it.
func TestUnknownResultShapeIsRefused(t *testing.T) {
	root := t.TempDir()
	w := newWire(t, Options{})
	_, resp := w.request(1, "initialize", shapeParams(root, "TEXT"))
	code, data := errorCode(t, resp)
	msg, _ := resp["error"].(map[string]any)["message"].(string)
	if code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" || !strings.Contains(msg, "capabilities.result_shape") {
		t.Fatalf("unknown shape: %v; want -32602 invalid_arguments naming capabilities.result_shape", resp)
	}
	_, resp = w.request(2, "initialize", shapeParams(root, "text"))
	if res, _ := resp["result"].(map[string]any); res["result_shape"] != "text" {
		t.Fatalf("initialize after the refusal = %v; want a session in shape text", resp)
	}
}

// poison fails to encode: the text shape must never encode the typed fields at all.
type poison struct{}

func (poison) MarshalJSON() ([]byte, error) { return nil, errors.New("typed field encoded") }

type poisonResult struct {
	Text    string `json:"text"`
	Entries poison `json:"entries"`
}

func TestTextShapeEncodesNoTypedField(t *testing.T) {
	res := &poisonResult{Text: "hello"}
	if _, err := json.Marshal(res); err == nil {
		t.Fatal("the poison must fail to encode")
	}
	out, err := shaped(res, schema.ResultShapeText)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil || string(b) != `{"text":"hello"}` {
		t.Fatalf("text shape = %s, %v; want {\"text\":\"hello\"} without encoding the typed fields", b, err)
	}
	if _, err := shaped(&struct{ N int }{}, schema.ResultShapeText); err == nil {
		t.Error("a result without text must be an error in shape text, not an empty text")
	}
}

func TestCutMember(t *testing.T) {
	for in, want := range map[string]string{
		`{"text":"x","a":1}`:                     `{"a":1}`,
		`{"a":1,"text":"x"}`:                     `{"a":1}`,
		`{"a":{"text":"in"},"text":"x","b":[1]}`: `{"a":{"text":"in"},"b":[1]}`,
		`{"text":"x \"text\":, }"}`:              `{}`,
		`{"a":"text","b":true}`:                  `{"a":"text","b":true}`,
		`{"texts":1,"text":null}`:                `{"texts":1}`,
	} {
		if got := string(rpc.CutMember([]byte(in), "text")); got != want {
			t.Errorf("CutMember(%s) = %s; want %s", in, got, want)
		}
	}
}
