package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func TestApplyUnifiedDiff(t *testing.T) {
	for _, c := range []struct {
		name, old, diff, want, err string
	}{
		{"change", "old\n", "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-old\n+new\n", "new\n", ""},
		{"from empty", "", "--- a/t\n+++ b/t\n@@ -0,0 +1,2 @@\n+one\n+two\n", "one\ntwo\n", ""},
		{"to empty", "one\ntwo\n", "--- a/t\n+++ b/t\n@@ -1,2 +0,0 @@\n-one\n-two\n", "", ""},
		{"drop final newline", "text\n", "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-text\n+text\n\\ No newline at end of file\n", "text", ""},
		{"add final newline", "text", "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-text\n\\ No newline at end of file\n+text\n", "text\n", ""},
		{"context kept", "a\nb\nc\nd\n", "--- a/t\n+++ b/t\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n", "a\nb\nC\nd\n", ""},
		{"empty diff", "same\n", "", "same\n", ""},
		{"unterminated last line", "old\n", "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-old\n+new", "", "no newline"},
		{"wrong context", "a\nb\n", "--- a/t\n+++ b/t\n@@ -1,2 +1,2 @@\n x\n-b\n+B\n", "", "line 1 of the old text"},
		{"wrong count", "a\nb\n", "--- a/t\n+++ b/t\n@@ -1,3 +1,2 @@\n a\n-b\n+B\n", "", "has 2 old and 2 new lines"},
		{"headers only", "a\n", "--- a/t\n+++ b/t\n", "", "headers only"},
		{"missing newline marker", "text", "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-text\n+new\n", "", "line 1 of the old text"},
	} {
		got, err := applyUnifiedDiff(c.old, c.diff)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && got != c.want:
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	fx := &Fixture{Root: "/r/ws", Outside: "/r/ws-outside", Base: "/r", RealBase: "/r"}
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{`{"a": 1}`, `{"a": 1, "b": 2}`, true},
		{`{"a": 1}`, `{"a": 2}`, false},
		{`{"a": 1}`, `{}`, false},
		{`{"a": {"$absent": true}}`, `{"b": 1}`, true},
		{`{"a": {"$absent": true}}`, `{"a": null}`, false},
		{`[1, 2]`, `[1, 2, 3]`, false},
		{`{"$regex": "^a+$"}`, `"aaa"`, true},
		{`{"$regex": "^a+$"}`, `"aab"`, false},
		{`{"$contains": ["x", "y"], "$not_contains": "z"}`, `"xy"`, true},
		{`{"$contains": ["x", "y"], "$not_contains": "z"}`, `"xyz"`, false},
		{`{"$in": ["a", "b"]}`, `"b"`, true},
		{`{"$in": ["a", "b"]}`, `"c"`, false},
		{`{"$unordered": [1, 2]}`, `[2, 1]`, true},
		{`{"$unordered": [1, 1]}`, `[1, 2]`, false},
		{`{"$has": {"p": "x"}, "$lacks": {"p": "y"}}`, `[{"p": "x"}, {"p": "z"}]`, true},
		{`{"$lacks": {"p": "y"}}`, `[{"p": "y"}]`, false},
		{`{"$len": 2}`, `"ab"`, true},
		{`{"$max_len": 2}`, `"abc"`, false},
		{`{"$max_len": 2}`, `"éé"`, true},
		{`{"$exact": 18446744073709551617}`, `18446744073709551617`, true},
		{`{"$exact": 18446744073709551617}`, `18446744073709551616`, false},
		{`9007199254740993`, `9007199254740992`, false},
		{`{"$hash_of": "Hello, world!\n"}`, `"d9014c462484"`, true},
		{`{"$content": {"repeat": {"text": "ab", "count": 2}}}`, `"abab"`, true},
		{`{"$diff_applies": {"before": "old\n", "after": "new\n"}}`, `"--- a/t\n+++ b/t\n@@ -1 +1 @@\n-old\n+new\n"`, true},
		{`{"$diff_applies": {"before": "old\n", "after": "new\n"}}`, `"--- a/t\n+++ b/t\n@@ -1 +1 @@\n-old\n+newer\n"`, false},
		{`{"$not": {"$regex": "x"}}`, `"abc"`, true},
		{`"{{root}}/a"`, `"/r/ws/a"`, true},
		{`{"$schema": "s"}`, `{"$schema": "s", "$defs": {}}`, true},
		{`{"$no_host_path": true}`, `{"m": "see /r/ws/a"}`, false},
	} {
		m := &matcher{vars: map[string]any{}, fx: fx}
		bad := m.match(decode(t, c.want), decode(t, c.got), "v")
		if (len(bad) == 0) != c.ok {
			t.Errorf("match(%s, %s) = %v, want ok=%v", c.want, c.got, bad, c.ok)
		}
	}
}

func TestCaptureAndRef(t *testing.T) {
	m := &matcher{vars: map[string]any{}, fx: &Fixture{}}
	if bad := m.match(decode(t, `{"hash": {"$capture": "h"}}`), decode(t, `{"hash": "abc"}`), "v"); len(bad) > 0 {
		t.Fatal(bad)
	}
	if bad := m.match(decode(t, `{"$ref": "h"}`), decode(t, `"abc"`), "v"); len(bad) > 0 {
		t.Error(bad)
	}
	if bad := m.match(decode(t, `{"$ref": "h"}`), decode(t, `"abd"`), "v"); len(bad) == 0 {
		t.Error("$ref matched a different value")
	}
	// A second capture under a name must see the value captured first; the same value passes.
	if bad := m.match(decode(t, `{"$capture": "h"}`), decode(t, `"abc"`), "v"); len(bad) > 0 {
		t.Errorf("capturing the same value again: %v", bad)
	}
	if bad := m.match(decode(t, `{"$capture": "h"}`), decode(t, `"xyz"`), "v"); len(bad) == 0 {
		t.Error("$capture under a used name accepted a different value")
	}
	m.vars["h"] = "abc"
	if bad := m.match(decode(t, `{"$ref": "nothing"}`), decode(t, `"abc"`), "v"); len(bad) == 0 || !strings.Contains(bad[0], "nothing captured") {
		t.Errorf("$ref to an unused name: %v; want it refused", bad)
	}
	// A failed $in alternative must not leave its capture behind.
	m.match(decode(t, `{"$in": [{"x": {"$capture": "y"}, "z": 1}, {"x": 2}]}`), decode(t, `{"x": 2}`), "v")
	if _, ok := m.vars["y"]; ok {
		t.Error("capture of a failed alternative was kept")
	}
	r := &runner{m: m}
	got := r.subst(decode(t, `{"a": {"$ref": "h"}, "b": {"$concat": ["hash:", {"$ref": "h"}]}, "c": {"$content": {"repeat": {"text": "x", "count": 3}}}}`))
	if s := show(got); s != `{"a":"abc","b":"hash:abc","c":"xxx"}` {
		t.Errorf("subst = %s", s)
	}
}

func TestLeaks(t *testing.T) {
	fx := &Fixture{Base: "/tmp/fsconf-1", RealBase: "/private/tmp/fsconf-1"}
	v := decode(t, `{"text": "File not found: /tmp/fsconf-1/ws/a", "ok": "a.txt", "nested": ["x /private/tmp/fsconf-1/ws-outside/secret.txt"]}`)
	if got := fx.leaks(v, nil); len(got) != 2 {
		t.Errorf("leaks = %v, want 2", got)
	}
	sent := []string{"/tmp/fsconf-1/ws/a"}
	if got := fx.leaks(decode(t, `{"m": "cannot read /tmp/fsconf-1/ws/a"}`), sent); len(got) != 0 {
		t.Errorf("echo of the client's own path reported as a leak: %v", got)
	}
	if got := fx.leaks(decode(t, `{"m": "/tmp/fsconf-1/ws/a resolves to /tmp/fsconf-1/ws-outside/x"}`), sent); len(got) != 1 {
		t.Errorf("a leak next to an echo went unnoticed: %v", got)
	}
}

func TestBaselineApply(t *testing.T) {
	b, err := ParseBaseline("t", []byte("# comment\n\na/fails  # known\na/passes # fixed since\na/flaky # flaky: a race\nnone/such # gone\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := []*Vector{{ID: "a/fails"}, {ID: "a/passes"}, {ID: "a/flaky"}, {ID: "a/other"}}
	res := []Result{{ID: "a/fails", Status: "fail"}, {ID: "a/passes", Status: "pass"}, {ID: "a/flaky", Status: "pass"}, {ID: "a/other", Status: "fail"}}
	stale := b.apply(res, all)
	want := map[string]string{"a/fails": "xfail", "a/passes": "xpass", "a/flaky": "pass", "a/other": "fail"}
	for _, r := range res {
		if r.Status != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.Status, want[r.ID])
		}
	}
	if len(stale) != 1 || stale[0] != "none/such" {
		t.Errorf("stale = %v, want [none/such]", stale)
	}
	s := &Summary{Results: res, Stale: stale}
	if p, f, sk, k := s.Counts(); p != 1 || f != 3 || sk != 0 || k != 1 || s.OK() {
		t.Errorf("counts %d %d %d %d, ok %v", p, f, sk, k, s.OK())
	}
	var many []*Vector
	for i := 0; i < 21; i++ {
		many = append(many, &Vector{ID: "g/" + strings.Repeat("x", i+1)})
	}
	g, _ := ParseBaseline("g", []byte("g/*  # too broad\n"))
	if stale := g.apply(nil, many); len(stale) != 1 {
		t.Errorf("a glob over 21 vectors was accepted: %v", stale)
	}
	if _, err := ParseBaseline("bad", []byte("two words # x\n")); err == nil {
		t.Error("a line with two ids was accepted")
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string]string{
		`bin/fsbox serve`:                     `["bin/fsbox","serve"]`,
		`python3 "my server.py" --root 'a b'`: `["python3","my server.py","--root","a b"]`,
		`a\ b c`:                              `["a b","c"]`,
	} {
		got, err := splitCommand(in)
		if err != nil || show(got) != want {
			t.Errorf("splitCommand(%q) = %s, %v; want %s", in, show(got), err, want)
		}
	}
	if _, err := splitCommand(`a "b`); err == nil {
		t.Error("unterminated quote accepted")
	}
}

func TestFixtureStaysInItsTree(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", ""} {
		if _, err := within("/base/ws", p); err == nil {
			t.Errorf("within accepted %q", p)
		}
	}
}

// TestHangIsAFailure: a server that never answers fails its vectors at the step timeout instead
// of stalling the run.
func TestHangIsAFailure(t *testing.T) {
	mute := PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		_, err := io.Copy(io.Discard, r)
		return err
	})
	v, err := DecodeVector([]byte(`{"description": "a plain read of one file", "workspace": [{"path": "a", "text": "x"}], "steps": [{"call": "read_file", "args": {"path": "a"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	v.ID, v.Category = "t/hang", "t"
	s, err := Run(context.Background(), Options{Target: DialTarget("mute", mute), Vectors: []*Vector{v}, StepTimeout: 200 * time.Millisecond, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Results[0]; r.Status != "fail" || !strings.Contains(strings.Join(r.Failures, " "), "initialize") {
		t.Errorf("result %+v, want a failure at initialize", r)
	}
}

// TestWireViolations: JSON on the server's output that is not a protocol message is a failure;
// a line that is not JSON at all (a banner, a log line) is counted as stray and skipped.
func TestWireViolations(t *testing.T) {
	var out bytes.Buffer
	c := newWireConn(strings.NewReader("hello\n{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{}}\n{\"id\":1}\n[1,2]\n"), &out, func() error { return nil })
	<-c.done
	v := c.takeViolations()
	if len(v) != 2 || !strings.Contains(v[0], `"jsonrpc": "2.0"`) || !strings.Contains(v[1], "not one JSON object") {
		t.Errorf("violations = %q", v)
	}
	if n, first := c.stray.get(); n != 1 || first != "hello" {
		t.Errorf("stray lines %d %q, want 1 \"hello\"", n, first)
	}
}

func TestGitApplySecondOpinion(t *testing.T) {
	got, ran, err := gitApply("old\n", "--- a/d/t.txt\n+++ b/d/t.txt\n@@ -1 +1 @@\n-old\n+new\n")
	if !ran {
		t.Skip("git is not installed")
	}
	if err != nil || got != "new\n" {
		t.Errorf("gitApply = %q, %v", got, err)
	}
	if _, _, err := gitApply("old\n", "--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n-other\n+new\n"); err == nil {
		t.Error("git apply accepted a diff whose context does not match")
	}
}

// TestBindingSaysWhatIsMissing: without an SDK install the binding target names the missing piece
// and the command that provides it.
func TestBindingSaysWhatIsMissing(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{"conformance/adapters/python", "conformance/adapters/typescript"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "conformance/adapters/python/adapter.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"python":     {"sdks/python/.venv/bin/python is missing", "scripts/test-python.sh"},
		"typescript": {"scripts/test-typescript.sh"},
		"go":         {"conformance/adapters/go is missing"},
		"rust":       {"conformance/adapters/rust is missing"},
	} {
		_, err := BindingTarget(lang, repo, "/bin/true")
		if err == nil {
			t.Errorf("binding:%s: no error in an empty checkout", lang)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("binding:%s: %q does not say %q", lang, err, w)
			}
		}
	}
}
