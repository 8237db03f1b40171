package engine

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata golden files")

// seedTree is the shared fixture of pydantic-ai-harness's FileSystem tests plus a few entries the walkers
// need: a deeper tree, an empty directory, a CRLF file and a file that is not UTF-8.
var seedTree = []string{
	"hello.txt: Hello, world!\n",
	`multi.txt: line1\nline2\nline3\nline4\nline5\n`,
	`subdir/nested.py: print("nested")\n`,
	".hidden: secret\n",
	`binary.bin: \0\x01`,
	".git/config: [core]\n",
	".git/HEAD: ref: refs/heads/main\n",
	".env: TOKEN=1\n",
	"empty/",
	`src/a/deep.go: package a\n\nfunc Deep() {}\n`,
	`src/b.go: package src\n`,
	`crlf.txt: one\r\ntwo\r\n`,
}

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (-update rewrites it)\n--- want\n%s\n--- got\n%s", name, file, want, got)
	}
}

// callText runs a tool and returns its text, failing the test on error.
func callText(t *testing.T, e *Engine, tool string, args any) string {
	t.Helper()
	return resultText(mustCall(t, e, tool, args, Hooks{}))
}

// allWalkers enables the opt-in walkers next to the defaults.
func allWalkers(cfg schema.Config) schema.Config {
	cfg.Tools = []string{
		schema.ToolReadFile, schema.ToolListDirectory, schema.ToolSearchFiles, schema.ToolFindFiles,
		schema.ToolDirectoryTree, schema.ToolReadMultipleFiles, schema.ToolListFiles, schema.ToolGrep,
	}
	return cfg
}

// TestWalkers_Golden pins the model-facing text of every walker on seedTree.
func TestWalkers_Golden(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add("inner_link.txt => hello.txt", "subdir/up => ..")
	e := fx.engine(allWalkers(schema.Config{}))
	sub := fx.engine(allWalkers(schema.Config{Cwd: "subdir"}))
	cases := []struct {
		name string
		e    *Engine
		tool string
		args any
	}{
		{"list_root", e, "list_directory", map[string]any{}},
		{"list_subdir", e, "list_directory", map[string]any{"path": "src"}},
		{"list_empty", e, "list_directory", map[string]any{"path": "empty"}},
		{"list_hidden_by_name", e, "list_directory", map[string]any{"path": ".git"}},
		{"list_from_cwd", sub, "list_directory", map[string]any{"path": ".."}},
		{"tree_root", e, "directory_tree", map[string]any{}},
		{"tree_depth1", e, "directory_tree", map[string]any{"path": "src", "max_depth": 1}},
		{"search_basic", e, "search_files", map[string]any{"pattern": "Hello"}},
		{"search_regex", e, "search_files", map[string]any{"pattern": `line\d`}},
		{"search_crlf_anchor", e, "search_files", map[string]any{"pattern": `^t.o$`}},
		{"search_none", e, "search_files", map[string]any{"pattern": "absent-text"}},
		{"search_glob", e, "search_files", map[string]any{"pattern": ".", "include_glob": "*.py"}},
		{"search_from_cwd", sub, "search_files", map[string]any{"pattern": "package", "path": ".."}},
		{"find_txt", e, "find_files", map[string]any{"pattern": "*.txt"}},
		{"find_recursive", e, "find_files", map[string]any{"pattern": "**/*.go"}},
		{"find_dirs", e, "find_files", map[string]any{"pattern": "s*/"}},
		{"find_none", e, "find_files", map[string]any{"pattern": "*.rs"}},
		{"find_from_cwd", sub, "find_files", map[string]any{"pattern": "**/*.go", "path": "../src"}},
		{"multi", e, "read_multiple_files", map[string]any{"paths": []string{"hello.txt", "missing.txt", "crlf.txt"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, callText(t, tc.e, tc.tool, tc.args))
		})
	}
}

// TestWalkers_Cancelled: a call whose context is already done does no walk.
func TestWalkers_Cancelled(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	e := fx.engine(allWalkers(schema.Config{}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for tool, args := range map[string]string{
		"list_directory": `{}`, "directory_tree": `{}`, "search_files": `{"pattern":"x"}`,
		"find_files": `{"pattern":"**"}`, "read_multiple_files": `{"paths":["hello.txt"]}`,
	} {
		if _, err := e.Call(ctx, tool, json.RawMessage(args), Hooks{}); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("%s on a cancelled context = %v; want cancelled", tool, err)
		}
	}
}

// TestWalkers_NoDescriptorLeak: walks that stop early (caps, errors, listings queued ahead and
// never taken) close every directory and file they opened.
func TestWalkers_NoDescriptorLeak(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	fx := makeFixture(t)
	for d := range 12 {
		for f := range 6 {
			fx.add(fmt.Sprintf("p%02d/q%d/f%d.txt: hit\\nhit\\n", d, f%2, f))
		}
	}
	fx.add("loop => .", "p00/q0/link.txt => ../../p01/q1/f1.txt")
	e := fx.engine(allWalkers(schema.Config{MaxSearchResults: intp(3), MaxFindResults: intp(3), MaxListResults: intp(5)}))
	count := func() int {
		ents, _ := os.ReadDir("/proc/self/fd")
		return len(ents)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search_files", map[string]any{"pattern": "hit"}},
		{"search_files", map[string]any{"pattern": "absent"}},
		{"find_files", map[string]any{"pattern": "**/*.txt"}},
		{"find_files", map[string]any{"pattern": "p0*/**"}},
		{"directory_tree", map[string]any{}},
		{"list_directory", map[string]any{"path": "p03"}},
		{"read_multiple_files", map[string]any{"paths": []string{"p00/q0/f0.txt", "nope"}}},
	}
	for _, c := range calls { // warm up: the runtime opens what it keeps (epoll, pipes)
		mustCall(t, e, c.tool, c.args, Hooks{})
	}
	before := count()
	for range 20 {
		for _, c := range calls {
			mustCall(t, e, c.tool, c.args, Hooks{})
		}
	}
	if after := count(); after != before {
		t.Errorf("open descriptors %d before, %d after 140 walks", before, after)
	}
}

// TestWalkers_LinkedRoot: a walk rooted at an in-root directory link shows the link's spelling
// (walk rule 6) and reports the resolved path in its event.
func TestWalkers_LinkedRoot(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add("inner_dir => subdir")
	e := fx.engine(allWalkers(schema.Config{}))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_directory", map[string]any{"path": "inner_dir"}, "inner_dir/nested.py  (16 bytes)"},
		{"directory_tree", map[string]any{"path": "inner_dir"}, "inner_dir/nested.py  (16 bytes)"},
		{"search_files", map[string]any{"pattern": "nested", "path": "inner_dir"}, `inner_dir/nested.py:1:print("nested")`},
		{"find_files", map[string]any{"pattern": "*.py", "path": "inner_dir"}, "inner_dir/nested.py"},
	} {
		var rec recorder
		res := mustCall(t, e, tc.tool, tc.args, rec.hooks(false))
		if got := resultText(res); got != tc.want {
			t.Errorf("%s(%v) = %q; want %q", tc.tool, tc.args, got, tc.want)
		}
		b, _ := json.Marshal(rec.events)
		if !strings.Contains(string(b), `"path":"subdir"`) {
			t.Errorf("%s event %s; want the resolved path subdir", tc.tool, b)
		}
	}
}

// The parallel stat of a large listing (on machines with enough cores) returns what one goroutine
// does: every entry, in order, with its own size.
func TestListWithInfo_ParallelMatchesSerial(t *testing.T) {
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("d/f%03d: %s", i, strings.Repeat("x", i)))
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{})
	list := func(procs, workers int) string {
		defer func(p, w int) { minParallelWalkProcs, maxStatWorkers = p, w }(minParallelWalkProcs, maxStatWorkers)
		minParallelWalkProcs, maxStatWorkers = procs, workers
		h, err := openDirHandle(e, "d", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer h.close()
		ents, err := listWithInfo(h)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, de := range ents {
			fi, _ := de.Info()
			fmt.Fprintf(&b, "%s %d\n", de.Name(), fi.Size())
		}
		return b.String()
	}
	serial, parallel := list(1<<20, 1), list(1, 4)
	if serial != parallel || strings.Count(serial, "\n") != 300 || !strings.Contains(serial, "f299 299\n") {
		t.Errorf("parallel listing differs from the serial one:\n%s\nvs\n%s", parallel, serial)
	}
}

// Listing ahead (on machines with enough cores) changes nothing the walkers show: directory_tree
// and find_files answer the same with prefetching goroutines as without.
func TestWalkers_PrefetchMatchesInline(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("d%02d/sub%d/f%d.go: x", i, i%3, i), fmt.Sprintf("d%02d/g.txt: y", i))
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(allWalkers(schema.Config{}))
	run := func(procs int) string {
		defer func(p int) { minParallelWalkProcs = p }(minParallelWalkProcs)
		minParallelWalkProcs = procs
		tree := resultText(mustCall(t, e, "directory_tree", map[string]any{}, Hooks{}))
		find := resultText(mustCall(t, e, "find_files", map[string]any{"pattern": "**/*.go"}, Hooks{}))
		return tree + "\n---\n" + find
	}
	inline, ahead := run(1<<20), run(1)
	if inline != ahead || strings.Count(inline, ".go") < 80 {
		t.Errorf("prefetching walk differs from the inline one:\n%s\nvs\n%s", ahead, inline)
	}
}
