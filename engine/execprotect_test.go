package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// gitStatus runs the real git status in dir (fixture-relative) with a clean environment: no
// system or global config, a ceiling at the fixture's base so no repository above the temporary
// directory is found. It returns git's combined output.
func gitStatus(t *testing.T, fx *fixture, dir string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	cmd := exec.Command(git, "status")
	cmd.Dir = fx.abs(dir)
	cmd.Env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(fx.root),
	}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// fsmonitorConfig is a git config whose core.fsmonitor creates marker (absolute) when git runs
// it, as git status does.
func fsmonitorConfig(marker string) string {
	return "[core]\n\tfsmonitor = \"touch '" + marker + "'; false\"\n"
}

// TestGitDirAttack is issue 19 item 2 through the tools: a model plants a .git file pointing at
// a directory it assembles into a git directory whose config names core.fsmonitor, and the
// user's next git status in the subdirectory runs it. Every step is tried (so on code without
// the git rule the whole attack lands and git runs the marker command); the test then requires
// that the first step that would complete the shape was refused and that git ran nothing.
func TestGitDirAttack(t *testing.T) {
	fx := makeFixture(t, "sub/", "sub/main.go: package main\n")
	e := fx.engine(schema.Config{Tools: gitTools})
	marker := filepath.Join(fx.outside, "PWNED")
	steps := []struct {
		tool    string
		args    any
		refused bool // with the git rule
	}{
		{"write_file", schema.WriteFileArgs{Path: "sub/.git", Content: "gitdir: ../evil\n"}, true},
		{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}, false},
		{"write_file", schema.WriteFileArgs{Path: "evil/config", Content: fsmonitorConfig(marker)}, false},
		{"create_directory", schema.CreateDirectoryArgs{Path: "evil/objects"}, true},
		{"create_directory", schema.CreateDirectoryArgs{Path: "evil/refs/heads"}, true},
	}
	fx.add("evil/")
	for _, s := range steps {
		_, err := tryCall(t, e, s.tool, s.args, Hooks{})
		switch {
		case s.refused && err == nil:
			t.Errorf("%s %s = success; want protected", s.tool, jsonOf(s.args))
		case s.refused && err.Kind != "protected":
			t.Errorf("%s %s = %s (%s); want protected", s.tool, jsonOf(s.args), err.Kind, err.Msg)
		case !s.refused && err != nil:
			t.Errorf("%s %s = %v; want success (one member alone is no git directory)", s.tool, jsonOf(s.args), err)
		}
	}
	out := gitStatus(t, fx, "sub")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("git status in sub ran the model's core.fsmonitor (marker created); git said:\n%s", out)
	}
	for _, p := range []string{"sub/.git", "evil/objects", "evil/refs"} {
		if _, err := os.Lstat(fx.abs(p)); err == nil {
			t.Errorf("%s exists after the attack", p)
		}
	}
}

// TestGitDirAttack_HostGitFile: the .git file is the host's own (git init --separate-git-dir,
// a worktree whose git directory was moved); the model can still not assemble what it points
// at, in any order or by any tool, so git status finds no repository and runs nothing.
func TestGitDirAttack_HostGitFile(t *testing.T) {
	marker := "" // set per fixture
	prepare := func(t *testing.T) (*fixture, *Engine) {
		fx := makeFixture(t, "sub/.git: gitdir: ../evil\n", "evil/", "prep/objects/", "prep/HEAD: ref: refs/heads/main\n")
		marker = filepath.Join(fx.outside, "PWNED")
		fx.add("evil/config: " + strings.ReplaceAll(fsmonitorConfig(marker), "\n", `\n`))
		return fx, fx.engine(schema.Config{Tools: gitTools})
	}
	type call struct {
		tool string
		args any
	}
	for _, c := range []struct {
		name  string
		ok    []call // succeed
		final call   // the step that would complete the shape: refused
	}{
		{"HEAD last", []call{{"create_directory", schema.CreateDirectoryArgs{Path: "evil/objects"}}},
			call{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}}},
		{"objects last", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}}},
			call{"create_directory", schema.CreateDirectoryArgs{Path: "evil/objects"}}},
		{"objects as an intermediate directory", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}}},
			call{"create_directory", schema.CreateDirectoryArgs{Path: "evil/objects/pack"}}},
		{"refs and commondir count too", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}}},
			call{"write_file", schema.WriteFileArgs{Path: "evil/commondir", Content: "../prep\n"}}},
		{"a file moved to the name HEAD", []call{
			{"create_directory", schema.CreateDirectoryArgs{Path: "evil/refs"}},
			{"write_file", schema.WriteFileArgs{Path: "evil/h.txt", Content: "ref: refs/heads/main\n"}}},
			call{"move_file", schema.MoveFileArgs{Source: "evil/h.txt", Destination: "evil/HEAD"}}},
		{"a prepared directory moved in as objects", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}}},
			call{"move_file", schema.MoveFileArgs{Source: "prep/objects", Destination: "evil/objects"}}},
		{"a directory renamed to refs", []call{
			{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}},
			{"create_directory", schema.CreateDirectoryArgs{Path: "evil/r"}}},
			call{"move_file", schema.MoveFileArgs{Source: "evil/r", Destination: "evil/refs"}}},
		{"case folded (Objects)", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "x\n"}}},
			call{"create_directory", schema.CreateDirectoryArgs{Path: "evil/Objects"}}},
		{"long s (refſ)", []call{{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "x\n"}}},
			call{"create_directory", schema.CreateDirectoryArgs{Path: "evil/ref\u017f"}}},
		{"NTFS trailing dot (HEAD.)", []call{{"create_directory", schema.CreateDirectoryArgs{Path: "evil/objects"}}},
			call{"write_file", schema.WriteFileArgs{Path: "evil/HEAD.", Content: "x\n"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx, e := prepare(t)
			for _, s := range c.ok {
				mustCall(t, e, s.tool, s.args, Hooks{})
			}
			_, err := tryCall(t, e, c.final.tool, c.final.args, Hooks{})
			wantKind(t, c.final.tool+" "+jsonOf(c.final.args), err, "protected")
			if !strings.Contains(err.Msg, "git directory") {
				t.Errorf("message %q does not say why", err.Msg)
			}
			gitStatus(t, fx, "sub")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("git status ran the model's core.fsmonitor")
			}
		})
	}
}

// TestGitDirAttack_Bare: a directory assembled as a bare repository is found by git itself
// when the user runs git in it (a shell prompt does on cd): refused like a .git file's target.
func TestGitDirAttack_Bare(t *testing.T) {
	fx := makeFixture(t, "work/")
	e := fx.engine(schema.Config{Tools: gitTools})
	marker := filepath.Join(fx.outside, "PWNED")
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "work/config", Content: fsmonitorConfig(marker)}, Hooks{})
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "work/HEAD", Content: "ref: refs/heads/main\n"}, Hooks{})
	_, err := tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "work/refs"}, Hooks{})
	wantKind(t, "create_directory work/refs", err, "protected")
	gitStatus(t, fx, "work")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git status in work ran the model's core.fsmonitor")
	}
}

// TestGitNames: every spelling of .git that git or a file system takes for it is protected, at
// any depth, as file, directory or link, for every changing tool; lookalikes are not.
func TestGitNames(t *testing.T) {
	fx := makeFixture(t, "a/b/", "x.txt: x\n", "d/", "sub/.git/config: [core]\n", "lnk/.git => ../x.txt", "plain/f.txt: f\n")
	e := fx.engine(schema.Config{Tools: gitTools, ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}})
	for _, p := range []string{
		".git", "a/.git", "a/b/.git", "a/b/.GIT", "a/.Git/config", "a/.git./HEAD", "a/.git ", "a/.git::$INDEX_ALLOCATION",
		"a/git~1", "a/GIT~1/config", "a/.g\u200cit", "a/.\ufeffgit", "a/.gıt", // NTFS upcases the dotless ı to I
		"sub/.git/config", "sub/.git/hooks/pre-commit", "lnk/.git",
	} {
		if _, _, err := e.resolveFor("test", p, accessWrite); err == nil || err.Kind != "protected" {
			t.Errorf("write %q = %v; want protected", p, err)
		}
		if _, _, err := e.resolveFor("test", p, accessRead); err != nil && err.Kind != "not_found" {
			t.Errorf("read %q = %v; want readable", p, err)
		}
	}
	for _, p := range []string{"a/git", "a/.gitignore", "a/.github/workflows/ci.yml", "a/.gitmodules", "a/my.git", "a/.gi", "a/x.git.bak", "docs/git/config.md"} {
		if _, _, err := e.resolveFor("test", p, accessWrite); err != nil {
			t.Errorf("write %q = %v; want allowed (lookalike)", p, err)
		}
	}
	// Every changing tool, on an existing .git directory, file and link.
	for _, c := range []struct {
		tool string
		args any
	}{
		{"write_file", schema.WriteFileArgs{Path: "sub/.git/config", Content: "x"}},
		{"edit_file", schema.EditFileArgs{Path: "sub/.git/config", OldText: sp("core"), NewText: sp("x")}},
		{"delete", schema.DeleteArgs{Path: "sub/.git", Recursive: true}},
		{"delete", schema.DeleteArgs{Path: "sub", Recursive: true}},
		{"delete", schema.DeleteArgs{Path: "lnk/.git"}},
		{"move_file", schema.MoveFileArgs{Source: "sub/.git", Destination: "d/g"}},
		{"move_file", schema.MoveFileArgs{Source: "sub", Destination: "d/sub"}},
		{"move_file", schema.MoveFileArgs{Source: "x.txt", Destination: "d/.git"}},
		{"move_file", schema.MoveFileArgs{Source: "plain", Destination: "d/.GIT"}},
		{"create_directory", schema.CreateDirectoryArgs{Path: "d/.git/hooks"}},
		{"remove_directory", schema.RemoveDirectoryArgs{Path: "sub/.git"}},
	} {
		_, err := tryCall(t, e, c.tool, c.args, Hooks{})
		wantKind(t, c.tool+" "+jsonOf(c.args), err, "protected")
	}
	if got := fx.read("sub/.git/config"); got != "[core]\n" {
		t.Errorf("sub/.git/config = %q", got)
	}
	// The host may allow it; then the lists alone decide.
	yes := true
	g := fx.engine(schema.Config{Tools: gitTools, ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}, AllowGitDirs: &yes})
	mustCall(t, g, "write_file", schema.WriteFileArgs{Path: "d/.git", Content: "gitdir: ../x\n"}, Hooks{})
}

// TestGitDirExisting: an existing git directory (a bare fixture repository, a separate git
// directory) is protected as a whole: nothing in it changes, it is neither deleted nor moved,
// and a tree containing one is neither.
func TestGitDirExisting(t *testing.T) {
	fx := makeFixture(t, "fix/repo.git/HEAD: ref: refs/heads/main\n", "fix/repo.git/objects/", "fix/repo.git/refs/heads/",
		"fix/repo.git/config: [core]\n", "fix/other.txt: o\n", "d/")
	e := fx.engine(schema.Config{Tools: gitTools})
	for _, c := range []struct {
		tool string
		args any
	}{
		{"write_file", schema.WriteFileArgs{Path: "fix/repo.git/config", Content: "x"}},
		{"write_file", schema.WriteFileArgs{Path: "fix/repo.git/hooks/post-checkout", Content: "x"}},
		{"create_directory", schema.CreateDirectoryArgs{Path: "fix/repo.git/hooks"}},
		{"edit_file", schema.EditFileArgs{Path: "fix/repo.git/config", OldText: sp("core"), NewText: sp("x")}},
		{"delete", schema.DeleteArgs{Path: "fix/repo.git/config"}},
		{"delete", schema.DeleteArgs{Path: "fix/repo.git", Recursive: true}},
		{"delete", schema.DeleteArgs{Path: "fix", Recursive: true}},
		{"move_file", schema.MoveFileArgs{Source: "fix/repo.git/objects", Destination: "d/objects"}},
		{"move_file", schema.MoveFileArgs{Source: "fix", Destination: "d/fix"}},
		{"remove_directory", schema.RemoveDirectoryArgs{Path: "fix/repo.git/objects"}},
	} {
		_, err := tryCall(t, e, c.tool, c.args, Hooks{})
		wantKind(t, c.tool+" "+jsonOf(c.args), err, "protected")
	}
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "fix/other.txt", Content: "fine"}, Hooks{})
	yes := true
	g := fx.engine(schema.Config{Tools: gitTools, AllowGitDirs: &yes})
	mustCall(t, g, "write_file", schema.WriteFileArgs{Path: "fix/repo.git/description", Content: "x"}, Hooks{})
	mustCall(t, g, "create_directory", schema.CreateDirectoryArgs{Path: "d/bare/objects"}, Hooks{})
	mustCall(t, g, "write_file", schema.WriteFileArgs{Path: "d/bare/HEAD", Content: "ref: refs/heads/main\n"}, Hooks{})
}

// TestGitDirRace: concurrent calls that each add one member (HEAD by write_file, objects by
// create_directory, refs by move_file) race for one directory many times; the directory never
// ends up a git directory, because each member is created during its turn after looking at the
// others. The calls go to one engine (the turn's mutex and the directory's flock) and to two
// engines on the same root, which share no memory, as two fsbox servers would (the flock alone).
func TestGitDirRace(t *testing.T) {
	for _, shared := range []bool{true, false} {
		name := "one engine"
		if !shared {
			name = "two engines"
		}
		t.Run(name, func(t *testing.T) { gitDirRace(t, shared) })
	}
}

func gitDirRace(t *testing.T, shared bool) {
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	fx := makeFixture(t)
	e := fx.engine(schema.Config{Tools: gitTools})
	engines := []*Engine{e, e, e}
	if !shared {
		e2 := fx.engine(schema.Config{Tools: gitTools})
		engines = []*Engine{e, e2, e}
	}
	for i := range rounds {
		dir := "r" + strings.Repeat("x", i%3) + "/" + filepath.Base(t.TempDir()) // fresh name per round
		fx.add(dir+"/", dir+"/pre/")
		var wg sync.WaitGroup
		calls := []struct {
			tool string
			args any
		}{
			{"write_file", schema.WriteFileArgs{Path: dir + "/HEAD", Content: "ref: refs/heads/main\n"}},
			{"create_directory", schema.CreateDirectoryArgs{Path: dir + "/objects"}},
			{"move_file", schema.MoveFileArgs{Source: dir + "/pre", Destination: dir + "/refs"}},
		}
		for k, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The creations that need no turn of their own (HEAD by write_file) take it
				// in commitFile; the others in gitMemberLock.
				tryCall(t, engines[k], c.tool, c.args, Hooks{})
			}()
		}
		wg.Wait()
		exists := func(m string) bool { _, err := os.Lstat(fx.abs(dir + "/" + m)); return err == nil }
		if gitDirShaped(exists) {
			t.Fatalf("round %d: %s became a git directory (HEAD %v, objects %v, refs %v)", i, dir, exists("HEAD"), exists("objects"), exists("refs"))
		}
	}
}

// gitTools are every tool that changes the tree.
var gitTools = append([]string{"write_file", "create_directory"}, changeTools...)

// TestDefaultProtectedExec: the default protected patterns cover what direnv, git hook managers,
// VS Code and package managers run from the tree without the user asking for that file, at
// any depth and in any letter case; lookalikes and files the user runs on purpose are writable.
func TestDefaultProtectedExec(t *testing.T) {
	fx := makeFixture(t)
	e := fx.engine(schema.Config{})
	for _, p := range []string{
		".envrc", "apps/.envrc", ".direnv/python-3.11/bin/python", ".husky/pre-commit", ".githooks/pre-commit",
		".pre-commit-config.yaml", "svc/lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", ".gitconfig",
		".vscode/settings.json", "web/.vscode/tasks.json", "web/.VSCode/Tasks.json", "proj.code-workspace",
		".yarnrc.yml", "web/.yarnrc", ".pnpmfile.cjs", "config/secrets.yaml",
	} {
		if _, _, err := e.resolveFor("test", p, accessWrite); err == nil || err.Kind != "protected" {
			t.Errorf("write %q = %v; want protected", p, err)
		}
	}
	for _, p := range []string{
		"Makefile", "package.json", ".vscode/launch.json", ".vscode/extensions.json", "envrc", "docs/direnv.md",
		".github/workflows/ci.yml", ".gitignore", ".gitattributes", "yarn.lock", "lefthook.md", "src/vscode/tasks.json",
	} {
		if _, _, err := e.resolveFor("test", p, accessWrite); err != nil {
			t.Errorf("write %q = %v; want allowed", p, err)
		}
	}
}

// TestGitRootInside: a root the host placed inside a .git directory is all inside it.
func TestGitRootInside(t *testing.T) {
	fx := makeFixture(t, "repo/.git/hooks/pre-commit: #!/bin/sh\n")
	e, err := New(schema.Config{RootDir: fx.abs("repo/.git/hooks"), Tools: gitTools}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, cerr := tryCall(t, e, "write_file", schema.WriteFileArgs{Path: "pre-commit", Content: "touch PWNED\n"}, Hooks{})
	wantKind(t, "write pre-commit in a root inside .git", cerr, "protected")
	mustCall(t, e, "read_file", schema.ReadFileArgs{Path: "pre-commit"}, Hooks{})
}

// TestGitDirRefusedBeforeAsking: a member that would complete a git directory is refused before
// the change is announced, so no reviewer is asked to approve what cannot happen (the check at
// creation, under the lock, stays the one that counts).
func TestGitDirRefusedBeforeAsking(t *testing.T) {
	fx := makeFixture(t, "evil/objects/", "evil/h.txt: ref: refs/heads/main\n", "evil2/HEAD: ref: refs/heads/main\n")
	e := fx.engine(schema.Config{Tools: gitTools})
	for _, c := range []struct {
		tool string
		args any
	}{
		{"write_file", schema.WriteFileArgs{Path: "evil/HEAD", Content: "ref: refs/heads/main\n"}},
		{"move_file", schema.MoveFileArgs{Source: "evil/h.txt", Destination: "evil/HEAD"}},
		{"create_directory", schema.CreateDirectoryArgs{Path: "evil2/refs/heads"}},
	} {
		rec := &recorder{}
		_, err := tryCall(t, e, c.tool, c.args, rec.hooks(true))
		wantKind(t, c.tool+" "+jsonOf(c.args), err, "protected")
		if len(rec.requests) != 0 || len(rec.events) != 0 {
			t.Errorf("%s: %d change requests, %d events; want none", c.tool, len(rec.requests), len(rec.events))
		}
	}
}

// BenchmarkGitRule_WriteDeep measures what the git rule adds to a write eight directories deep
// (one lstat of HEAD per directory above it, done at the check and again at the commit): the
// same write with the rule on and switched off by allow_git_dirs.
func BenchmarkGitRule_WriteDeep(b *testing.B) {
	const p = "a/b/c/d/e/f/g/h/w.txt"
	content := strings.Repeat("a line of ordinary source code\n", 100)
	yes := true
	for _, c := range []struct {
		name string
		cfg  schema.Config
	}{{"rule", schema.Config{}}, {"allowed", schema.Config{AllowGitDirs: &yes}}} {
		b.Run(c.name, func(b *testing.B) {
			fx := makeFixture(b, p+": old\n")
			e := fx.engine(c.cfg)
			runBench(b, e, "write_file", map[string]any{"path": p, "content": content})
		})
	}
}
