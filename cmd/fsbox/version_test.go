package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// fsbox --version and fsbox version print the release, the commit and the schema_hash that
// initialize answers with.
func TestVersionPrintsCommitAndSchemaHash(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := fsbox(t, "", args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, want := range []string{"fsbox " + version + "\n", "\ncommit: ", "\nprotocol: " + schema.ProtocolVersion + "\n",
			"\nschema_hash: " + schema.Hash() + "\n"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "commit: \n") {
			t.Errorf("%v: empty commit:\n%s", args, r.stdout)
		}
	}
	if r := fsbox(t, "", "version", "extra"); r.code != 2 {
		t.Errorf("version extra: exit %d, want 2", r.code)
	}
}

// A commit set at link time wins over the VCS stamp.
func TestVersionCommitFromLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fsbox")
	if out, err := runGo(t, "build", "-ldflags", "-X main.commit=abc123def456", "-o", bin, "."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := runCmd(t, bin, "--version")
	if err != nil || !strings.Contains(out, "\ncommit: abc123def456\n") {
		t.Fatalf("--version: %v\n%s", err, out)
	}
}

// The repository has one version: the CLI's, the Python and TypeScript packages' and the SDKs'
// client_info all carry it, so a wheel or npm package and the binary inside it agree.
func TestVersionsAgree(t *testing.T) {
	repo := filepath.Join("..", "..")
	for _, c := range []struct{ file, re string }{
		{"sdks/python/pyproject.toml", `(?m)^version = "([^"]+)"`},
		{"sdks/python/src/fsbox/_transport.py", `(?m)^VERSION = "([^"]+)"`},
		{"sdks/typescript/package.json", `(?m)^  "version": "([^"]+)"`},
		{"sdks/typescript/src/version.ts", `(?m)^export const VERSION = "([^"]+)"`},
		{"sdks/go/fsboxclient/client.go", `(?m)^const Version = "([^"]+)"`},
	} {
		data, err := os.ReadFile(filepath.Join(repo, c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(c.re).FindSubmatch(data)
		if m == nil {
			t.Errorf("%s: no version matching %s", c.file, c.re)
			continue
		}
		if string(m[1]) != version {
			t.Errorf("%s: version %s, the CLI's is %s", c.file, m[1], version)
		}
	}
}

func runGo(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCmd(t, "go", args...)
}

func runCmd(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}
