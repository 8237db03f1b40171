package fsbox_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/fsbox/fsbox"

// importRules says, for each directory prefix of the module, which of the module's packages its Go
// files may import. The rules keep the imports one-way:
//
//  1. schema imports nothing of ours;
//  2. rpc knows nothing about files, tools or fsbox methods; its line framing (reading bounded
//     lines, classifying one into a request, notification, reply or rejection, the JSON scanners,
//     id validation) is its leaf rpc/jsonl, which imports nothing of ours (rule 9);
//  3. engine knows nothing about rpc or the server;
//  4. server is the one package that joins engine and rpc;
//  5. codegen reads the JSON document only, never the Go types;
//  6. the SDKs import nothing of ours;
//  7. conformance never imports engine or server: it is an independent oracle (the in-process
//     target is supplied from outside, by cmd/fsbox and the server's tests);
//  8. mcpserver joins engine and the MCP SDK, as server joins engine and rpc: it imports engine,
//     schema and rpc/jsonl only, never rpc or server (the two transports share the engine and the
//     line framing, not each other);
//  9. rpc/jsonl imports nothing of ours: it knows nothing of fsbox, tools or rpc's Conn, so that
//     mcpserver may use it without reaching rpc (rule 8);
//  10. engine/internal/confine (the kernel's confinement: Landlock rulesets, the hook launcher)
//     imports nothing of ours: it knows directories and descriptors, not tools, policy or paths
//     the model named, so what it allows is decided where the engine opened the root;
//  11. git tracks no build output (tracked_test.go);
//  12. engine/hostpolicy (how the layers of a configuration combine: Merge, and Narrow, by which a
//     client may only narrow a host's fixed policy) imports schema only: it decides over
//     configurations and opens nothing, so both front ends (server for fsbox serve, cmd/fsbox for
//     fsbox mcp and call) share it without importing each other or the engine's internals.
//  13. engine/internal/relpath (root-relative path algebra and the path limits) imports nothing of
//     ours: it is the bottom of the engine's rooms, strings in and strings out;
//  14. engine/internal/fserr (the error type, OS-error mapping, message wording) imports schema
//     (the one source of error kinds) and relpath only;
//  15. engine/internal/fnmatch (the pattern language of the access lists) imports schema (the
//     default lists), relpath and fserr only;
//  16. engine/internal/text (decoding, sniffing, hashes, the output budget) imports schema,
//     relpath, fserr and fnmatch only;
//  17. no package below engine imports engine, and the internal packages import each other only
//     downwards, in the order of rules 13, 25, 14-16, 24, 19 and 20 (relpath, ignore, fserr,
//     fnmatch, text, scan, commit, posthook); the rest of
//     engine/internal (confine, textdiff) imports schema at most until it has a place in that
//     order. So a room never reaches back into Engine or a call's state: it owns a small struct
//     and takes its arguments;
//  18. every tool in the engine's tool table (engine/tools.go) has its handler in the file named
//     after the tool, with a test file beside it (TestToolFiles);
//  19. engine/internal/commit (the cross-process directory lock, temporary file names, the sweep
//     of stale temporary files) imports schema, relpath, fserr, fnmatch and text only;
//  20. engine/internal/posthook (compiling and running post_edit hooks) imports schema, confine
//     (the kernel's confinement) and the packages of rules 13-16 and 19 only.
//  21. sdks (the SDKs' hand-written sources as embedded bytes, for `fsbox gen --out` outside a
//     checkout) imports nothing of ours, and cmd/fsbox is the only package that imports it: an SDK
//     is never linked into the server, only carried as files.
//  22. engine/internal/journal (the journal of before-images: storage, the bound, checkpoints)
//     imports nothing of ours: it knows bytes and paths as strings, never opens the root or
//     decides what a change may do, so containment and policy stay the engine's.
//  23. engine/internal/audit (the audit log's writer: one write(2) per line on an O_APPEND
//     descriptor, the sequence, rotation by size) imports nothing of ours: it writes the lines it
//     is given and knows no tools, paths or records, so what a line may hold (never file
//     contents, never host paths) is decided in one place, engine/audit.go.
//  24. engine/internal/scan (the streaming line scan of read_file and file_info, the column
//     piece, search's line matcher) imports schema, relpath, fserr, fnmatch and text only: it
//     reads an io.Reader it is given and never opens, resolves or decides access, so a scan
//     cannot reach a file the engine did not open. It sits above text in the order of rule 17;
//     commit and posthook do not import it (a lock or a hook has no lines to scan).
//  25. engine/internal/ignore (the walkers' ignore rules: gitignore files parsed with go-git,
//     their precedence, the per-level index and the pattern caps) imports relpath only: it
//     decides whether an entry is hidden from a listing, never whether it may be read, so it
//     needs neither the error kinds nor the access lists, and opens nothing in the root (the
//     engine reads the ignore files through its descriptors). It sits just above relpath in the
//     order of rule 17; no room below the engine imports it.
//
// The first matching prefix wins, so more specific prefixes come first.
var importRules = []struct {
	dir   string
	allow []string
}{
	{"schema", nil},
	{"rpc/jsonl", nil}, // before rpc, whose subpackage it is: rpc may import it, it may not import rpc
	{"rpc", nil},
	{"engine/internal/confine", nil}, // rule 10
	{"engine/internal/relpath", nil}, // rule 13
	{"engine/internal/ignore", []string{"engine/internal/relpath"}},                                                                                                                                              // rule 25
	{"engine/internal/fserr", []string{"schema", "engine/internal/relpath"}},                                                                                                                                     // rule 14
	{"engine/internal/fnmatch", []string{"schema", "engine/internal/relpath", "engine/internal/fserr"}},                                                                                                          // rule 15
	{"engine/internal/text", []string{"schema", "engine/internal/relpath", "engine/internal/fserr", "engine/internal/fnmatch"}},                                                                                  // rule 16
	{"engine/internal/scan", []string{"schema", "engine/internal/relpath", "engine/internal/fserr", "engine/internal/fnmatch", "engine/internal/text"}},                                                          // rule 24
	{"engine/internal/commit", []string{"schema", "engine/internal/relpath", "engine/internal/fserr", "engine/internal/fnmatch", "engine/internal/text"}},                                                        // rule 19
	{"engine/internal/posthook", []string{"schema", "engine/internal/confine", "engine/internal/relpath", "engine/internal/fserr", "engine/internal/fnmatch", "engine/internal/text", "engine/internal/commit"}}, // rule 20
	{"engine/internal/audit", nil},            // rule 23
	{"engine/internal/journal", nil},          // rule 22
	{"engine/internal", []string{"schema"}},   // rule 17: every other internal package
	{"engine/hostpolicy", []string{"schema"}}, // rule 12
	{"engine", []string{"schema", "engine/"}},
	{"server", []string{"engine", "engine/hostpolicy", "rpc", "schema", "conformance"}},
	{"mcpserver", []string{"engine", "schema", "rpc/jsonl"}},
	{"codegen", nil},
	{"sdks/go/fsboxclient", nil},
	{"sdks", nil},
	{"conformance/adapters/go", []string{"sdks/go/fsboxclient"}},
	{"conformance", []string{"conformance/", "schema"}},
	{"cmd/fsbox", []string{"server", "mcpserver", "engine", "engine/hostpolicy", "schema", "codegen", "conformance", "sdks"}}, // sdks: rule 21
	{"examples", []string{"sdks/go/fsboxclient"}},                                                                             // a reader's copy of the README's Go quickstart
	{"", nil}, // this file's package
}

func TestImportsRunOneWay(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".venv", ".git", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			dir = ""
		}
		allow := rulesFor(dir)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ours := strings.CutPrefix(p, module+"/")
			if !ours {
				continue
			}
			if strings.HasPrefix(rel, dir+"/") || rel == dir { // a package's own subpackages
				continue
			}
			if !allowed(rel, allow) {
				t.Errorf("%s imports %s, which %s may not import", path, p, dir)
			}
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Go files checked")
	}
}

func rulesFor(dir string) []string {
	for _, r := range importRules {
		if dir == r.dir || r.dir == "" || strings.HasPrefix(dir, r.dir+"/") {
			return r.allow
		}
	}
	return nil
}

// allowed reports whether rel may be imported under allow: an entry "x/" admits every package
// below x, any other entry exactly that package.
func allowed(rel string, allow []string) bool {
	for _, a := range allow {
		if rel == a || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}

// TestToolFiles is rule 18: each entry of the engine's tool table (engine/tools.go, one line a
// tool: schema.ToolX: ...(*Engine).handler...) names a handler declared in engine/<tool>.go, and
// engine/<tool>_test.go exists, so a tool's room is found from its name alone.
func TestToolFiles(t *testing.T) {
	fset := token.NewFileSet()
	names := map[string]string{} // ToolX -> wire name, from schema/tooltable.go
	tt, err := parser.ParseFile(fset, "schema/tooltable.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(tt, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok && len(v.Values) == len(v.Names) {
			for i, id := range v.Names {
				if lit, ok := v.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(id.Name, "Tool") {
					names[id.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
		return true
	})
	handlerFile := map[string]string{} // method of *Engine -> file
	files, _ := filepath.Glob("engine/*.go")
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				handlerFile[fd.Name.Name] = filepath.Base(p)
			}
		}
	}
	tools, err := parser.ParseFile(fset, "engine/tools.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	ast.Inspect(tools, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		key, ok := kv.Key.(*ast.SelectorExpr)
		if !ok || names[key.Sel.Name] == "" {
			return true
		}
		tool := names[key.Sel.Name]
		handler := ""
		ast.Inspect(kv.Value, func(m ast.Node) bool {
			if se, ok := m.(*ast.SelectorExpr); ok {
				if p, ok := se.X.(*ast.ParenExpr); ok {
					if st, ok := p.X.(*ast.StarExpr); ok {
						if id, ok := st.X.(*ast.Ident); ok && id.Name == "Engine" {
							handler = se.Sel.Name
						}
					}
				}
			}
			return true
		})
		checked++
		if got := handlerFile[handler]; got != tool+".go" {
			t.Errorf("tool %s: handler (*Engine).%s is declared in engine/%s; rule 18 wants engine/%s.go", tool, handler, got, tool)
		}
		if _, err := os.Stat(filepath.Join("engine", tool+"_test.go")); err != nil {
			t.Errorf("tool %s: no engine/%s_test.go beside its file (rule 18)", tool, tool)
		}
		return false
	})
	if checked != len(names) {
		t.Errorf("the tool table has %d entries; schema names %d tools", checked, len(names))
	}
}
