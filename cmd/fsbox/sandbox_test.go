package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine"
)

// initSandbox runs fsbox serve with flags, sends initialize, and returns the result's sandbox.
func initSandbox(t *testing.T, root string, flags ...string) (map[string]string, result) {
	t.Helper()
	r := fsbox(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}`+"\n",
		append([]string{"serve", "--root", root}, flags...)...)
	var reply struct {
		Result struct {
			Sandbox map[string]string `json:"sandbox"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(r.stdout), &reply)
	return reply.Result.Sandbox, r
}

// fsbox serve reports its confinement in initialize: Landlock by default where the kernel offers
// it, "off" with --sandbox off; --sandbox required serves where it is available; a bad value is a
// usage error. fsbox --version and the MCP server info say the same.
func TestSandboxIsReported(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	abi, _ := engine.SandboxAvailable()
	want := "unavailable"
	if abi > 0 {
		want = "abi " + strconv.Itoa(abi)
	}
	if sb, r := initSandbox(t, root); sb["landlock"] != want || sb["hooks"] != "none" {
		t.Errorf("default: sandbox %v (stderr %q); want landlock %q, hooks none", sb, r.stderr, want)
	}
	if sb, _ := initSandbox(t, root, "--sandbox", "off"); sb["landlock"] != "off" {
		t.Errorf("--sandbox off: sandbox %v; want off", sb)
	}
	if abi > 0 {
		if sb, r := initSandbox(t, root, "--sandbox", "required"); sb["landlock"] != want {
			t.Errorf("--sandbox required: sandbox %v, exit %d, stderr %q", sb, r.code, r.stderr)
		}
	}
	if r := fsbox(t, "", "serve", "--root", root, "--sandbox", "maybe"); r.code != 2 || !strings.Contains(r.stderr, `--sandbox "maybe": want auto, required or off`) {
		t.Errorf("--sandbox maybe: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
	if r := fsbox(t, "", "--version"); !strings.Contains(r.stdout, "\nsandbox: ") || (abi > 0 && !strings.Contains(r.stdout, "sandbox: landlock "+want+"\n")) {
		t.Errorf("--version = %q; want the sandbox line", r.stdout)
	}
	cs := mcpSession(t, root)
	if info := cs.InitializeResult().ServerInfo; !strings.Contains(info.Description, "sandbox: landlock "+want) {
		t.Errorf("MCP server info %+v; want the sandbox in its description", info)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list over the confined MCP server: %v", err)
	}
}

// With hooks configured and the kernel offering Landlock, initialize says they run confined.
func TestSandboxHooksConfined(t *testing.T) {
	if abi, _ := engine.SandboxAvailable(); abi == 0 {
		t.Skip("no Landlock here")
	}
	root := t.TempDir()
	conf := filepath.Join(t.TempDir(), "fsbox.json")
	os.WriteFile(conf, []byte(`{"post_edit":[{"path":"*.go","cmd":["cat","${file}"]}]}`), 0o644)
	if sb, r := initSandbox(t, root, "--config", conf); sb["hooks"] != "confined" {
		t.Errorf("sandbox %v (stderr %q); want hooks confined", sb, r.stderr)
	}
}
