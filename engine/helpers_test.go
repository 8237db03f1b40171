package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// fixture is a root and an outside directory built from makefs-style lines:
//
//	"d/"               a directory
//	"f"                a file whose content is "f\n"
//	"f: text"          a file with content text (\n \r \t \0 escapes allowed)
//	"a => b"           a symlink a with target b; $ROOT and $OUTSIDE expand to the absolute dirs
//	"$OUTSIDE/x: t"    a file (or directory, link) in the outside directory
//	"p |"              a FIFO
type fixture struct {
	t       testing.TB
	root    string // absolute, symlinks resolved
	outside string // absolute sibling directory, never to be touched by the engine
}

// makeFixture builds the fixture in fresh temporary directories.
func makeFixture(t testing.TB, lines ...string) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{t: t, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{fx.root, fx.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx.add(lines...)
	return fx
}

// expand replaces $ROOT and $OUTSIDE.
func (fx *fixture) expand(s string) string {
	return strings.NewReplacer("$ROOT", fx.root, "$OUTSIDE", fx.outside).Replace(s)
}

// abs returns the absolute location of a fixture name (root-relative, or $OUTSIDE/...).
func (fx *fixture) abs(name string) string {
	name = fx.expand(name)
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(fx.root, name)
}

// add creates more fixture entries.
func (fx *fixture) add(lines ...string) {
	t := fx.t
	t.Helper()
	for _, l := range lines {
		var err error
		switch {
		case strings.Contains(l, " => "):
			name, target, _ := strings.Cut(l, " => ")
			p := fx.abs(name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			err = os.Symlink(fx.expand(target), p)
		case strings.HasSuffix(l, " |"):
			err = mkfifo(fx.abs(strings.TrimSuffix(l, " |")))
		case strings.HasSuffix(l, "/"):
			err = os.MkdirAll(fx.abs(l), 0o755)
		default:
			name, content, ok := strings.Cut(l, ": ")
			if !ok {
				content = name + "\n"
			} else {
				content = strings.NewReplacer(`\n`, "\n", `\r`, "\r", `\t`, "\t", `\0`, "\x00").Replace(content)
			}
			p := fx.abs(name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatalf("fixture %q: %v", l, err)
		}
	}
}

// read returns the content of a fixture file, or "<missing>".
func (fx *fixture) read(name string) string {
	b, err := os.ReadFile(fx.abs(name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// engine opens an Engine on the fixture root with cfg (RootDir is filled in).
func (fx *fixture) engine(cfg schema.Config) *Engine {
	fx.t.Helper()
	if cfg.RootDir == "" {
		cfg.RootDir = fx.root
	}
	e, err := New(cfg, Options{})
	if err != nil {
		fx.t.Fatalf("New: %v", err)
	}
	fx.t.Cleanup(func() { e.Close() })
	return e
}

// recorder collects the events and change requests of calls.
type recorder struct {
	events   []any
	requests []*schema.FileChangeRequest
	// answer decides change requests with a plain approve or refuse; nil approves.
	answer func(req *schema.FileChangeRequest) (bool, string, error)
	// reply, when set, answers change requests in full (edits included) instead of answer.
	reply func(req *schema.FileChangeRequest) (schema.ChangeRequestResult, error)
}

// hooks returns Hooks recording into r; withRequests installs the ChangeRequest hook.
func (r *recorder) hooks(withRequests bool) Hooks {
	h := Hooks{Event: func(ev any) { r.events = append(r.events, ev) }}
	if withRequests {
		h.ChangeRequest = func(_ context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
			r.requests = append(r.requests, req)
			switch {
			case r.reply != nil:
				return r.reply(req)
			case r.answer == nil:
				return Approve(), nil
			}
			ok, reason, err := r.answer(req)
			return schema.ChangeRequestResult{Approve: ok, Reason: reason}, err
		}
	}
	return h
}

// tryCall runs a tool with args given as a Go value (marshalled to JSON).
func tryCall(t *testing.T, e *Engine, tool string, args any, h Hooks) (any, *Error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Call(context.Background(), tool, raw, h)
	if err != nil {
		var ee *Error
		if !errors.As(err, &ee) {
			t.Fatalf("%s: error %T is not *Error: %v", tool, err, err)
		}
		return nil, ee
	}
	return res, nil
}

// mustCall runs a tool and fails the test on error.
func mustCall(t *testing.T, e *Engine, tool string, args any, h Hooks) any {
	t.Helper()
	res, err := tryCall(t, e, tool, args, h)
	if err != nil {
		t.Fatalf("%s(%v) = %v; want success", tool, args, err)
	}
	return res
}

// resultText returns the Text field of any tool result.
func resultText(res any) string {
	b, _ := json.Marshal(res)
	var v struct {
		Text string `json:"text"`
	}
	json.Unmarshal(b, &v)
	return v.Text
}

// wantKind fails unless err has the given kind.
func wantKind(t *testing.T, what string, err *Error, kind schema.ErrorKind) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s = success; want error %s", what, kind)
	}
	if err.Kind != kind {
		t.Fatalf("%s = %s (%q); want %s", what, err.Kind, err.Msg, kind)
	}
}

// jsonOf returns the JSON encoding of v, for comparisons.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
