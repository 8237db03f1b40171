package engine

import (
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// TestAccessPatterns exercises the accessPolicy rules through the tools: defaults at depth,
// ancestors, spelling versus resolved path, symlink aliases.
func TestAccessPatterns(t *testing.T) {
	fx := makeFixture(t,
		".env: x\n", "apps/api/.env: x\n", "apps/.env.local: x\n", "sub/.git/config: x\n", ".git/config: x\n",
		"certs/server.pem: x\n", "config/deploy.key: x\n", "config/secrets.yaml: x\n", "secrets.yaml: x\n",
		"apps/env.example: x\n", "apps/api/prod.env: x\n", "docs/git/config.md: x\n",
		"envlink => .env", "private/secret.txt: x\n", "config/secret.txt: x\n",
		"alias.txt => creds.secret", "creds.secret: x\n", "pdir => private",
		".env.example: x\n", "apps/.env.sample: x\n", ".envrc: x\n", "apps/.envrc: x\n",
		"home/.ssh/id_ed25519: x\n", "home/.ssh/known_hosts: x\n", "deep/a/b/id_rsa: x\n", "deep/a/b/id_rsa.pub: x\n",
		".git/hooks/pre-commit: x\n", ".husky/pre-commit: x\n", ".docker/config.json: x\n", ".docker/daemon.json: x\n",
		".git-credentials: x\n", ".aws/credentials: x\n", "certs/server.crt: x\n", "my.env.example.txt: x\n",
	)
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"private", "config/secret.txt", "*.secret"}})
	d := fx.engine(schema.Config{})
	cases := []struct {
		e         *Engine
		path      string
		read      schema.ErrorKind // "" = allowed
		write     schema.ErrorKind
		rulesCite string
	}{
		{d, ".env", "denied", "denied", "3: default"},
		{d, "apps/api/.env", "denied", "denied", "3: defaults bite at any depth"},
		{d, "apps/.env.local", "denied", "denied", "3"},
		{d, ".env.example", "", "", "3: an exception of the defaults"},
		{d, "apps/.env.sample", "", "", "3: exceptions bite at any depth"},
		{d, "my.env.example.txt", "", "", "3: lookalike"},
		{d, "sub/.git/config", "denied", "protected", "2 before 3"},
		{d, ".git/config", "denied", "protected", "2 before 3"},
		{d, ".git/hooks/pre-commit", "", "protected", "2"},
		{d, ".husky/pre-commit", "", "protected", "2: below a protected directory"},
		{d, ".envrc", "", "protected", "2"},
		{d, "apps/.envrc", "", "protected", "2: at depth"},
		{d, "certs/server.pem", "denied", "denied", "3"},
		{d, "certs/server.crt", "", "", "3: certificates in other formats stay readable"},
		{d, "config/deploy.key", "denied", "denied", "3"},
		{d, "home/.ssh/id_ed25519", "denied", "denied", "3"},
		{d, "home/.ssh/known_hosts", "denied", "denied", "3: below a denied directory"},
		{d, "deep/a/b/id_rsa", "denied", "denied", "3: at depth"},
		{d, "deep/a/b/id_rsa.pub", "", "", "3: a public key"},
		{d, ".docker/config.json", "denied", "denied", "3"},
		{d, ".docker/daemon.json", "", "", "3: only the credential file of .docker"},
		{d, ".git-credentials", "denied", "denied", "3"},
		{d, ".aws/credentials", "denied", "denied", "3"},
		{d, "envlink", "denied", "denied", "3: resolved path"},
		{d, "config/secrets.yaml", "", "protected", "2"},
		{d, "secrets.yaml", "", "protected", "2: **/ at the top"},
		{d, "apps/env.example", "", "", "2: lookalike"},
		{d, "apps/api/prod.env", "", "", "2: lookalike"},
		{d, "docs/git/config.md", "", "", "2: lookalike"},
		// A configured denied list replaces the defaults.
		{e, ".env", "", "", "3: configured list"},
		{e, "private/secret.txt", "denied", "denied", "3: ancestor"},
		{e, "pdir/secret.txt", "denied", "denied", "3: ancestor of the resolved path"},
		{e, "config/./secret.txt", "denied", "denied", "3: cleaned spelling"},
		{e, "alias.txt", "denied", "denied", "3: resolved target"},
		{e, "creds.secret", "denied", "denied", "3"},
	}
	for _, c := range cases {
		for _, a := range []struct {
			acc  access
			want schema.ErrorKind
		}{{accessRead, c.read}, {accessWrite, c.write}} {
			_, _, err := c.e.resolveFor("test", c.path, a.acc)
			switch {
			case a.want == "" && err != nil:
				t.Errorf("%s access %d = %s (%s); want allowed (rule %s)", c.path, a.acc, err.Kind, err.Msg, c.rulesCite)
			case a.want != "" && (err == nil || err.Kind != a.want):
				t.Errorf("%s access %d = %v; want %s (rule %s)", c.path, a.acc, err, a.want, c.rulesCite)
			}
		}
	}
	// A walk root is gated by denied patterns only (rule 3), never by allowed patterns (rule 4).
	e2 := fx.engine(schema.Config{AllowedPatterns: []string{"*.yaml"}, DeniedPatterns: &[]string{"private"}})
	if _, _, err := e2.resolveFor("test", ".", accessWalkRoot); err != nil {
		t.Errorf("walk root . = %v; want allowed", err)
	}
	if _, _, err := e2.resolveFor("test", "private", accessWalkRoot); err == nil || err.Kind != "denied" {
		t.Errorf("walk root private = %v; want denied", err)
	}
	if _, _, err := e2.resolveFor("test", "apps/env.example", accessRead); err == nil || err.Kind != "not_allowed" {
		t.Errorf("not allowed read = %v", err)
	}
	// Rule 4: both spellings must be allowed: an allowed name cannot alias a file that is not.
	fx.add("ok.yaml => apps/env.example")
	if _, _, err := e2.resolveFor("test", "ok.yaml", accessRead); err == nil || err.Kind != "not_allowed" {
		t.Errorf("allowed alias of a not-allowed file = %v; want not_allowed", err)
	}
	// Explicitly empty lists switch the defaults off; explicit patterns do not bite at depth.
	e3 := fx.engine(schema.Config{ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}})
	for _, p := range []string{".env", ".envrc", "home/.ssh/id_ed25519"} {
		if _, _, err := e3.resolveFor("test", p, accessWrite); err != nil {
			t.Errorf("empty lists: write %s: %v", p, err)
		}
	}
	// .git entries are protected apart from the lists (execprotect.go): only allow_git_dirs
	// lifts that.
	if _, _, err := e3.resolveFor("test", ".git/config", accessWrite); err == nil || err.Kind != "protected" {
		t.Errorf("empty lists: write .git/config = %v; want protected (the git rule)", err)
	}
	yes := true
	e3g := fx.engine(schema.Config{ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}, AllowGitDirs: &yes})
	if _, _, err := e3g.resolveFor("test", ".git/config", accessWrite); err != nil {
		t.Errorf("empty lists and allow_git_dirs: write .git/config: %v", err)
	}
	e4 := fx.engine(schema.Config{ProtectedPatterns: &[]string{".env"}, DeniedPatterns: &[]string{}})
	if _, _, err := e4.resolveFor("test", "apps/api/.env", accessWrite); err != nil {
		t.Errorf("explicit .env at depth: %v; want writable", err)
	}
	// An exception clears the names it matches, not what is below a matched directory.
	e5 := fx.engine(schema.Config{DeniedPatterns: &[]string{"*.txt", "!config/*", "home", "!home/.ssh/known_hosts"}})
	for _, c := range []struct {
		path string
		want schema.ErrorKind
	}{{"private/secret.txt", "denied"}, {"config/secret.txt", ""}, {"home/.ssh/known_hosts", "denied"}, {"apps/env.example", ""}} {
		_, _, err := e5.resolveFor("test", c.path, accessRead)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Kind != c.want) {
			t.Errorf("exceptions: read %s = %v; want %q", c.path, err, c.want)
		}
	}
}

func TestPermissionRuleMatching(t *testing.T) {
	fx := makeFixture(t, "x/a.txt: x\n", ".hidden/a: x\n", "y.txt: x\n")
	e := fx.engine(schema.Config{Permissions: []schema.PermissionRule{
		{Operations: []string{"read"}, Paths: []string{"/x/a.txt"}, Mode: "allow"},
		{Operations: []string{"read", "write"}, Paths: []string{"/x/**"}, Mode: "deny"},
		{Operations: []string{"write"}, Paths: []string{"/**/.hidden/**"}, Mode: "deny"},
	}})
	cases := []struct {
		path string
		acc  access
		want schema.ErrorKind
	}{
		{"x/a.txt", accessRead, ""},                   // first match wins: allow
		{"x/a.txt", accessWrite, "permission_denied"}, // the allow rule is read-only
		{"x", accessRead, "permission_denied"},        // /x/** covers /x
		{"x/new", accessWrite, "permission_denied"},
		{".hidden/a", accessWrite, "permission_denied"}, // dotfiles matched
		{".hidden/a", accessRead, ""},
		{"y.txt", accessWrite, ""}, // no match allows
	}
	for _, c := range cases {
		_, _, err := e.resolveFor("test", c.path, c.acc)
		if (err == nil) != (c.want == "") || err != nil && err.Kind != c.want {
			t.Errorf("%s access %d = %v; want %q", c.path, c.acc, err, c.want)
		}
	}
}

func TestNew_Validation(t *testing.T) {
	fx := makeFixture(t, "sub/", "file.txt: x\n")
	zero, neg := 0, -1
	cases := []struct {
		cfg  schema.Config
		want string
	}{
		{schema.Config{MaxReadLines: &zero}, "max_read_lines must be a positive integer, got 0"},
		{schema.Config{MaxReadChars: &neg}, "max_read_chars must be a positive integer, got -1"},
		{schema.Config{MaxListResults: &zero}, "max_list_results must be a positive integer, got 0"},
		{schema.Config{MaxSearchResults: &zero}, "max_search_results must be a positive integer, got 0"},
		{schema.Config{MaxFindResults: &zero}, "max_find_results must be a positive integer, got 0"},
		{schema.Config{Tools: []string{"bogus", "read_file", "grep"}}, "tools: Unknown filesystem tools: bogus. Available: read_file, write_file, edit_file, list_directory, search_files, find_files, create_directory, file_info, list_files, grep, read_multiple_files, directory_tree, remove_directory, delete, move_file, apply_patch, str_replace_based_edit_tool, undo_last_change."},
		{schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"read"}, Paths: []string{"/x"}, Mode: "ask"}}}, "permissions[0].mode: unknown mode 'ask' (want allow, deny or interrupt)"},
		{schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"exec"}, Paths: []string{"/x"}, Mode: "deny"}}}, "permissions[0].operations: unknown operation 'exec' (want read or write)"},
		{schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"read"}, Paths: []string{"/x"}, Mode: "interrupt"}}}, "permissions[0]: mode interrupt applies to write operations only"},
		{schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"x/**"}, Mode: "deny"}}}, "permissions[0].paths[0]: 'x/**' must be anchored at the root with a leading /"},
		{schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/x/["}, Mode: "deny"}}}, "permissions[0].paths[0]: invalid glob '/x/['"},
		{schema.Config{Cwd: "../elsewhere"}, "cwd '../elsewhere' is outside root_dir."},
		{schema.Config{Cwd: "file.txt"}, "cwd 'file.txt' is not an existing directory inside root_dir."},
		{schema.Config{RootDir: "/nonexistent/fsbox/root"}, "root_dir: '/nonexistent/fsbox/root' does not exist or cannot be resolved"},
	}
	for _, c := range cases {
		if c.cfg.RootDir == "" {
			c.cfg.RootDir = fx.root
		}
		_, err := New(c.cfg, Options{})
		var ee *Error
		if err == nil {
			t.Errorf("New(%+v) = nil; want %q", c.cfg, c.want)
			continue
		}
		ee = err.(*Error)
		if ee.Kind != "invalid_arguments" || ee.Msg != c.want {
			t.Errorf("New(%+v) = %s %q; want invalid_arguments %q", c.cfg, ee.Kind, ee.Msg, c.want)
		}
	}
	// Tools in schema order, read_only keeping the reading ones, cwd resolved.
	e := fx.engine(schema.Config{Tools: []string{"file_info", "write_file", "read_file"}, Cwd: "sub/../sub"})
	if got := e.ToolNames(); len(got) != 3 || got[0] != "read_file" || got[1] != "write_file" || got[2] != "file_info" {
		t.Errorf("ToolNames = %v", got)
	}
	if e.Cwd() != "sub" || e.RootDir() != fx.root || !e.ContentHashes() {
		t.Errorf("Cwd %q RootDir %q hashes %v", e.Cwd(), e.RootDir(), e.ContentHashes())
	}
	ro := fx.engine(schema.Config{ReadOnly: true})
	if got := ro.ToolNames(); len(got) != 5 {
		t.Errorf("read_only tools = %v", got)
	}
	if _, err := tryCall(t, ro, "write_file", map[string]any{"path": "a", "content": ""}, Hooks{}); err == nil || err.Kind != "unknown_tool" {
		t.Errorf("write_file under read_only = %v; want unknown_tool", err)
	}
	// DefaultRoot applies when RootDir is empty.
	d, err := New(schema.Config{}, Options{DefaultRoot: fx.root})
	if err != nil || d.RootDir() != fx.root {
		t.Errorf("DefaultRoot: %v %v", d, err)
	}
	d.Close()
}

func TestCwd_PathsAndResults(t *testing.T) {
	fx := makeFixture(t, "project/local.txt: local\n", "shared.txt: shared\n", "project/link.txt => target.txt", "project/target.txt: t\n")
	e := fx.engine(schema.Config{Cwd: "project"})
	if txt := resultText(mustCall(t, e, "read_file", map[string]any{"path": "../shared.txt"}, Hooks{})); txt != "[../shared.txt | 1 lines | hash:"+text.ContentHash([]byte("shared\n"))+"]\n     1\tshared\n" {
		t.Errorf("read ../shared.txt = %q", txt)
	}
	res := mustCall(t, e, "write_file", map[string]any{"path": "new.txt", "content": "x"}, Hooks{}).(*schema.WriteFileResult)
	if fx.read("project/new.txt") != "x" || res.Path != "new.txt" {
		t.Errorf("write from cwd: %q %q", fx.read("project/new.txt"), res.Path)
	}
	info := mustCall(t, e, "file_info", map[string]any{"path": fx.root + "/shared.txt"}, Hooks{}).(*schema.FileInfoResult)
	if info.Path != "../shared.txt" {
		t.Errorf("info path = %q", info.Path)
	}
	info = mustCall(t, e, "file_info", map[string]any{"path": "link.txt"}, Hooks{}).(*schema.FileInfoResult)
	if info.SymlinkTarget != "target.txt" {
		t.Errorf("symlink target = %q", info.SymlinkTarget)
	}
	if _, err := tryCall(t, e, "read_file", map[string]any{"path": "../../outside.txt"}, Hooks{}); err == nil || err.Kind != "outside_root" {
		t.Errorf("escape from cwd = %v", err)
	}
}
