package conformance

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

func plainVector(t *testing.T) *Vector {
	t.Helper()
	v, err := DecodeVector([]byte(`{"description": "a plain read of one file", "workspace": [{"path": "a", "text": "x"}], "steps": [{"call": "read_file", "args": {"path": "a"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	v.ID, v.Category = "t/plain", "t"
	return v
}

// runWatched runs o in the background; a run that has not ended after a generous bound is
// reported as the hang it is (with the goroutines' stacks from the test binary's own timeout
// otherwise). The bound is a hang detector, not a performance assertion.
func runWatched(t *testing.T, o Options) *Summary {
	t.Helper()
	done := make(chan *Summary, 1)
	go func() {
		s, err := Run(context.Background(), o)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	select {
	case s := <-done:
		if s == nil {
			t.FailNow()
		}
		return s
	case <-time.After(2 * time.Minute):
		t.Fatalf("the run against %s did not end: the runner hangs", o.Target.Name())
		return nil
	}
}

func classes(r Result) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Details {
		out[f.Class] = true
	}
	return out
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

// TestMisbehavingServersEndTheirVectors: a server that stalls while a child of its own holds its
// pipes, one that exits at once and one that writes nothing but stray lines each end their vector
// within the timeouts, with a hang or crash failure, and the stalled server's child is killed with
// it. On a runner that waits for the pipes to close, the first case never ends. For mcp: targets
// the same servers fail the preflight: the run ends with one error before any vector, and the
// stalled server's child is killed there too.
func TestMisbehavingServersEndTheirVectors(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the child")
	}
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cases := []struct {
		name, cmd string
		want      string
	}{
		{"stall-with-child", "sh -c 'sleep 400 & echo $! > " + pidFile + "; exec sleep 300'", ClassTimeout},
		{"exit-at-once", "sh -c 'exit 3'", ClassCrash},
		{"garbage", "sh -c 'while :; do echo not json; sleep 0.05; done'", ClassTimeout},
	}
	for _, c := range cases {
		for _, kind := range []string{"server", "mcp"} {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				_ = os.Remove(pidFile)
				var target Target
				var err error
				if kind == "server" {
					target, err = ServerTarget(c.cmd)
				} else {
					target, err = MCPTarget(c.cmd+" {root}", nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				o := Options{Target: target, Vectors: []*Vector{plainVector(t)},
					StepTimeout: time.Second, VectorTimeout: 10 * time.Second, TempDir: t.TempDir(), CanaryDir: canaryDirFor(t)}
				if kind == "mcp" {
					done := make(chan error, 1)
					go func() { _, err := Run(context.Background(), o); done <- err }()
					select {
					case err := <-done:
						if !errors.Is(err, errPreflight) {
							t.Errorf("run error %v, want the preflight's", err)
						}
					case <-time.After(2 * time.Minute):
						t.Fatal("the preflight hangs")
					}
				} else {
					s := runWatched(t, o)
					r := s.Results[0]
					if r.Status != "fail" || !classes(r)[c.want] {
						t.Errorf("result %s %+v, want a %s failure", r.Status, r.Details, c.want)
					}
					if c.name == "garbage" && s.StrayLines == 0 {
						t.Error("the stray lines are not counted")
					}
				}
				if b, err := os.ReadFile(pidFile); err == nil {
					pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
					for i := 0; i < 50 && alive(pid); i++ {
						time.Sleep(20 * time.Millisecond)
					}
					if alive(pid) {
						t.Errorf("the server's child %d outlived the vector", pid)
					}
				}
			})
		}
	}
}

// TestPrefixBugFailsOnlyPrefixVectors: a server whose only containment fault is the string
// prefix check (CVE-2025-53110) fails the prefix-sibling traversal vectors, each as an escape or
// leak, and no other traversal vector: the other escapes aim at a tree that shares no prefix
// with the root. With one outside tree (the sibling) it failed nearly all of them.
func TestPrefixBugFailsOnlyPrefixVectors(t *testing.T) {
	bin := buildNaive(t)
	target, err := ServerTarget(bin + " -prefix-check")
	if err != nil {
		t.Fatal(err)
	}
	s := runWatched(t, Options{Target: target, Filter: []string{"traversal/**"}, Profile: ProfileSecurity, TempDir: t.TempDir()})
	var failed, want []string
	for _, r := range s.Results {
		prefix := strings.HasSuffix(r.ID, "-abs-prefix-sibling")
		if prefix && r.Status != "skip" {
			want = append(want, r.ID)
		}
		if r.Status == "fail" {
			failed = append(failed, r.ID)
			if prefix && !securityClasses[r.WorstClass()] {
				t.Errorf("%s fails with %v, want a containment class", r.ID, r.Details)
			}
			if !prefix {
				t.Errorf("%s fails for a server whose only bug is the prefix check: %v", r.ID, r.Failures)
			}
		}
	}
	// The naive server has no directory_tree or read_multiple_files worth the name; the tools it
	// does implement must each fail their prefix vector.
	for _, id := range []string{"read_file", "write_file-new", "write_file-existing", "edit_file", "list_directory", "create_directory", "file_info"} {
		id = "traversal/" + id + "-abs-prefix-sibling"
		if !strings.Contains(" "+strings.Join(failed, " ")+" ", " "+id+" ") {
			t.Errorf("%s passes for a server with the prefix bug (failed: %q of %q)", id, failed, want)
		}
	}
}

func TestToolMappingTranslate(t *testing.T) {
	m, err := LoadToolMapping("reference")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{"read_text_file": true, "read_file": true, "edit_file": true, "search_files": true, "directory_tree": true}
	cases := []struct {
		tool string
		args map[string]any
		have map[string]bool
		want string // tool and args as JSON, or "skip: <substring>"
	}{
		{"read_file", map[string]any{"path": "../x"}, have, `read_text_file {"path":"/r/../x"}`},
		{"read_file", map[string]any{"path": "/abs"}, map[string]bool{"read_file": true}, `read_file {"path":"/abs"}`},
		{"read_file", map[string]any{"path": "a", "offset": 3}, have, "skip: no counterpart for argument offset"},
		{"edit_file", map[string]any{"path": "a", "old_text": "o", "new_text": "n"}, have, `edit_file {"edits":[{"newText":"n","oldText":"o"}],"path":"/r/a"}`},
		{"edit_file", map[string]any{"path": "a", "replacements": []any{}}, have, "skip: needs argument new_text"},
		{"directory_tree", map[string]any{}, have, `directory_tree {"path":"/r"}`},
		{"search_files", map[string]any{"pattern": "x"}, have, "skip: no counterpart"},
		{"file_info", map[string]any{"path": "a"}, have, "skip: lists none of get_file_info"},
		{"write_file", map[string]any{"path": "a", "content": ""}, have, "skip: lists none of write_file"},
	}
	for _, c := range cases {
		name, args, err := m.translate(c.tool, c.args, c.have, "/r")
		got := ""
		if err != nil {
			got = "skip: " + err.Error()
			if _, ok := err.(*errNoMapping); !ok {
				t.Errorf("%s: error %v is not a skip", c.tool, err)
			}
		} else {
			got = name + " " + show(args)
		}
		if strings.HasPrefix(c.want, "skip: ") && !strings.Contains(got, strings.TrimPrefix(c.want, "skip: ")) ||
			!strings.HasPrefix(c.want, "skip: ") && got != c.want {
			t.Errorf("%s %v: got %s, want %s", c.tool, c.args, got, c.want)
		}
	}
}

// TestSecurityLeaks: the security profile excuses paths the client knows (what it sent, their
// resolution, the root, where the root's own links point) and nothing else; in particular the
// root's path does not excuse its prefix sibling.
func TestSecurityLeaks(t *testing.T) {
	v := plainVector(t)
	link := "{{elsewhere}}/secret.txt"
	v.Workspace = append(v.Workspace, Entry{Path: "l", Symlink: &link})
	fx, err := NewFixture(t.TempDir(), v)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Cleanup()
	sent := []string{fx.Root + "/../elsewhere/x.txt"}
	for _, ok := range []string{
		"Access denied - path outside allowed directories: " + fx.Root + "/../elsewhere/x.txt not in " + fx.Root,
		"Access denied: " + fx.Base + "/elsewhere/x.txt not in " + fx.Root + ", " + fx.Root + "/sub",
		"symlink target outside allowed directories: " + fx.Elsewhere + "/secret.txt",
	} {
		if l := fx.securityLeaks(ok, sent, v); len(l) > 0 {
			t.Errorf("%q counted as a leak", ok)
		}
	}
	for _, bad := range []string{
		fx.Outside + "/secret.txt",
		"moved to " + fx.Root + ".tmp123",
		fx.Elsewhere + "/sub/deep.txt is outside",
	} {
		if l := fx.securityLeaks(bad, sent, v); len(l) != 1 {
			t.Errorf("%q not counted as a leak", bad)
		}
	}
	c := fx.canaries(v)
	if hits := c.find(map[string]any{"text": "TOP SECRET outside\n", "entries": []any{"deep.txt"}}, nil); len(hits) != 2 {
		t.Errorf("canary hits %v, want the outside content and the outside name", hits)
	}
	if hits := c.find("secret.txt", []string{"../elsewhere/secret.txt"}); len(hits) != 0 {
		t.Errorf("a name the client sent counted as a leak: %v", hits)
	}
}

// TestTags: the CVE tags select the vectors named for them, every tag glob matches a vector, and
// derived tags carry the category and the tools called.
func TestTags(t *testing.T) {
	vs, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadTagMap()
	if err != nil {
		t.Fatal(err)
	}
	for tag, globs := range m {
		for _, g := range globs {
			n := 0
			for _, v := range vs {
				if ok, _ := doublestar.Match(g, v.ID); ok {
					n++
				}
			}
			if n == 0 {
				t.Errorf("tags.json: %s: %q matches no vector", tag, g)
			}
		}
	}
	var prefix []string
	for _, v := range vs {
		tags := v.AllTags(m)
		if HasTag([]string{"CVE-2025-53110"}, tags) {
			prefix = append(prefix, v.ID)
			if !strings.HasSuffix(v.ID, "-abs-prefix-sibling") {
				t.Errorf("%s tagged CVE-2025-53110", v.ID)
			}
		}
		if !HasTag([]string{v.Category}, tags) {
			t.Errorf("%s lacks its category tag: %v", v.ID, tags)
		}
	}
	if len(prefix) < 10 {
		t.Errorf("CVE-2025-53110 selects %d vectors: %v", len(prefix), prefix)
	}
	v := plainVector(t)
	if got := v.AllTags(m); strings.Join(got, ",") != "read_file,security,t" {
		t.Errorf("derived tags %v", got)
	}
}

func TestMatrix(t *testing.T) {
	m := &Matrix{Profile: ProfileSecurity, Rows: []*Summary{
		{Target: "a", Results: []Result{{ID: "x/1", Category: "x", Status: "pass"}, {ID: "y/1", Category: "y", Status: "fail",
			Details: []Failure{{Class: ClassHostPath}, {Class: ClassOutsideWrite}}}}},
		{Target: "mcp:b {root}", Results: []Result{{ID: "x/1", Category: "x", Status: "skip"}}},
	}}
	var b bytes.Buffer
	m.WriteMarkdown(&b)
	md := b.String()
	for _, want := range []string{"| target | x | y | total |", "| `a` | 1 / 0 / 0 | 0 / [**1**](#fail-a-y) / 0 | 1 / 1 / 0 |",
		"| `mcp:b {root}` | 0 / 0 / 1 | – | 0 / 0 / 1 |", `<a id="fail-a-y"></a>`, "- `y/1` outside_write, host_path"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	out, err := SpliceMarkdown([]byte("a\n<!-- matrix:t:begin -->\nold\n<!-- matrix:t:end -->\nb\n"), "t", []byte("new\n"))
	if err != nil || string(out) != "a\n<!-- matrix:t:begin -->\nnew\n<!-- matrix:t:end -->\nb\n" {
		t.Errorf("splice: %q, %v", out, err)
	}
	b.Reset()
	if err := m.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"class": "outside_write"`) {
		t.Errorf("json: %v\n%s", err, b.String())
	}
}

// TestReferenceMCPServer grades the reference MCP filesystem server when scripts/install-reference-mcp
// has installed it: 2025.3.28 fails every CVE-tagged vector with a containment class, most with
// an outside read or write, the latest passes them, and the strict profile still fails the latest (its error texts and shapes are not fsbox's).
func TestReferenceMCPServer(t *testing.T) {
	repo, _ := FindRepo(".")
	old := filepath.Join(repo, "bin/reference-mcp/2025.3.28/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	latest := filepath.Join(repo, "bin/reference-mcp/latest/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	if _, err := os.Stat(old); err != nil {
		t.Skip("reference server not installed: run scripts/install-reference-mcp")
	}
	mapping, _ := LoadToolMapping("reference")
	run := func(script, profile string, tags []string) *Summary {
		target, err := MCPTarget("node "+script+" {root}", mapping)
		if err != nil {
			t.Fatal(err)
		}
		return runWatched(t, Options{Target: target, Tags: tags, Profile: profile, TempDir: t.TempDir()})
	}
	cve := []string{"CVE-2025-53110", "CVE-2025-53109"}
	s := run(old, ProfileSecurity, cve)
	// Vectors of a tool the server has no counterpart for (search_files) skip on both versions.
	// Every other CVE vector fails with a containment class; most show their evidence (bytes or
	// names read, files written outside); the rest (file_info's metadata, a search that found
	// nothing) were not refused. The policy vectors among them (a find_files through a link that
	// the server answers with nothing) may pass.
	evidence := 0
	for _, r := range s.Results {
		if r.Status == "skip" || r.Status == "pass" && HasTag([]string{TagPolicy}, r.Tags) {
			continue
		}
		if r.Status != "fail" || !securityClasses[r.WorstClass()] {
			t.Errorf("2025.3.28: %s: %s %v, want a containment failure", r.ID, r.Status, r.Details)
		}
		if c := r.WorstClass(); c == ClassOutsideRead || c == ClassOutsideWrite {
			evidence++
		}
	}
	if evidence < 20 {
		t.Errorf("2025.3.28: only %d CVE vectors show an outside read or write", evidence)
	}
	s = run(latest, ProfileSecurity, cve)
	var ids []string
	for _, r := range s.Results {
		if r.Status == "skip" {
			continue
		}
		if r.Status != "pass" {
			t.Errorf("latest: %s: %s %v", r.ID, r.Status, r.Failures)
		}
		ids = append(ids, r.ID)
	}
	if sort.Strings(ids); len(ids) < 20 {
		t.Errorf("latest ran only %v", ids)
	}
	s = run(latest, ProfileStrict, []string{"CVE-2025-53110"})
	wording := false
	for _, r := range s.Results {
		c := classes(r)
		wording = wording || c[ClassWording] || c[ClassWrongKind]
	}
	if !wording {
		t.Error("the strict profile passes the latest reference server's error texts")
	}
}

// TestSecurityPolicyTags: every vector is tagged security or policy, never both; the symlink
// vectors' tagging is pinned (only the one that ends inside the root and the find_files walks
// through a link to a directory outside, which a server may answer with nothing, are policy); a
// vector whose only refusals come from fsbox's configuration is policy; the canaries are security.
func TestSecurityPolicyTags(t *testing.T) {
	vs, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadTagMap()
	if err != nil {
		t.Fatal(err)
	}
	policySymlinks := map[string]bool{"symlinks/link-to-root-parent-then-back": true, "symlinks/find_files-abs-parent": true,
		"symlinks/find_files-dir-intermediate": true, "symlinks/find_files-nested-rel-dir": true, "symlinks/find_files-up-escape": true}
	nSymlinks, nPolicy := 0, 0
	for _, v := range vs {
		tags := v.AllTags(m)
		sec, pol := HasTag([]string{TagSecurity}, tags), HasTag([]string{TagPolicy}, tags)
		if sec == pol {
			t.Errorf("%s: security %v, policy %v: want exactly one", v.ID, sec, pol)
		}
		if pol {
			nPolicy++
		}
		if strings.HasPrefix(v.ID, "symlinks/") {
			nSymlinks++
			if pol != policySymlinks[v.ID] {
				t.Errorf("%s: policy %v, want %v", v.ID, pol, policySymlinks[v.ID])
			}
		}
		if strings.HasPrefix(v.ID, "canaries/") || strings.HasPrefix(v.ID, "traversal/") {
			if pol {
				t.Errorf("%s is policy", v.ID)
			}
		}
	}
	if nSymlinks < 100 || nPolicy < len(policySymlinks) {
		t.Errorf("%d symlink vectors, %d policy vectors", nSymlinks, nPolicy)
	}
	denied, err := DecodeVector([]byte(`{"description": "d", "steps": [{"call": "read_file", "args": {"path": ".env"}, "error": {"kind": "denied"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if tags := denied.AllTags(m); !HasTag([]string{TagPolicy}, tags) {
		t.Errorf("a vector refusing only by policy kinds is tagged %v", tags)
	}
}
