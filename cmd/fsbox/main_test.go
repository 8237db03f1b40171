package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fsboxBin is the binary under test, built once by TestMain: the CLI is tested as a person and a
// client meet it, through a real process and its real stdout.
var fsboxBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fsbox-cli")
	if err != nil {
		panic(err)
	}
	fsboxBin = filepath.Join(dir, "fsbox")
	if out, err := exec.Command("go", "build", "-o", fsboxBin, ".").CombinedOutput(); err != nil {
		panic("building fsbox: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func fsbox(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return fsboxEnv(t, nil, stdin, args...)
}

func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// serve's stdout carries protocol messages and nothing else, whatever the input, and EOF ends it
// with exit status 0.
func TestServeWritesOnlyProtocolToStdout(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1","capabilities":{"events":true}}}`,
		`not json at all`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/passwd"}}}`,
		`{"jsonrpc":"2.0","id":"five","method":"schema"}`,
	}, "\n") + "\n"
	r := fsbox(t, in, "serve", "--root", root)
	if r.code != 0 {
		t.Fatalf("serve exit = %d; want 0 at EOF; stderr: %s", r.code, r.stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<24)
	ids := map[string]bool{}
	for sc.Scan() {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || string(msg["jsonrpc"]) != `"2.0"` {
			t.Fatalf("stdout line is not a JSON-RPC message: %q", sc.Text())
		}
		if id, ok := msg["id"]; ok {
			ids[string(id)] = true
		}
	}
	for _, id := range []string{"1", "null", "3", "4", `"five"`} {
		if !ids[id] {
			t.Errorf("no reply with id %s in:\n%s", id, r.stdout)
		}
	}
	if strings.Contains(r.stdout, root) && strings.Count(r.stdout, root) > strings.Count(r.stdout, `"root_dir":"`) {
		t.Errorf("stdout names the host root outside root_dir fields")
	}
}

func TestCallPrintsTheModelText(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "one\ntwo\n"})
	r := fsbox(t, "", "call", "read_file", "path=a.txt", "limit=1", "--root", root)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "[a.txt | 2 lines | hash:") || !strings.Contains(r.stdout, "     1\tone\n") ||
		!strings.Contains(r.stdout, "Use offset=1 to continue reading.") {
		t.Fatalf("stdout = %q", r.stdout)
	}
	j := fsbox(t, "", "call", "--root", root, "--json", "read_file", "path=a.txt")
	var res map[string]any
	if err := json.Unmarshal([]byte(j.stdout), &res); err != nil || res["total_lines"] != float64(2) {
		t.Fatalf("--json stdout = %q (%v)", j.stdout, err)
	}
}

func TestCLIErrors(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"frobnicate"}, 2, "fsbox: error: unknown command"},
		{"unknown tool", []string{"call", "rm_rf"}, 2, "fsbox: error: unknown tool"},
		{"not key=value", []string{"call", "read_file", "a.txt"}, 2, "is not key=value"},
		{"unknown argument", []string{"call", "read_file", "file=a.txt"}, 2, `has no argument "file"`},
		{"escape", []string{"call", "read_file", "path=../../etc/passwd", "--root", root}, 1, "(outside_root)"},
		{"serve argument", []string{"serve", "extra"}, 2, "serve takes no arguments"},
	} {
		r := fsbox(t, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || !strings.HasPrefix(r.stderr, "fsbox: error: ") {
			t.Errorf("%s: exit %d stderr %q; want exit %d and %q", c.name, r.code, r.stderr, c.code, c.want)
		}
		if strings.Contains(r.stderr, root) {
			t.Errorf("%s: stderr names the host root: %q", c.name, r.stderr)
		}
	}
}

func TestConfigFile(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "1\n2\n3\n"})
	cfg := filepath.Join(t.TempDir(), "fsbox.yaml")
	os.WriteFile(cfg, []byte("root_dir: "+root+"\nmax_read_lines: 2\n"), 0o644)
	r := fsbox(t, "", "call", "read_file", "path=a.txt", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "Use offset=2 to continue reading.") {
		t.Fatalf("YAML max_read_lines not applied: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"max_read_line": 2}`), 0o644)
	if r := fsbox(t, "", "call", "read_file", "path=a.txt", "--config", bad, "--root", root); r.code != 1 || !strings.Contains(r.stderr, "max_read_line") {
		t.Fatalf("unknown config field: exit %d stderr %q", r.code, r.stderr)
	}
	zero := filepath.Join(t.TempDir(), "zero.json")
	os.WriteFile(zero, []byte(`{"max_read_lines": 0}`), 0o644)
	if r := fsbox(t, "", "call", "read_file", "path=a.txt", "--config", zero, "--root", root); r.code != 1 || !strings.Contains(r.stderr, "max_read_lines") {
		t.Fatalf("zero limit: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestHelpAndVersion(t *testing.T) {
	if r := fsbox(t, "", "--help"); r.code != 0 || !strings.Contains(r.stdout, "serve") {
		t.Errorf("--help: %d %q", r.code, r.stdout)
	}
	if r := fsbox(t, "", "serve", "--help"); r.code != 0 || !strings.Contains(r.stderr, "max-message-bytes") {
		t.Errorf("serve --help: %d %q", r.code, r.stderr)
	}
	if r := fsbox(t, "", "version"); r.code != 0 || !strings.Contains(r.stdout, "protocol: 1") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}

// --max-message-bytes reaches the framing: a longer line is refused with id null and the next
// line is still answered.
func TestServeMaxMessageBytes(t *testing.T) {
	root := tree(t, nil)
	long := `{"jsonrpc":"2.0","id":1,"method":"schema","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`
	in := long + "\n" + `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocol_version":"1"}}` + "\n"
	r := fsbox(t, in, "serve", "--root", root, "--max-message-bytes", "200")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(lines[0], `"id":null`) || !strings.Contains(lines[0], "-32600") {
		t.Errorf("oversize line answered %s; want -32600 with id null", lines[0])
	}
	if !strings.Contains(lines[1], `"id":2`) || !strings.Contains(lines[1], `"result"`) {
		t.Errorf("the next line was answered %s", lines[1])
	}
	if r := fsbox(t, "", "serve", "--max-message-bytes", "0"); r.code != 2 {
		t.Errorf("--max-message-bytes 0: exit %d; want 2", r.code)
	}
}

// Any policy flag fixes the policy: a client's initialize may then only narrow it. A bare serve
// lets the client configure everything.
func TestServePolicyFlagsFixThePolicy(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	initWith := func(cfg string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1","config":` + cfg + `}}` + "\n"
	}
	cfgFile := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(cfgFile, []byte(`{"root_dir":`+strconv.Quote(root)+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--root", root}, {"--config", cfgFile}, {"--root", root, "--read-only"}} {
		r := fsbox(t, initWith(`{"root_dir":"/"}`), append([]string{"serve"}, flags...)...)
		if !strings.Contains(r.stdout, `"code":-32602`) || !strings.Contains(r.stdout, `root_dir: '/' is outside the host's root`) {
			t.Errorf("serve %v with root_dir /: %s", flags, r.stdout)
		}
		r = fsbox(t, initWith(`{"max_read_lines":5000}`), append([]string{"serve"}, flags...)...)
		if !strings.Contains(r.stdout, `max_read_lines: 5000 is above the host's limit of 2000`) {
			t.Errorf("serve %v raising a limit: %s", flags, r.stdout)
		}
	}
	r := fsbox(t, initWith(`{"root_dir":`+strconv.Quote(root)+`,"max_read_lines":5000}`), "serve")
	if !strings.Contains(r.stdout, `"result"`) {
		t.Errorf("bare serve refused its client's config: %s", r.stdout)
	}
}

// A root given by flag or config file that is not a directory is refused at start with a message
// on stderr and exit status 2, before any message is read: nothing is served.
func TestServeRefusesBadRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	conf := filepath.Join(dir, "fsbox.json")
	os.WriteFile(conf, []byte(`{"root_dir": "missing"}`), 0o644)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}` + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", filepath.Join(dir, "does-not-exist")}, "does not exist"},
		{[]string{"--root", file}, "is a file, not a directory"},
		{[]string{"--config", conf}, "does not exist"},
	} {
		r := fsbox(t, init, append([]string{"serve"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.HasPrefix(r.stderr, "fsbox: error: serve ") || r.stdout != "" {
			t.Errorf("serve %v: exit %d, stdout %q, stderr %q; want exit 2, %q on stderr, nothing on stdout", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
	if r := fsbox(t, init, "serve", "--root", dir); r.code != 0 || !strings.Contains(r.stdout, `"id":1,"result"`) {
		t.Errorf("serve on a directory: exit %d, stdout %q", r.code, r.stdout)
	}
}

// fsbox call enables the tool it runs; an opt-in tool that changes files says so on stderr, a
// default or reading tool does not.
func TestCallNamesAnOptInChangeTool(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n", "b.txt": "y\n"})
	r := fsbox(t, "", "call", "delete", "path=a.txt", "--root", root)
	if r.code != 0 || !strings.Contains(r.stderr, "delete is an opt-in tool that changes files") {
		t.Fatalf("delete: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"read_file", "path=b.txt"}, {"write_file", "path=c.txt", "content=z"}} {
		r := fsbox(t, "", append(append([]string{"call"}, args...), "--root", root)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; want no note", args, r.code, r.stderr)
		}
	}
}
