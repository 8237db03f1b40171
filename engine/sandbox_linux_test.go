//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/schema"
)

// confineChildEnv switches the test binary into the confined child of TestProcessSandbox. It
// exists in the test binary only: the release binary has no way to skip the engine.
const confineChildEnv = "FSBOX_TEST_CONFINE_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(confineChildEnv); spec != "" {
		os.Exit(confineChild(spec))
	}
	os.Exit(m.Run())
}

// confineSpec is what the child opens and then tries behind the engine's back.
type confineSpec struct {
	Root, RWMount, ROMount, Outside string
}

// confineChild opens an engine the way fsbox serve does (sandbox required, a writable and a
// read-only mount, a hook), then tries plain os calls, no engine involved, and prints each
// outcome: "ok" or the error number's name.
func confineChild(raw string) int {
	var s confineSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Println(err)
		return 3
	}
	if err := ConfigureSandbox(SandboxOptions{Mode: "required"}); err != nil {
		fmt.Println(err)
		return 3
	}
	e, err := New(schema.Config{RootDir: s.Root, Mounts: []schema.Mount{{Path: "rw", Dir: s.RWMount}, {Path: "ro", Dir: s.ROMount, ReadOnly: true}},
		PostEdit: []schema.PostEditHook{{Path: "*.go", Cmd: []string{"cat", "${file}"}}}}, Options{})
	if err != nil {
		fmt.Println(err)
		return 3
	}
	outcome := func(err error) string {
		var errno syscall.Errno
		switch {
		case err == nil:
			return "ok"
		case errors.As(err, &errno):
			return errno.Error()
		}
		return err.Error()
	}
	read := func(p string) string { _, err := os.ReadFile(p); return outcome(err) }
	write := func(p string) string { return outcome(os.WriteFile(p, []byte("written\n"), 0o644)) }
	list := func(p string) string { _, err := os.ReadDir(p); return outcome(err) }
	home, _ := os.UserHomeDir()
	got := map[string]string{
		"read outside":       read(filepath.Join(s.Outside, "secret.txt")),
		"write outside":      write(filepath.Join(s.Outside, "new.txt")),
		"overwrite outside":  write(filepath.Join(s.Outside, "secret.txt")),
		"list outside":       list(s.Outside),
		"list /tmp":          list(os.TempDir()),
		"list home":          list(home),
		"read /etc/hostname": read("/etc/hostname"),
		"read inside":        read(filepath.Join(s.Root, "a.txt")),
		"write inside":       write(filepath.Join(s.Root, "b.txt")),
		"write rw mount":     write(filepath.Join(s.RWMount, "m.txt")),
		"read ro mount":      read(filepath.Join(s.ROMount, "doc.txt")),
		"write ro mount":     write(filepath.Join(s.ROMount, "doc.txt")),
		"rename across dirs": outcome(os.Rename(filepath.Join(s.Root, "b.txt"), filepath.Join(s.Root, "d", "b.txt"))),
		"state":              ProcessSandbox(),
	}
	res, err := e.Call(context.Background(), "write_file", []byte(`{"path":"x.go","content":"package x\n"}`), Hooks{})
	if err != nil {
		got["hook"] = err.Error()
	} else if r := res.(*schema.WriteFileResult); len(r.PostEdit) == 1 {
		got["hook"] = r.PostEdit[0].Output
	}
	// A later engine (fsbox mcp's narrower sessions) still applies the host's global excludes,
	// though their file is outside the root: kept from before the confinement.
	if e2, err := New(schema.Config{RootDir: s.Root}, Options{}); err != nil {
		got["second engine"] = err.Error()
	} else if res, err := e2.Call(context.Background(), "list_directory", []byte(`{"path":"."}`), Hooks{}); err != nil {
		got["second engine"] = err.Error()
	} else {
		got["second engine"] = res.(*schema.ListDirectoryResult).Text
	}
	b, _ := json.Marshal(got)
	fmt.Println(string(b))
	return 0
}

// The process confinement, proven without the engine: a child process confines itself as
// fsbox serve does, then plain os.ReadFile and os.WriteFile outside the root and mounts get
// EACCES from the kernel, while the same calls inside work (and a read-only mount reads but
// does not change). A hook still runs in the confined process.
func TestProcessSandbox(t *testing.T) {
	if abi, why := confine.ABI(); abi == 0 {
		t.Skip(why)
	}
	fx := makeFixture(t, "a.txt: inside\n", "d/", "x.skip", "$OUTSIDE/secret.txt: TOP SECRET\n", "$OUTSIDE/rw/", "$OUTSIDE/ro/doc.txt: doc\n",
		"$OUTSIDE/xdg/git/ignore: *.skip\n")
	spec, _ := json.Marshal(confineSpec{Root: fx.root, RWMount: filepath.Join(fx.outside, "rw"), ROMount: filepath.Join(fx.outside, "ro"), Outside: fx.outside})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), confineChildEnv+"="+string(spec), "XDG_CONFIG_HOME="+filepath.Join(fx.outside, "xdg"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("child said %q", out)
	}
	denied := syscall.EACCES.Error()
	want := map[string]string{
		"read outside": denied, "write outside": denied, "overwrite outside": denied, "list outside": denied,
		"list /tmp": denied, "list home": denied, "read /etc/hostname": denied,
		"read inside": "ok", "write inside": "ok", "write rw mount": "ok", "read ro mount": "ok", "write ro mount": denied,
		"rename across dirs": "ok", "hook": "package x\n",
	}
	if _, err := os.Stat("/etc/hostname"); err != nil {
		delete(want, "read /etc/hostname")
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q; want %q", k, got[k], v)
		}
	}
	if txt := got["second engine"]; !strings.Contains(txt, "a.txt") || strings.Contains(txt, "x.skip") {
		t.Errorf("second engine's listing %q; want x.skip hidden by the global excludes", txt)
	}
	if !strings.HasPrefix(got["state"], "abi ") {
		t.Errorf("state %q; want abi N", got["state"])
	}
	if fx.read("$OUTSIDE/secret.txt") != "TOP SECRET\n" || fx.read("$OUTSIDE/new.txt") != "<missing>" {
		t.Error("the outside directory was changed")
	}
}
