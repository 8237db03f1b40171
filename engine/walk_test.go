package engine

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata golden files")

// seedTree is the seed's shared fixture (pydantic-harness §7.1) plus a few entries the walkers
// need: a deeper tree, an empty directory, a CRLF file and a file that is not UTF-8.
var seedTree = []string{
	"hello.txt: Hello, world!\n",
	`multi.txt: line1\nline2\nline3\nline4\nline5\n`,
	`subdir/nested.py: print("nested")\n`,
	".hidden: secret\n",
	`binary.bin: \0\x01`,
	".git/config: [core]\n",
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
		schema.ToolDirectoryTree, schema.ToolReadMultipleFiles,
	}
	return cfg
}

// TestWalkers_Golden pins the model-facing text of every walker on the seed tree.
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
