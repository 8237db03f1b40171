package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// rgFixture is pydantic-ai-harness's ripgrep fixture (research notes §7.13).
var rgFixture = []string{
	"src/app.py: import os\\n\\n\\ndef main():\\n    return os.name\\n",
	"notes.txt: Import notes\\nos is a module\\n",
	".hidden: import os\\n",
	"ignored.log: import os\\n",
	".ignore: *.log\\n",
}

func rgEngine(t *testing.T, cfg schema.Config, extra ...string) (*fixture, *Engine) {
	fx := makeFixture(t, append(slices.Clone(rgFixture), extra...)...)
	cfg.Tools = allTools
	return fx, fx.engine(cfg)
}

func TestGrep_Seed(t *testing.T) {
	_, e := rgEngine(t, schema.Config{}, "minified.js: "+strings.Repeat("x", 10006), "link.txt => $OUTSIDE/secret.txt")
	os.WriteFile(filepath.Join(filepath.Dir(e.rootDir), "outside", "secret.txt"), []byte("import os\n"), 0o644)
	two := 2
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "import os"}, "src/app.py:1:import os"},
		{map[string]any{"pattern": "import", "ignore_case": true, "glob": "*.txt"}, "notes.txt:1:Import notes"},
		{map[string]any{"pattern": "os", "file_type": "py", "context": 1}, "src/app.py:1:import os\nsrc/app.py-2-\nsrc/app.py-4-def main():\nsrc/app.py:5:    return os.name"},
		{map[string]any{"pattern": "os.name", "literal": true, "path": "src"}, "src/app.py:5:    return os.name"},
		{map[string]any{"pattern": "o.n", "literal": true}, "No matches found."},
		{map[string]any{"pattern": "os", "path": "notes.txt"}, "notes.txt:2:os is a module"},
		{map[string]any{"pattern": "module", "context": two}, "notes.txt-1-Import notes\nnotes.txt:2:os is a module"},
		{map[string]any{"pattern": "import os", "glob": "**"}, "ignored.log:1:import os\nsrc/app.py:1:import os"},
	} {
		got := resultText(mustCall(t, e, schema.ToolGrep, tc.args, Hooks{}))
		if i := strings.Index(got, "\n["); i >= 0 {
			got = got[:i] // the hidden-entry notices, checked elsewhere
		}
		if got != tc.want {
			t.Errorf("grep(%v) = %q\nwant %q", tc.args, got, tc.want)
		}
	}
	long := resultText(mustCall(t, e, schema.ToolGrep, map[string]any{"pattern": "xxx"}, Hooks{}))
	if !strings.HasPrefix(long, "minified.js:1:xxxx") || !strings.HasSuffix(strings.SplitN(long, "\n", 2)[0], "[... omitted end of long line]") || len(long) > 5000 {
		t.Errorf("long line: %d chars, %q...", len(long), long[:60])
	}
	for _, tc := range []struct {
		args map[string]any
		kind schema.ErrorKind
	}{
		{map[string]any{"pattern": "("}, schema.KindInvalidPattern},
		{map[string]any{"pattern": "a", "context": 21}, schema.KindInvalidArguments},
		{map[string]any{"pattern": "a", "context": -1}, schema.KindInvalidArguments},
		{map[string]any{"pattern": "a", "path": "missing"}, schema.KindNotFound},
		{map[string]any{"pattern": "a", "path": "../outside"}, schema.KindOutsideRoot},
		{map[string]any{"pattern": "a", "file_type": "klingon"}, schema.KindInvalidArguments},
	} {
		_, err := tryCall(t, e, schema.ToolGrep, tc.args, Hooks{})
		wantKind(t, "grep", err, tc.kind)
	}
	one := 1
	_, capped := rgEngine(t, schema.Config{MaxSearchResults: &one})
	res := mustCall(t, capped, schema.ToolGrep, map[string]any{"pattern": "module", "context": 2}, Hooks{}).(*schema.GrepResult)
	if !res.Truncated || !strings.HasPrefix(res.Text, "notes.txt-1-Import notes\n[... truncated at 1 lines]") || !res.Lines[0].Context {
		t.Errorf("cap counts context lines: %q", res.Text)
	}
	deny := []string{"src/*"}
	_, d := rgEngine(t, schema.Config{DeniedPatterns: &deny})
	if got := resultText(mustCall(t, d, schema.ToolGrep, map[string]any{"pattern": "os"}, Hooks{})); !strings.HasPrefix(got, "notes.txt:2:os is a module\n[") {
		t.Errorf("denied: %q", got)
	}
}

// TestListFilesGrep_AgreeWithRg runs list_files and grep and rg with the same flags on a copy of
// a real module (golang.org/x/sys, in a git repository) and compares the output line for line.
func TestListFilesGrep_AgreeWithRg(t *testing.T) {
	src := moduleDir(t, "golang.org/x/sys")
	fx := makeFixture(t)
	if out, err := exec.Command("cp", "-r", src+"/.", fx.root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	exec.Command("chmod", "-R", "u+w", fx.root).Run()
	fx.add("unix/_obj/x.o: func Testing", "unix/unix.test: func Testing")
	gitRepo(t, fx.root)
	n, chars := 1_000_000, 100_000_000
	none := []string{}
	e := fx.engine(schema.Config{Tools: allTools, MaxFindResults: &n, MaxSearchResults: &n, MaxOutputChars: &chars, DeniedPatterns: &none, ProtectedPatterns: &none})
	rg := func(args ...string) []string {
		cmd := exec.Command("rg", append([]string{"--color=never", "--sort", "path", "--no-messages"}, args...)...)
		cmd.Dir = fx.root
		out, _ := cmd.Output() // exit 1: no match
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if l != "" && l != "--" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	body := func(text string) []string {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			if !strings.HasPrefix(l, "[") && l != "No files found." && l != "No matches found." && l != "" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	for _, tc := range []struct {
		args map[string]any
		rg   []string
	}{
		{map[string]any{}, []string{"--files"}},
		{map[string]any{"glob": "*_test.go"}, []string{"--files", "--glob", "*_test.go"}},
		{map[string]any{"glob": "unix/**/*.s"}, []string{"--files", "--glob", "unix/**/*.s"}},
		{map[string]any{"glob": "!*.go"}, []string{"--files", "--glob", "!*.go"}},
		{map[string]any{"path": "windows", "glob": "*.go"}, []string{"--files", "--glob", "*.go", "windows"}},
	} {
		got := body(resultText(mustCall(t, e, schema.ToolListFiles, tc.args, Hooks{})))
		want := rg(tc.rg...)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("list_files(%v) vs rg %v: %d vs %d lines\n%s", tc.args, tc.rg, len(got), len(want), setDiff(got, want))
		}
	}
	grepFlags := []string{"--line-number", "--with-filename", "--no-heading", "--max-columns", "4096", "--max-columns-preview"}
	for _, tc := range []struct {
		args map[string]any
		rg   []string
	}{
		{map[string]any{"pattern": "func Test[A-Z]"}, []string{"--regexp", "func Test[A-Z]"}},
		{map[string]any{"pattern": "SYS_OPENAT2", "context": 2}, []string{"--context", "2", "--regexp", "SYS_OPENAT2"}},
		{map[string]any{"pattern": "epoll_wait", "ignore_case": true, "file_type": "go"}, []string{"--ignore-case", "--type", "go", "--regexp", "epoll_wait"}},
		{map[string]any{"pattern": "unsafe.Pointer(&", "literal": true}, []string{"--fixed-strings", "--regexp", "unsafe.Pointer(&"}},
		{map[string]any{"pattern": "Syscall(", "literal": true, "context": 1, "glob": "*_linux.go"}, []string{"--fixed-strings", "--context", "1", "--glob", "*_linux.go", "--regexp", "Syscall("}},
		{map[string]any{"pattern": "TEXT", "glob": "*.s", "path": "unix"}, []string{"--glob", "*.s", "--regexp", "TEXT", "unix"}},
	} {
		got := body(resultText(mustCall(t, e, schema.ToolGrep, tc.args, Hooks{})))
		want := rg(append(slices.Clone(grepFlags), tc.rg...)...)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("grep(%v) vs rg %v: %d vs %d lines\n%s", tc.args, tc.rg, len(got), len(want), setDiff(got, want))
		}
	}
}
