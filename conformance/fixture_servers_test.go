package conformance

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	mcpFixtureOnce sync.Once
	mcpFixtureBin  string
	mcpFixtureErr  error
)

// buildMCPFixture compiles the MCP fixture server of testdata once per test binary.
func buildMCPFixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go toolchain not on PATH")
	}
	mcpFixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpfixture-")
		if err != nil {
			mcpFixtureErr = err
			return
		}
		mcpFixtureBin = filepath.Join(dir, "mcpfixture")
		if out, err := exec.Command("go", "build", "-o", mcpFixtureBin, "./testdata/mcpfixture").CombinedOutput(); err != nil {
			mcpFixtureErr = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if mcpFixtureErr != nil {
		t.Fatalf("building the MCP fixture server: %v", mcpFixtureErr)
	}
	return mcpFixtureBin
}

// gradeFixture grades the MCP fixture server started with flags on the vectors filter keeps.
func gradeFixture(t *testing.T, flags, profile string, mapping *ToolMapping, filter ...string) *Summary {
	t.Helper()
	if mapping == nil {
		var err error
		if mapping, err = LoadToolMapping("reference"); err != nil {
			t.Fatal(err)
		}
	}
	target, err := MCPTarget(buildMCPFixture(t)+" "+flags+" {root}", mapping)
	if err != nil {
		t.Fatal(err)
	}
	return runWatched(t, Options{Target: target, Filter: filter, Profile: profile, TempDir: t.TempDir(),
		CanaryDir: canaryDirFor(t)})
}

// canaryDirFor is a canary directory outside the temp directory, removed after the test.
func canaryDirFor(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory for the canaries")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Skip(err)
	}
	d, err := os.MkdirTemp(cache, "fsbox-conformance-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		ents, _ := os.ReadDir(d)
		if len(ents) > 0 {
			t.Errorf("the runner left %d entries in the canary directory", len(ents))
		}
		_ = os.RemoveAll(d)
	})
	return d
}

func byID(s *Summary) map[string]Result {
	out := map[string]Result{}
	for _, r := range s.Results {
		out[r.ID] = r
	}
	return out
}

// TestFixtureWithBanner: a server that prints a banner and a log line per call on stdout is
// graded exactly like the same server without them (its containment is right: nothing fails),
// and the summary says how many stray lines there were, once, with the first. Before, every
// vector failed as a crash.
func TestFixtureWithBanner(t *testing.T) {
	filter := []string{"traversal/read_file-*", "canaries/**", "symlinks/read_file-*"}
	s := gradeFixture(t, "-banner", ProfileSecurity, nil, filter...)
	ran := 0
	for _, r := range s.Results {
		if r.Status == "fail" {
			t.Errorf("%s: %v", r.ID, r.Failures)
		}
		if r.Status == "pass" {
			ran++
		}
	}
	if ran < 15 {
		t.Errorf("only %d vectors passed", ran)
	}
	if s.StrayLines < ran || !strings.Contains(s.StrayExcerpt, "Fixture MCP Filesystem Server") {
		t.Errorf("stray lines %d, first %q: want at least one per vector, the banner first", s.StrayLines, s.StrayExcerpt)
	}
	var text bytes.Buffer
	WriteText(&text, s, false)
	if n := strings.Count(text.String(), "not JSON"); n != 1 {
		t.Errorf("the text output mentions the stray lines %d times, want once:\n%s", n, text.String())
	}
}

// TestFixtureWithoutErrorFlag: a server that refuses with {"success": false} but no isError, and
// changes nothing, is graded not_refused (never outside_write or outside_read) on the refusals;
// with a mapping whose error_result describes that shape, it passes.
func TestFixtureWithoutErrorFlag(t *testing.T) {
	filter := []string{"traversal/read_file-dotdot", "traversal/write_file-new-dotdot", "traversal/list_directory-abs-dotdot", "canaries/**"}
	s := gradeFixture(t, "-no-error-flag", ProfileSecurity, nil, filter...)
	for _, r := range s.Results {
		if r.Status != "fail" || r.WorstClass() != ClassNotRefused {
			t.Errorf("%s: %s %v, want a not_refused failure", r.ID, r.Status, r.Details)
		}
	}
	if len(s.Results) < 7 {
		t.Errorf("ran %d vectors", len(s.Results))
	}
	m, err := LoadToolMapping("reference")
	if err != nil {
		t.Fatal(err)
	}
	m.ErrorResult = []map[string]any{{"success": false}}
	s = gradeFixture(t, "-no-error-flag", ProfileSecurity, m, filter...)
	for _, r := range s.Results {
		if r.Status != "pass" {
			t.Errorf("with error_result: %s: %s %v", r.ID, r.Status, r.Failures)
		}
	}
}

// TestFixtureAllowingHome: a server that allows all of $HOME whatever root it is given passes
// every vector aiming at the temp directory, and is caught by the fake $HOME's canaries: the key
// read (outside_read, with its bytes), the home listed, a file planted there (outside_write). Its
// own allowed-directory listing draws a warning, and the tools no mapping covers are listed,
// destructive ones first.
func TestFixtureAllowingHome(t *testing.T) {
	s := gradeFixture(t, "-allow-home", ProfileSecurity, nil, "canaries/**", "traversal/read_file-*")
	want := map[string]string{"canaries/read_file-home-key": ClassOutsideRead, "canaries/list_directory-home": ClassOutsideRead,
		"canaries/write_file-home": ClassOutsideWrite}
	for _, r := range s.Results {
		if w, ok := want[r.ID]; ok {
			if r.Status != "fail" || r.WorstClass() != w {
				t.Errorf("%s: %s %v, want %s", r.ID, r.Status, r.Details, w)
			}
			continue
		}
		if r.Status == "fail" {
			t.Errorf("%s: %v", r.ID, r.Failures)
		}
	}
	key := byID(s)["canaries/read_file-home-key"]
	if !strings.Contains(strings.Join(key.Failures, "\n"), "FAKE HOME PRIVATE KEY") {
		t.Errorf("the key's bytes are not shown: %v", key.Failures)
	}
	in := s.Inspection
	if in == nil || len(in.Warnings) != 1 || !strings.Contains(in.Warnings[0], "<home>") {
		t.Fatalf("inspection %+v, want one warning naming <home>", in)
	}
	var names []string
	for _, tool := range in.NotGraded {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "copy_file,run_command,checksum_file" {
		t.Errorf("not graded %q, want the destructive copy_file and run_command first", got)
	}
	if bc := s.ByClass(); len(bc) == 0 || bc[0].Class != ClassOutsideWrite {
		t.Errorf("by class %v, want outside_write first", bc)
	}
}

// TestFixtureTempFileBesideRoot: a server that leaves a temporary file in the root's parent on a
// write fails that write vector with outside_write naming the file, not only a path leak.
func TestFixtureTempFileBesideRoot(t *testing.T) {
	s := gradeFixture(t, "-beside-tmp", ProfileSecurity, nil, "traversal/abs-inside-root-allowed")
	r := s.Results[0]
	if r.Status != "fail" || r.WorstClass() != ClassOutsideWrite || !strings.Contains(strings.Join(r.Failures, "\n"), "beside the root/ws.fixture.tmp") {
		t.Errorf("%s %v, want outside_write for ws.fixture.tmp beside the root", r.Status, r.Failures)
	}
}

// TestPolicyVectorsInSecurityProfile: the fixture allows a path that leaves through a link and
// comes back inside the root; that is fsbox's policy, so the security profile passes it and the
// strict profile fails it.
func TestPolicyVectorsInSecurityProfile(t *testing.T) {
	id := "symlinks/link-to-root-parent-then-back"
	if r := gradeFixture(t, "", ProfileSecurity, nil, id).Results[0]; r.Status != "pass" {
		t.Errorf("security: %s %v", r.Status, r.Failures)
	}
	if r := gradeFixture(t, "", ProfileStrict, nil, id).Results[0]; r.Status != "fail" || r.WorstClass() != ClassNotRefused {
		t.Errorf("strict: %s %v, want not_refused", r.Status, r.Details)
	}
}

// TestSentPathsAreNotLeaks: the fixture echoes the absolute paths the reference mapping made of
// the suite's relative ones; in the strict profile too they are not host paths. Before, each was.
func TestSentPathsAreNotLeaks(t *testing.T) {
	s := gradeFixture(t, "", ProfileStrict, nil, "traversal/abs-inside-root-allowed", "traversal/write_file-*", "encoding/**", "errors/nul-byte")
	n := 0
	for _, r := range s.Results {
		if r.Status != "skip" {
			n++
		}
		for _, f := range r.Details {
			if f.Class == ClassHostPath {
				t.Errorf("%s: %s", r.ID, f.Message)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d vectors ran", n)
	}
}

// TestSkippingVectorsStartNoServer: a vector whose calls the mapping cannot translate for this
// server skips without a server being started; the preflight starts one, once.
func TestSkippingVectorsStartNoServer(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	s := gradeFixture(t, "-starts "+starts, ProfileSecurity, nil, "traversal/read_file-dotdot", "traversal/file_info-*", "traversal/search_files-*", "truncation/**")
	ran := 0
	for _, r := range s.Results {
		if r.Status != "skip" {
			ran++
		}
	}
	b, _ := os.ReadFile(starts)
	if got := strings.Count(string(b), "start"); got != ran+1 || len(s.Results)-ran < 5 {
		t.Errorf("%d server starts for %d vectors run (%d skipped), want one each plus the preflight", got, ran, len(s.Results)-ran)
	}
}

// TestMistypedCommandFailsOnce: a command that does not exist, or a server that exits at once,
// fails the run once, before any vector, for mcp:, server: and adapter: targets.
func TestMistypedCommandFailsOnce(t *testing.T) {
	for _, spec := range []string{"mcp:/no/such/server {root}", "mcp:sh -c 'exit 3' {root}", "server:/no/such/server serve", "adapter:/no/such/adapter"} {
		target, err := ParseTarget(spec, TargetOptions{Binary: "/bin/true"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		_, err = Run(context.Background(), Options{Target: target, Filter: []string{"traversal/**"}, TempDir: t.TempDir(),
			CanaryDir: canaryDirFor(t), StepTimeout: 5 * time.Second, OnResult: func(int, int, Result) { n++ }})
		if !errors.Is(err, errPreflight) || n != 0 {
			t.Errorf("%s: err %v after %d vectors, want the preflight error before any", spec, err, n)
		}
	}
}

// TestInspect: inspect lists the fixture's tools, what each suite tool becomes, and the tools
// nothing grades, destructive first.
func TestInspect(t *testing.T) {
	m, _ := LoadToolMapping("reference")
	target, err := MCPTarget(buildMCPFixture(t)+" {root}", m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Inspect(context.Background(), Options{Target: target, TempDir: t.TempDir(), CanaryDir: canaryDirFor(t)})
	if err != nil {
		t.Fatal(err)
	}
	if in.Coverage["read_file"] != "read_text_file" || !strings.HasPrefix(in.Coverage["file_info"], "skipped") {
		t.Errorf("coverage %v", in.Coverage)
	}
	if len(in.NotGraded) != 3 || in.NotGraded[1].Destructive == "" || in.NotGraded[2].Name != "checksum_file" || len(in.Warnings) != 0 {
		t.Errorf("not graded %+v, warnings %v", in.NotGraded, in.Warnings)
	}
	var b bytes.Buffer
	WriteInspection(&b, in)
	for _, want := range []string{"read_text_file", "graded as read_file", "run_command  (destructive"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("inspection text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestReportIsWrittenAsResultsArrive: OnResult sees every vector as it ends, and the report
// writer writes one bounded line for each.
func TestReportIsWrittenAsResultsArrive(t *testing.T) {
	var buf bytes.Buffer
	rw := NewReportWriter(&buf)
	target, _ := MCPTarget(buildMCPFixture(t)+" -allow-home {root}", nil)
	var mu sync.Mutex
	lines := 0
	s := runWatched(t, Options{Target: target, Filter: []string{"canaries/**"}, TempDir: t.TempDir(), CanaryDir: canaryDirFor(t),
		Profile: ProfileSecurity,
		OnStart: func(in *Inspection, total int) { _ = rw.Header(target.Name(), ProfileSecurity, nil, total, in) },
		OnResult: func(done, total int, r Result) {
			_ = rw.Result(r)
			mu.Lock()
			lines++
			if got := strings.Count(buf.String(), "\n"); got != lines+1 {
				t.Errorf("after %d results the report has %d lines", done, got)
			}
			mu.Unlock()
		}})
	if lines != len(s.Results) || lines == 0 {
		t.Errorf("%d results reported as they ended, %d in the summary", lines, len(s.Results))
	}
}

// TestBoundedValues: a failure's message and value are bounded and say they were cut.
func TestBoundedValues(t *testing.T) {
	r := &runner{o: &Options{}}
	huge := strings.Repeat("x", 300<<10)
	r.failf(ClassWrongOutcome, map[string]any{"text": huge}, "result %s", huge)
	f := r.bad[0]
	if len(f.Message) > maxMessageBytes+100 || !strings.Contains(f.Message, "truncated") {
		t.Errorf("message of %d bytes", len(f.Message))
	}
	v, _ := f.Value.(map[string]any)
	if v["truncated"] != true || len(asString(v["excerpt"])) > maxValueBytes+100 {
		t.Errorf("value not bounded: %d bytes of excerpt", len(asString(v["excerpt"])))
	}
	if a := around(huge+"SECRET"+huge, "SECRET", 100); !strings.Contains(a, "SECRET") || len(a) > 200 {
		t.Errorf("around: %d bytes, has the needle: %v", len(a), strings.Contains(a, "SECRET"))
	}
}

// TestEscapedSentPathIsNotALeak: a reply that shows a sent path with its NUL byte escaped
// ("…/hello.txt\x00.png", as fsbox mcp does) only echoes what was sent, in both profiles.
func TestEscapedSentPathIsNotALeak(t *testing.T) {
	v := plainVector(t)
	fx, err := NewFixture(t.TempDir(), v)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Cleanup()
	sent := fx.Root + "/hello.txt\x00.png"
	reply := "Path '" + fx.Root + `/hello.txt\x00.png' contains a NUL byte.`
	if l := fx.leaks(reply, []string{sent}); len(l) != 0 {
		t.Errorf("strict: %v", l)
	}
	if l := fx.securityLeaks(reply, []string{sent}, v); len(l) != 0 {
		t.Errorf("security: %v", l)
	}
	if l := fx.leaks(reply+" "+fx.Outside, []string{sent}); len(l) != 1 {
		t.Errorf("strict: an outside path beside the echo is not a leak: %v", l)
	}
}
