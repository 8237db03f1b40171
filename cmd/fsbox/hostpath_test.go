package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fsboxEnv runs the binary with stdin and extra environment variables (nil: none) and returns
// what it printed and its exit code.
func fsboxEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fsboxBin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// root_dir in the --config file and --root expand "~", "~/…" and $VAR/${VAR}; an unset variable
// is an error naming it. A client's initialize root_dir is taken literally, so a client cannot
// use the host's environment.
func TestHostPathsExpand(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("expanded\n"), 0o644)
	env := []string{"HOME=" + home, "FSBOX_TEST_WS=" + ws}
	conf := func(root string) string {
		p := filepath.Join(t.TempDir(), "fsbox.json")
		os.WriteFile(p, []byte(`{"root_dir":`+strconv.Quote(root)+`}`), 0o644)
		return p
	}
	for _, args := range [][]string{
		{"--config", conf("~/ws")},
		{"--config", conf("$FSBOX_TEST_WS")},
		{"--config", conf("${HOME}/ws")},
		{"--root", "~/ws"},
		{"--root", "$FSBOX_TEST_WS"},
	} {
		r := fsboxEnv(t, env, "", append([]string{"call", "read_file", "path=a.txt"}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "expanded") {
			t.Errorf("call %v: exit %d stdout %q stderr %q; want a.txt read from the expanded root", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"--config", conf("$FSBOX_TEST_UNSET/ws")},
		{"--root", "${FSBOX_TEST_UNSET}"},
	} {
		r := fsboxEnv(t, env, "", append([]string{"call", "read_file", "path=a.txt"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "FSBOX_TEST_UNSET is not set") {
			t.Errorf("call %v: exit %d stderr %q; want an error naming the unset variable", args, r.code, r.stderr)
		}
	}
	// A client's root_dir is not expanded, neither under a bare serve nor under a fixed policy.
	for _, c := range []struct {
		flags []string
		root  string
	}{
		{nil, "$FSBOX_TEST_WS"},
		{nil, "~/ws"},
		{[]string{"--root", home}, "$FSBOX_TEST_WS"},
		{[]string{"--root", home}, "~/ws"},
	} {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1","config":{"root_dir":` + strconv.Quote(c.root) + `}}}` + "\n"
		r := fsboxEnv(t, env, init, append([]string{"serve"}, c.flags...)...)
		if !strings.Contains(r.stdout, `"code":-32602`) || strings.Contains(r.stdout, ws) {
			t.Errorf("serve %v, client root_dir %q: %s; want -32602 (taken literally, not expanded)", c.flags, c.root, r.stdout)
		}
	}
}

// mounts[].dir in the --config file expands like root_dir ("~", $VAR) and, when relative, is
// taken from the config file's directory; an unset variable is an error naming the field.
func TestMountDirsExpand(t *testing.T) {
	home := t.TempDir()
	ws, notes := filepath.Join(home, "ws"), filepath.Join(home, "notes")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("mounted note\n"), 0o644)
	env := []string{"HOME=" + home, "FSBOX_TEST_NOTES=" + notes}
	conf := func(dir string) string {
		p := filepath.Join(home, "fsbox.json")
		os.WriteFile(p, []byte(`{"root_dir":"ws","mounts":[{"path":"m","dir":`+strconv.Quote(dir)+`,"read_only":true}]}`), 0o644)
		return p
	}
	for _, dir := range []string{"~/notes", "$FSBOX_TEST_NOTES", "notes", "./notes"} {
		r := fsboxEnv(t, env, "", "call", "read_file", "path=m/n.md", "--config", conf(dir))
		if r.code != 0 || !strings.Contains(r.stdout, "mounted note") {
			t.Errorf("mounts dir %q: exit %d stdout %q stderr %q; want m/n.md read from the mount", dir, r.code, r.stdout, r.stderr)
		}
	}
	r := fsboxEnv(t, env, "", "call", "read_file", "path=m/n.md", "--config", conf("$FSBOX_TEST_UNSET/notes"))
	if r.code == 0 || !strings.Contains(r.stderr, "mounts[0].dir") || !strings.Contains(r.stderr, "FSBOX_TEST_UNSET is not set") {
		t.Errorf("unset variable in a mount dir: exit %d stderr %q", r.code, r.stderr)
	}
}
