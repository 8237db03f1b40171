package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The grader's MCP client speaks both generations: auto grades `fsbox mcp` over 2026-07-28 (the
// server/discover probe), a pin grades the initialize generation, and a legacy server that never
// answers the probe is still graded, over initialize, after one probe timeout.
func TestMCPClientSpeaksBothGenerations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fsbox command")
	}
	dir := t.TempDir()
	bin, silent := filepath.Join(dir, "fsbox"), filepath.Join(dir, "silentdiscover")
	for out, pkg := range map[string]string{bin: "../cmd/fsbox", silent: "./testdata/silentdiscover"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", pkg, err, b)
		}
	}
	// MCPTarget makes arguments that name files in the working directory absolute, and this
	// package's directory holds a folder named mcp.
	t.Chdir(dir)
	defer func(d time.Duration) { discoverProbe = d }(discoverProbe)
	discoverProbe = time.Second

	for _, c := range []struct {
		name, cmd, protocol string
		want                []string
	}{
		{"auto", bin + " mcp {root}", "", []string{"2026-07-28"}},
		{"pinned modern", bin + " mcp {root}", "2026-07-28", []string{"2026-07-28"}},
		{"pinned legacy", bin + " mcp {root}", "2025-11-25", []string{"2025-11-25"}},
		{"auto, probe unanswered", silent + " " + bin + " mcp {root}", "", []string{"2025-11-25"}},
		{"auto, probe refused", silent + " -refuse " + bin + " mcp {root}", "", []string{"2025-11-25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			target, err := MCPTargetWithProtocol(c.cmd, nil, c.protocol)
			if err != nil {
				t.Fatal(err)
			}
			s := runWatched(t, Options{Target: target, Filter: []string{"traversal/read_file-*"}, Profile: ProfileSecurity,
				StepTimeout: 10 * time.Second, TempDir: t.TempDir()})
			passed, failed, _, _ := s.Counts()
			if passed == 0 || failed != 0 {
				for _, r := range s.Results {
					if r.Status != "pass" {
						t.Logf("%s: %s %v %s", r.ID, r.Status, r.Failures, r.Stderr)
					}
				}
				t.Errorf("%d passed, %d failed", passed, failed)
			}
			if got := MCPNegotiated(target); !slices.Equal(got, c.want) {
				t.Errorf("negotiated %v, want %v", got, c.want)
			}
		})
	}

	// A pin the server does not speak fails the run once, in the start-up check, naming the
	// version the server offered, instead of grading another generation (the SDK falls back from
	// 2026-07-28 silently).
	target, err := MCPTargetWithProtocol(silent+" -refuse "+bin+" mcp {root}", nil, "2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = Run(ctx, Options{Target: target, Vectors: []*Vector{plainVector(t)}, StepTimeout: 5 * time.Second, TempDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `does not speak MCP 2026-07-28 (it negotiated "2025-11-25")`) {
		t.Errorf("pinned 2026-07-28 on a legacy server: %v", err)
	}
	if _, err := MCPTargetWithProtocol(bin+" mcp {root}", nil, "2099-01-01"); err == nil {
		t.Error("an unknown protocol version was accepted")
	}
}

// The resources vectors grade MCP file resources: fsbox passes them in both generations, a server
// that reads resource URIs from the host without containment fails every one that reaches outside,
// and a server without resources skips them (it cannot leak through what it does not serve).
func TestResourceVectors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fsbox command")
	}
	dir := t.TempDir()
	bin, naive := filepath.Join(dir, "fsbox"), filepath.Join(dir, "naiveresources")
	for out, pkg := range map[string]string{bin: "../cmd/fsbox", naive: "./testdata/naiveresources"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", pkg, err, b)
		}
	}
	t.Chdir(dir)
	run := func(cmd, protocol, profile string) *Summary {
		target, err := MCPTargetWithProtocol(cmd, nil, protocol)
		if err != nil {
			t.Fatal(err)
		}
		return runWatched(t, Options{Target: target, Filter: []string{"resources/**"}, Profile: profile, TempDir: t.TempDir()})
	}
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		s := run(bin+" mcp {root}", protocol, ProfileStrict)
		if passed, failed, skipped, _ := s.Counts(); passed < 10 || failed+skipped != 0 {
			t.Errorf("fsbox mcp over %s: %d passed, %d failed, %d skipped", protocol, passed, failed, skipped)
		}
	}
	s := run(naive+" {root}", "", ProfileSecurity)
	outside := map[string]bool{}
	for _, r := range s.Results {
		for _, d := range r.Details {
			if d.Class == ClassOutsideRead && strings.Contains(strings.Join(r.Failures, " "), "TOP SECRET") {
				outside[r.ID] = true
			}
		}
	}
	for _, id := range []string{"resources/uri-dotdot", "resources/uri-encoded-dotdot", "resources/uri-half-encoded-dotdot",
		"resources/uri-encoded-slash", "resources/uri-absolute-outside", "resources/uri-prefix-sibling", "resources/uri-symlink-out"} {
		if !outside[id] {
			t.Errorf("the naive server passed %s without an outside read being found", id)
		}
	}
	conf := filepath.Join(dir, "no-read.json")
	if err := os.WriteFile(conf, []byte(`{"tools": ["list_directory"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s = run(bin+" mcp --config "+conf+" {root}", "", ProfileSecurity)
	if passed, failed, skipped, _ := s.Counts(); skipped == 0 || passed+failed != 0 {
		t.Errorf("a server without resources: %d passed, %d failed, %d skipped; want all skipped", passed, failed, skipped)
	}
}
