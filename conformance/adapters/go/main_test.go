package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/sdks/go/fsboxclient"
)

var fsboxBin string

// TestMain builds the fsbox binary the adapter drives, unless FSBOX_BIN names one.
func TestMain(m *testing.M) {
	fsboxBin = os.Getenv("FSBOX_BIN")
	if fsboxBin == "" {
		dir, err := os.MkdirTemp("", "adapter-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fsboxBin = filepath.Join(dir, "fsbox")
		build := exec.Command("go", "build", "-o", fsboxBin, "./cmd/fsbox")
		build.Dir = filepath.Join("..", "..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building fsbox: %v\n%s", err, out)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// session starts an adapter session on a root holding a few files.
func session(t *testing.T, events, changeRequests bool) (*adapter, string) {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{"a.txt": "alpha\nbeta\n", "empty.txt": "", "d/b.go": "package d\n"} {
		path := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := &adapter{}
	tools := `["read_file","write_file","edit_file","list_directory","search_files","find_files","create_directory","file_info","read_multiple_files","directory_tree"]`
	resp := a.do(op{Op: "start", Binary: fsboxBin, RootDir: root, Config: json.RawMessage(`{"tools":` + tools + `}`),
		Events: events, ChangeRequests: changeRequests})
	if resp["ok"] != true {
		t.Fatalf("start: %v", resp)
	}
	t.Cleanup(a.stop)
	return a, root
}

// call runs one call op; answers are the runner's lines, read by the change request callback in
// order, and asked holds the change requests it wrote out.
func call(a *adapter, tool, args string, answers ...string) (resp map[string]any, asked []map[string]any) {
	var out bytes.Buffer
	a.in = bufio.NewReader(strings.NewReader(strings.Join(answers, "\n") + "\n"))
	a.out = json.NewEncoder(&out)
	resp = a.do(op{Op: "call", Tool: tool, Arguments: json.RawMessage(args)})
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var m map[string]map[string]any
		if len(line) > 0 && json.Unmarshal(line, &m) == nil && m["change_request"] != nil {
			asked = append(asked, m["change_request"])
		}
	}
	return resp, asked
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTypedResultsAreWireExact: a result that went through the typed stubs serialises back to the
// same JSON the server sent, zero values and absent fields included.
func TestTypedResultsAreWireExact(t *testing.T) {
	a, _ := session(t, true, false)
	for _, tc := range []struct{ tool, args string }{
		{"read_file", `{"path":"a.txt","limit":1}`},
		{"read_file", `{"path":"empty.txt"}`},
		{"file_info", `{"path":"empty.txt"}`},
		{"file_info", `{"path":"d"}`},
		{"list_directory", `{}`},
		{"search_files", `{"pattern":"a"}`},
		{"find_files", `{"pattern":"**"}`},
		{"directory_tree", `{"path":"."}`},
		{"read_multiple_files", `{"paths":["a.txt","nope.txt"]}`},
	} {
		typed, _ := call(a, tc.tool, tc.args)
		if typed["ok"] != true {
			t.Errorf("%s %s: %v", tc.tool, tc.args, typed)
			continue
		}
		raw, err := a.client.Call(context.Background(), tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := marshal(t, typed["result"]); !sameJSON(got, raw) {
			t.Errorf("%s %s:\ntyped %s\nwire  %s", tc.tool, tc.args, got, raw)
		}
	}
}

func TestCallAsksTheRunnerAboutChangeRequests(t *testing.T) {
	a, root := session(t, true, true)
	resp, asked := call(a, "write_file", `{"path":"n.txt","content":"x"}`, `{"op":"answer","approve":false,"reason":"not today"}`)
	if resp["ok"] != true || len(asked) != 1 || len(resp["events"].([]json.RawMessage)) != 0 {
		t.Fatalf("refused write: %v, asked %v", resp, asked)
	}
	if cr := asked[0]; cr["kind"] != "file_system.file_change_request" || cr["path"] != "n.txt" {
		t.Errorf("change request = %v", cr)
	}
	if r, _ := resp["result"].(*fsboxclient.WriteFileResult); r == nil || r.Cancelled == nil || !*r.Cancelled {
		t.Errorf("refused write result = %#v", resp["result"])
	}
	if _, err := os.Stat(filepath.Join(root, "n.txt")); !os.IsNotExist(err) {
		t.Errorf("refused write reached the disk")
	}
	resp, asked = call(a, "edit_file", `{"path":"a.txt","replacements":[{"old_text":"alpha","new_text":"A"}]}`, `{"op":"answer","approve":true}`)
	if resp["ok"] != true || len(asked) != 1 || len(resp["events"].([]json.RawMessage)) != 1 {
		t.Fatalf("approved edit: %v", resp)
	}
	var ev map[string]any
	json.Unmarshal(resp["events"].([]json.RawMessage)[0], &ev)
	if ev["kind"] != "file_system.file_edited" || ev["path"] != "a.txt" {
		t.Errorf("event = %v", ev)
	}
	// An error answer fails the callback: the server fails the call and applies nothing.
	resp, _ = call(a, "write_file", `{"path":"a.txt","content":"x"}`, `{"op":"answer","approve":true,"error":"listener crashed"}`)
	if e, _ := resp["error"].(map[string]any); resp["ok"] != false || e == nil || e["kind"] != fsboxclient.ErrorKind("change_request_failed") {
		t.Errorf("error answer: %v", resp)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "A\nbeta\n" {
		t.Errorf("a.txt = %q after a failed change request", b)
	}
}

// TestArgumentsTheTypesCannotCarry go through Client.Call, so the server's own error comes back;
// arguments they can carry keep zero values the server must see (an empty old_text).
func TestArgumentsTheTypesCannotCarry(t *testing.T) {
	a, _ := session(t, false, false)
	for _, tc := range []struct{ tool, args, kind string }{
		{"read_file", `{"path":"a.txt","bogus":1}`, "invalid_arguments"},
		{"read_file", `{"path":"a.txt","offset":"1"}`, "invalid_arguments"},
		{"read_file", `{}`, "invalid_arguments"},
		{"edit_file", `{"path":"a.txt","old_text":"","new_text":"x"}`, "empty_old_text"},
		{"grep", `{"pattern":"x"}`, "unknown_tool"},
	} {
		resp, _ := call(a, tc.tool, tc.args)
		e, _ := resp["error"].(map[string]any)
		if resp["ok"] != false || e == nil || fmt.Sprint(e["kind"]) != tc.kind {
			t.Errorf("%s %s: %v, want kind %s", tc.tool, tc.args, resp, tc.kind)
		}
	}
}

func TestOps(t *testing.T) {
	a := &adapter{}
	if resp := a.do(op{Op: "call", Tool: "read_file"}); resp["skipped"] == nil {
		t.Errorf("call before start: %v", resp)
	}
	if resp := a.do(op{Op: "tools"}); resp["skipped"] == nil {
		t.Errorf("tools before start: %v", resp)
	}
	if resp := a.do(op{Op: "dance"}); resp["skipped"] == nil {
		t.Errorf("unknown op: %v", resp)
	}
	resp := a.do(op{Op: "start", Binary: fsboxBin, RootDir: t.TempDir(), Config: json.RawMessage(`{"max_read_lines":0}`)})
	e, _ := resp["error"].(map[string]any)
	if resp["ok"] != false || e == nil || e["code"] != -32602 {
		t.Errorf("start with a bad config: %v", resp)
	}
	if resp := a.do(op{Op: "start", Binary: fsboxBin, RootDir: t.TempDir(), Config: json.RawMessage(`{"no_such_option":1}`)}); resp["skipped"] == nil {
		t.Errorf("start with a config the types cannot carry: %v", resp)
	}
	resp = a.do(op{Op: "start", Binary: fsboxBin, RootDir: t.TempDir()})
	init, _ := resp["initialize"].(*fsboxclient.InitializeResult)
	if resp["ok"] != true || init.Cwd != "." || len(init.Tools) != 8 || init.Tools[0].Name != "read_file" ||
		len(init.Tools[0].InputSchema) == 0 || init.SchemaHash == "" || init.ProtocolVersion != "1" {
		t.Errorf("start: %v", resp)
	}
	resp = a.do(op{Op: "tools"})
	tools, _ := resp["result"].(map[string]any)["tools"].([]fsboxclient.ToolDescriptor)
	if resp["ok"] != true || !reflect.DeepEqual(tools, init.Tools) {
		t.Errorf("tools: %v, want the initialize descriptors", resp)
	}
	resp = a.do(op{Op: "schema"})
	var schema map[string]any
	if raw, _ := resp["result"].(json.RawMessage); resp["ok"] != true || json.Unmarshal(raw, &schema) != nil || schema["$defs"] == nil {
		t.Errorf("schema: %v", resp)
	}
	if resp := a.do(op{Op: "stop"}); resp["ok"] != true || a.client != nil {
		t.Errorf("stop: %v", resp)
	}
}
