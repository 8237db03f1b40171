// Command go is the Go binding's conformance adapter: `fsbox conformance run --target binding:go`
// builds it and sends it one NDJSON op per line on stdin (start, call, tools, schema, stop), and it answers each
// with one line on stdout after executing it through package fsboxclient. While a call runs, each
// change request the client's OnChangeRequest receives is written out as {"change_request": …}
// and answered by the runner's next line, {"op":"answer",…}. Tool calls go through the
// typed methods (the table in dispatch_gen.go is generated from the schema); a tool without one,
// or arguments its typed parameters cannot represent exactly (an unknown field, a wrong type, a
// missing required field), go through Client.Call, so the server's own verdict comes back.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"

	"github.com/fsbox/fsbox/sdks/go/fsboxclient"
)

// handler executes one call of a tool through its typed method.
type handler func(ctx context.Context, c *fsboxclient.Client, args json.RawMessage) (any, error)

// errUntyped says the typed parameters cannot carry the arguments as sent.
var errUntyped = errors.New("arguments not representable by the typed parameters")

// typed adapts a typed method of Client, given as a method expression, to a handler.
func typed[P, R any](method func(*fsboxclient.Client, context.Context, P) (*R, error)) handler {
	return func(ctx context.Context, c *fsboxclient.Client, args json.RawMessage) (any, error) {
		var p P
		if !decodeExact(args, &p) {
			return nil, errUntyped
		}
		return method(c, ctx, p)
	}
}

// decodeExact decodes raw into v and reports whether encoding v gives back the same JSON value.
func decodeExact(raw json.RawMessage, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(v) != nil {
		return false
	}
	back, err := json.Marshal(v)
	return err == nil && sameJSON(raw, back)
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return unmarshalNumbers(a, &x) == nil && unmarshalNumbers(b, &y) == nil && reflect.DeepEqual(x, y)
}

func unmarshalNumbers(b []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// op is one line from the runner.
type op struct {
	Op             string          `json:"op"`
	Binary         string          `json:"binary"`
	RootDir        string          `json:"root_dir"`
	Config         json.RawMessage `json:"config"`
	Events         bool            `json:"events"`
	ChangeRequests bool            `json:"change_requests"`
	ResultShape    string          `json:"result_shape"`
	Tool           string          `json:"tool"`
	Arguments      json.RawMessage `json:"arguments"`
	// The runner's answer to a change request (op "answer"): Error set fails the callback;
	// Decision "edit" (or approve with a replacement) answers with Content or with Arguments
	// (the reviewer's replacement).
	Approve  bool    `json:"approve"`
	Reason   string  `json:"reason"`
	Error    string  `json:"error"`
	Decision string  `json:"decision"`
	Content  *string `json:"content"`
}

// adapter holds the session, the runner's pipes and the events of the current call.
type adapter struct {
	client *fsboxclient.Client
	in     *bufio.Reader
	out    *json.Encoder

	exchange sync.Mutex // one change request at a time on the pipes
	mu       sync.Mutex // guards events, written by the client's callback
	events   []json.RawMessage
}

func main() {
	a := &adapter{in: bufio.NewReader(os.Stdin), out: json.NewEncoder(os.Stdout)}
	for {
		o, err := a.next()
		if err != nil {
			a.stop()
			return
		}
		resp := map[string]any{"ok": false, "skipped": "op is not JSON"}
		if o != nil {
			resp = a.do(*o)
		}
		if eerr := a.out.Encode(resp); eerr != nil {
			fmt.Fprintln(os.Stderr, "adapter:", eerr)
			os.Exit(1)
		}
		if o != nil && o.Op == "stop" {
			return
		}
	}
}

// next reads the runner's next op, skipping blank lines; a line that is not JSON gives nil.
func (a *adapter) next() (*op, error) {
	for {
		line, err := a.in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var o op
			if json.Unmarshal(line, &o) != nil {
				return nil, nil
			}
			return &o, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (a *adapter) do(o op) map[string]any {
	switch o.Op {
	case "start":
		return a.start(o)
	case "call":
		if a.client == nil {
			return map[string]any{"ok": false, "skipped": "call before start"}
		}
		return a.call(o)
	case "tools", "schema":
		if a.client == nil {
			return map[string]any{"ok": false, "skipped": o.Op + " before start"}
		}
		return a.method(o.Op)
	case "stop":
		a.stop()
		return map[string]any{"ok": true}
	}
	return map[string]any{"ok": false, "skipped": fmt.Sprintf("unknown op %q", o.Op)}
}

func (a *adapter) start(o op) map[string]any {
	if a.client != nil {
		return map[string]any{"ok": false, "skipped": "a session is already running"}
	}
	opts := fsboxclient.Options{Binary: o.Binary, RootDir: o.RootDir}
	if len(o.Config) > 0 && string(o.Config) != "null" {
		opts.Config = new(fsboxclient.Config)
		if !decodeExact(o.Config, opts.Config) {
			return map[string]any{"ok": false, "skipped": "config not representable by fsboxclient.Config: " + string(o.Config)}
		}
	}
	if o.Events {
		opts.OnEvent = a.onEvent
	}
	if o.ChangeRequests {
		opts.OnChangeRequest = a.onChangeRequest
	}
	opts.ResultShape = o.ResultShape
	c, err := fsboxclient.Start(context.Background(), opts)
	if err != nil {
		return map[string]any{"ok": false, "error": errorJSON(err)}
	}
	a.client = c
	return map[string]any{"ok": true, "initialize": c.Session()}
}

// method answers the tools op with ListTools and the schema op with Schema.
func (a *adapter) method(name string) map[string]any {
	ctx := context.Background()
	var result any
	var err error
	if name == "tools" {
		var tools []fsboxclient.ToolDescriptor
		tools, err = a.client.ListTools(ctx)
		result = map[string]any{"tools": tools}
	} else {
		result, err = a.client.Schema(ctx)
	}
	if err != nil {
		return map[string]any{"ok": false, "error": errorJSON(err)}
	}
	return map[string]any{"ok": true, "result": result}
}

func (a *adapter) call(o op) map[string]any {
	a.mu.Lock()
	a.events = nil
	a.mu.Unlock()
	args := o.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	ctx := context.Background()
	var result any
	err := errUntyped
	// In the text and typed shapes a typed result cannot report what was sent (a text result has
	// no typed fields, a typed one's Text encodes as ""), so the call goes through Client.Call
	// and the runner sees the wire result; the SDK's own tests cover the typed methods there.
	if shape := a.client.Session().ResultShape; shape == fsboxclient.ResultShapeBoth || shape == "" {
		if h, ok := dispatch[o.Tool]; ok {
			result, err = h(ctx, a.client, args)
		}
	}
	if errors.Is(err, errUntyped) {
		result, err = a.client.Call(ctx, o.Tool, args)
	}
	a.mu.Lock()
	resp := map[string]any{"events": nonNil(a.events)}
	a.mu.Unlock()
	if err != nil {
		resp["ok"], resp["error"] = false, errorJSON(err)
		return resp
	}
	resp["ok"], resp["result"] = true, result
	return resp
}

func nonNil(l []json.RawMessage) []json.RawMessage {
	if l == nil {
		return []json.RawMessage{}
	}
	return l
}

func (a *adapter) onEvent(e fsboxclient.Event) {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"adapter_error": err.Error()})
	}
	a.mu.Lock()
	a.events = append(a.events, b)
	a.mu.Unlock()
}

// onChangeRequest hands the request to the runner and returns what it answers: nil approves,
// req.Cancel refuses, req.ApproveWith and req.EditArguments approve the reviewer's replacement,
// and an error answer fails the callback, so the server fails the call.
func (a *adapter) onChangeRequest(_ context.Context, req *fsboxclient.ChangeRequest) error {
	a.exchange.Lock()
	defer a.exchange.Unlock()
	if err := a.out.Encode(map[string]any{"change_request": req.FileChangeRequest}); err != nil {
		return err
	}
	ans, err := a.next()
	switch {
	case err != nil:
		return fmt.Errorf("no answer from the runner: %w", err)
	case ans == nil || ans.Op != "answer":
		return errors.New("the runner did not answer the change request")
	case ans.Error != "":
		return errors.New(ans.Error)
	}
	replaces := ans.Content != nil || len(ans.Arguments) > 0
	switch {
	case ans.Decision == "edit" || ans.Decision == "" && ans.Approve && replaces:
		switch {
		case ans.Content != nil && len(ans.Arguments) == 0:
			return req.ApproveWith(*ans.Content)
		case ans.Content == nil && len(ans.Arguments) > 0:
			return req.EditArguments(ans.Arguments)
		}
		return errors.New("the SDK sends an edit with content or with arguments, not both or neither")
	case ans.Decision == "approve":
		return nil
	case ans.Decision == "reject" || !ans.Approve:
		return req.Cancel(ans.Reason)
	}
	return nil
}

func (a *adapter) stop() {
	if a.client != nil {
		a.client.Close()
		a.client = nil
	}
}

// errorJSON flattens an error for the runner: *fsboxclient.Error field by field, anything else as
// a message.
func errorJSON(err error) map[string]any {
	var fe *fsboxclient.Error
	if !errors.As(err, &fe) {
		return map[string]any{"message": err.Error()}
	}
	m := map[string]any{"code": fe.Code, "message": fe.Message, "retry": fe.Retry, "counts_as_retry": fe.CountsAsRetry}
	if fe.Kind != "" {
		m["kind"] = fe.Kind
	}
	if fe.Path != "" {
		m["path"] = fe.Path
	}
	if len(fe.Data) > 0 {
		m["data"] = fe.Data
	}
	return m
}
