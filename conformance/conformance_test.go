package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the generated vectors from templates/")

// TestVectorsMatchTheirSchema validates every vector file against vector.schema.json and decodes
// it strictly; a vector the runner would misread fails here, not at run time.
func TestVectorsMatchTheirSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(VectorSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("vector.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("vector.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("vectors/*/*.json")
	if len(files) < 200 {
		t.Errorf("%d vectors, want at least 200", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if _, err := DecodeVector(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := Embedded(); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedVectorsAreFresh regenerates the families from templates/ and compares them with the
// committed files; -update rewrites them. A generated file no template produces any more is stale.
func TestGeneratedVectorsAreFresh(t *testing.T) {
	gen, err := GenerateVectors(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		for rel, b := range gen {
			p := filepath.Join("vectors", rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, _ := filepath.Glob("vectors/*/*.json")
	seen := map[string]bool{}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var head struct {
			Generated string `json:"generated"`
		}
		_ = json.Unmarshal(data, &head)
		rel := strings.TrimPrefix(filepath.ToSlash(f), "vectors/")
		want, ok := gen[rel]
		switch {
		case head.Generated == "" && ok:
			t.Errorf("%s is hand-written but a template also generates it", f)
		case head.Generated == "":
		case !ok && *update:
			_ = os.Remove(f)
		case !ok:
			t.Errorf("%s says it is generated from %s, which no longer produces it: delete it (or run go test ./conformance -update)", f, head.Generated)
		case !bytes.Equal(data, want):
			t.Errorf("%s is stale: run go test ./conformance -run TestGeneratedVectorsAreFresh -update", f)
		}
		seen[rel] = true
	}
	for rel := range gen {
		if !seen[rel] && !*update {
			t.Errorf("vectors/%s is missing: run go test ./conformance -run TestGeneratedVectorsAreFresh -update", rel)
		}
	}
}

// TestNoEngineImports keeps the suite an independent oracle: it must not import the engine or the
// server it grades, directly or through another package of the module.
func TestNoEngineImports(t *testing.T) {
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] || !strings.HasPrefix(path, "github.com/fsbox/fsbox") {
			return
		}
		seen[path] = true
		for _, bad := range []string{"github.com/fsbox/fsbox/engine", "github.com/fsbox/fsbox/server"} {
			if path == bad || strings.HasPrefix(path, bad+"/") {
				t.Errorf("conformance reaches %s", path)
			}
		}
		pkg, err := build.Import(path, "", 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp)
		}
	}
	walk("github.com/fsbox/fsbox/conformance")
}

// buildNaive compiles the deliberately naive server of testdata.
func buildNaive(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go toolchain not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "naiveserver")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/naiveserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the naive server: %v\n%s", err, out)
	}
	return bin
}

// TestNaiveServerFails is the proof that the suite bites: a first-draft server with no
// containment, no symlink checks, no hash checks and no caps fails in every headline category.
func TestNaiveServerFails(t *testing.T) {
	bin := buildNaive(t)
	target, err := ServerTarget(bin)
	if err != nil {
		t.Fatal(err)
	}
	headline := []string{"traversal", "symlinks", "stale", "truncation"}
	var filter []string
	for _, c := range headline {
		filter = append(filter, c+"/**")
	}
	s, err := Run(context.Background(), Options{Target: target, Filter: filter, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]int{}
	total := map[string]int{}
	for _, r := range s.Results {
		total[r.Category]++
		if r.Status == "fail" {
			failed[r.Category]++
		}
	}
	for _, c := range headline {
		t.Logf("%s: the naive server fails %d of %d", c, failed[c], total[c])
		if failed[c] == 0 {
			t.Errorf("the naive server passes every %s vector: the suite does not bite there", c)
		}
	}
	// The failures must be the ones that matter, not incidental ones: each of these vectors must
	// fail, and for the reason given.
	why := map[string]string{
		"traversal/read_file-dotdot":                  "succeeded",
		"traversal/write_file-new-dotdot":             "outside_write: outside tree: elsewhere/new.txt was created",
		"traversal/write_file-new-abs-prefix-sibling": "outside_write: outside tree: ws-outside/new.txt was created",
		"symlinks/read_file-rel-file":                 "succeeded",
		"symlinks/write_file-existing-rel-file":       "outside_write: outside tree: elsewhere/secret.txt changed",
		"symlinks/walkers-search-files":               "SECRET",
		"stale/write-after-outside-change":            "want error",
		"stale/concurrent-writers-same-hash":          `outcomes {"ok":2}`,
		"truncation/read-default-max-read-chars":      "continue reading",
		"truncation/list-truncated":                   "truncated at 5 entries",
	}
	for _, r := range s.Results {
		want, ok := why[r.ID]
		if !ok {
			continue
		}
		delete(why, r.ID)
		if r.Status != "fail" || !strings.Contains(strings.Join(r.Failures, "\n"), want) {
			t.Errorf("%s: status %s, failures %q; want a failure mentioning %q", r.ID, r.Status, r.Failures, want)
		}
	}
	for id := range why {
		t.Errorf("vector %s did not run", id)
	}
	// Containment failures must be the rule, not the exception: an escape that goes unnoticed in
	// one tool is still an escape.
	if failed["traversal"]*10 < total["traversal"]*8 {
		t.Errorf("the naive server fails only %d of %d traversal vectors", failed["traversal"], total["traversal"])
	}
}

// TestServerTargetWorksForAnyCommand runs a slice of the suite against the naive server through
// the CLI-facing ParseTarget, as a third party would, and checks the report.
func TestServerTargetWorksForAnyCommand(t *testing.T) {
	bin := buildNaive(t)
	target, err := ParseTarget("server:"+bin, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Run(context.Background(), Options{Target: target, Filter: []string{"tools/read_file-*"}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Results) == 0 {
		t.Fatal("no vectors ran")
	}
	var report, text bytes.Buffer
	if err := WriteReport(&report, s, target.Capabilities()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(report.String()), "\n")
	if len(lines) != len(s.Results)+2 {
		t.Errorf("report has %d lines, want header + %d results + summary", len(lines), len(s.Results))
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("report line is not JSON: %s", l)
		}
	}
	WriteText(&text, s, false)
	out := strings.TrimSpace(text.String())
	last := out[strings.LastIndex(out, "\n")+1:]
	p, f, sk, _ := s.Counts()
	if want := strings.Join([]string{itoa(p), "passed,", itoa(f), "failed,", itoa(sk), "skipped"}, " "); last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCLI drives `fsbox conformance run` as CI and third parties do: the exit status agrees with
// the closing count line, --report writes JSON Lines, and the server: target grades both the fsbox
// binary and a server that is not fsbox.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fsbox command")
	}
	naive := buildNaive(t)
	bin := filepath.Join(t.TempDir(), "fsbox")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/fsbox").CombinedOutput(); err != nil {
		t.Fatalf("building fsbox: %v\n%s", err, out)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, append([]string{"conformance", "run"}, args...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	lastLine := func(out string) string {
		out = strings.TrimSpace(out)
		return out[strings.LastIndex(out, "\n")+1:]
	}
	report := filepath.Join(t.TempDir(), "r.jsonl")
	out, code := run("--target", "server:"+bin+" serve", "--filter", "wire/id-*", "--filter", "traversal/read_file-*", "--report", report)
	if code != 0 || !strings.HasSuffix(lastLine(out), "passed, 0 failed, 0 skipped") {
		t.Errorf("fsbox graded by server: exit %d, output:\n%s", code, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Type, Status string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("report line %q: %v", l, err)
		}
		if rec.Type == "result" {
			n++
			if rec.Status != "pass" {
				t.Errorf("report: %s", l)
			}
		}
	}
	if n == 0 {
		t.Error("report has no result records")
	}
	out, code = run("--target", "server:"+naive, "--filter", "traversal/read_file-*")
	if code != 1 || !strings.HasPrefix(lastLine(out), "0 passed, ") {
		t.Errorf("naive server: exit %d, output:\n%s", code, out)
	}
	if _, code = run("--target", "nonsense"); code != 2 {
		t.Errorf("unknown target: exit %d, want 2", code)
	}
	// A mistyped command fails once, before any vector; an mcp: target is graded by the security
	// profile unless told otherwise, with progress on stderr.
	out, code = run("--target", "mcp:/no/such/server {root}")
	if code != 1 || strings.Count(out, "no vector ran") != 1 || strings.Count(out, "\n") > 3 {
		t.Errorf("mistyped command: exit %d, output:\n%s", code, out)
	}
	fixture := buildMCPFixture(t)
	out, code = run("--target", "mcp:"+fixture+" {root}", "--filter", "canaries/**")
	if code != 0 || !strings.Contains(out, "(profile security)") || !strings.Contains(out, "5/5 vectors done") {
		t.Errorf("mcp target: exit %d, output:\n%s", code, out)
	}
	cmd := exec.Command(bin, "conformance", "inspect", "--target", "mcp:"+fixture+" -allow-home {root}")
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "read_file            → read_text_file") || !strings.Contains(string(b), "warning: the server's own allowed-directory listing names <home>") {
		t.Errorf("inspect: %v\n%s", err, b)
	}
}
