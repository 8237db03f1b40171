package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/ignore"
	"github.com/fsbox/fsbox/schema"
)

// jsProject is a JavaScript project with vendored and generated trees and every kind of ignore
// rule git knows: nested files, negation, anchoring, "**", directory-only patterns, classes,
// escapes, trailing spaces, .git/info/exclude and the global excludes file.
var jsProject = []string{
	"package.json: {}",
	"index.js",
	".gitignore: node_modules/\\ndist\\n/build\\n*.log\\n!keep.log\\n**/tmp\\n[!a]*.tmp\\nvendor/**\\ntrail.txt   \\n\\#hash.txt\\n# a comment\\n\\n",
	"node_modules/left-pad/index.js",
	"node_modules/left-pad/package.json",
	"dist/bundle.js",
	"build/out.txt",
	"src/build/kept.txt",
	"logs/a.log",
	"logs/keep.log",
	"src/app.js",
	"src/.gitignore: generated/\\n!important.log\\r\\n",
	"src/generated/g.js",
	"src/important.log",
	"src/gen.tmp",
	"src/a.tmp",
	"docs/tmp/x.md",
	"docs/readme.md",
	"vendor/lib/v.js",
	"trail.txt",
	"#hash.txt",
	"sp ace.txt",
	"coverage/lcov.info",
	"secret-notes.txt",
	"pkg/lib/.gitignore: *\\n!*.js\\n!.gitignore\\n",
	"pkg/lib/a.js",
	"pkg/lib/a.txt",
	"pkg/lib/sub/b.js",
	"link.js => index.js",
}

// gitRepo makes dir a git repository with HOME set to a directory whose global excludes file
// ignores coverage/, and .git/info/exclude ignoring secret-notes.txt.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, tool := range []string{"git", "rg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/install-deps installs it)", tool)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/global-ignore\n"), 0o644)
	os.WriteFile(filepath.Join(home, "global-ignore"), []byte("coverage/\n"), 0o644)
	run(t, dir, "git", "init", "-q")
	os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("secret-notes.txt\n"), 0o644)
}

func run(t *testing.T, dir string, name string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// visibleFiles drops paths with a dot component (walk rule 2: fsbox hides them; git lists them).
func visibleFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.HasPrefix(p, ".") && !strings.Contains(p, "/.") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// fsboxFiles lists the files find_files "**" and directory_tree show, which must agree.
func fsboxFiles(t *testing.T, e *Engine) []string {
	t.Helper()
	res := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "**"}, Hooks{}).(*schema.FindFilesResult)
	if res.Truncated {
		t.Fatalf("find_files truncated: %s", res.Text[len(res.Text)-200:])
	}
	var found []string
	for _, p := range res.Paths {
		if !strings.HasSuffix(p, "/") {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	tree := mustCall(t, e, schema.ToolDirectoryTree, map[string]any{}, Hooks{}).(*schema.DirectoryTreeResult)
	var inTree []string
	for _, de := range tree.Entries {
		if de.Type == "file" {
			inTree = append(inTree, de.Path)
		}
	}
	slices.Sort(inTree)
	if !slices.Equal(found, inTree) {
		t.Errorf("find_files and directory_tree disagree:\nfind %q\ntree %q", found, inTree)
	}
	return found
}

func bigLimits() schema.Config {
	n, chars := 1_000_000, 50_000_000
	none := []string{}
	return schema.Config{MaxFindResults: &n, MaxListResults: &n, MaxOutputChars: &chars, DeniedPatterns: &none, ProtectedPatterns: &none, Tools: allTools}
}

// TestIgnore_AgreesWithGitAndRg checks, entry for entry, that the walkers skip what
// git ls-files --cached --others --exclude-standard and rg --files skip: on a JavaScript project
// with every kind of rule, and on a copy of a real module (golang.org/x/sys, nested .gitignore).
func TestIgnore_AgreesWithGitAndRg(t *testing.T) {
	t.Run("js project", func(t *testing.T) {
		fx := makeFixture(t, jsProject...)
		gitRepo(t, fx.root)
		compareWithGit(t, fx.root, fx.engine(bigLimits()))
	})
	t.Run("golang.org/x/sys", func(t *testing.T) {
		src := moduleDir(t, "golang.org/x/sys")
		fx := makeFixture(t)
		if out, err := exec.Command("cp", "-r", src+"/.", fx.root).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		exec.Command("chmod", "-R", "u+w", fx.root).Run()
		// Generated files the module's own .gitignore files ignore, as a build would leave them.
		fx.add("unix/_obj/x.o", "unix/unix.test", "windows/mkerrors_windows.go.orig")
		gitRepo(t, fx.root)
		compareWithGit(t, fx.root, fx.engine(bigLimits()))
	})
}

func compareWithGit(t *testing.T, root string, e *Engine) {
	t.Helper()
	want := visibleFiles(run(t, root, "git", "ls-files", "--cached", "--others", "--exclude-standard"))
	got := fsboxFiles(t, e)
	// git lists a symlink as a file; fsbox shows a link to a file as a file too.
	if !slices.Equal(got, want) {
		t.Errorf("fsbox and git ls-files disagree:\n%s", setDiff(got, want))
	}
	rg := visibleFiles(run(t, root, "rg", "--files", "--no-messages"))
	// rg does not list symlinks without --follow; fsbox does, as git does.
	if !slices.Equal(withoutLinks(root, got), rg) {
		t.Errorf("fsbox and rg --files disagree:\n%s", setDiff(withoutLinks(root, got), rg))
	}
	if len(want) < 5 {
		t.Fatalf("too few files to compare: %q", want)
	}
}

func withoutLinks(root string, paths []string) []string {
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		fi, err := os.Lstat(filepath.Join(root, p))
		return err == nil && fi.Mode()&os.ModeSymlink != 0
	})
}

func setDiff(got, want []string) string {
	var b strings.Builder
	for _, p := range got {
		if !slices.Contains(want, p) {
			b.WriteString("  only fsbox: " + p + "\n")
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			b.WriteString("  only the reference: " + p + "\n")
		}
	}
	return b.String()
}

// moduleDir is the module cache directory of a module this one requires.
func moduleDir(t *testing.T, mod string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		if out, err = exec.Command("go", "mod", "download", "-json", mod).Output(); err == nil {
			out, err = exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
			dir = strings.TrimSpace(string(out))
		}
	}
	if err != nil || dir == "" {
		t.Fatalf("module %s not in the module cache: %v", mod, err)
	}
	return dir
}

// TestIgnore_Walkers checks each walker against one fixture: what is hidden, the ignored count
// and its notice, .ignore files (rg's, read by fsbox too), an explicitly named ignored
// directory, and ignore_vcs: false.
func TestIgnore_Walkers(t *testing.T) {
	fx := makeFixture(t,
		".gitignore: node_modules/\\n*.log\\n",
		".ignore: scratch.txt\\n",
		"node_modules/pkg/index.js: needle",
		"app.js: needle",
		"debug.log: needle",
		"scratch.txt: needle",
		"src/.gitignore: !debug.log\\n",
		"src/debug.log: needle",
		"src/main.js: needle",
	)
	e := fx.engine(schema.Config{Tools: allTools})
	list := mustCall(t, e, schema.ToolListDirectory, map[string]any{}, Hooks{}).(*schema.ListDirectoryResult)
	if got := resultText(list); got != "app.js  (6 bytes)\nsrc/\n[2 hidden entries omitted; name a hidden path explicitly to include it]\n[3 entries ignored by .gitignore rules; name one explicitly to include it]" {
		t.Errorf("list_directory: %q", got)
	}
	if list.Hidden.Ignored != 3 {
		t.Errorf("hidden.ignored = %d", list.Hidden.Ignored)
	}
	search := mustCall(t, e, schema.ToolSearchFiles, map[string]any{"pattern": "needle"}, Hooks{}).(*schema.SearchFilesResult)
	var paths []string
	for _, m := range search.Matches {
		paths = append(paths, m.Path)
	}
	if !slices.Equal(paths, []string{"app.js", "src/debug.log", "src/main.js"}) {
		t.Errorf("search_files: %q", resultText(search))
	}
	find := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "**/*.js"}, Hooks{}).(*schema.FindFilesResult)
	if !slices.Equal(find.Paths, []string{"app.js", "src/main.js"}) || find.Hidden.Ignored != 1 {
		t.Errorf("find_files: %q %+v", find.Paths, find.Hidden)
	}
	// Named explicitly: the walk root, or a literal component of the pattern.
	named := mustCall(t, e, schema.ToolListDirectory, map[string]any{"path": "node_modules/pkg"}, Hooks{})
	if got := resultText(named); got != "node_modules/pkg/index.js  (6 bytes)" {
		t.Errorf("list_directory of an ignored directory: %q", got)
	}
	lit := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "node_modules/**/*.js"}, Hooks{}).(*schema.FindFilesResult)
	if !slices.Equal(lit.Paths, []string{"node_modules/pkg/index.js"}) {
		t.Errorf("find_files naming an ignored directory: %q", lit.Text)
	}
	insearch := mustCall(t, e, schema.ToolSearchFiles, map[string]any{"pattern": "needle", "path": "node_modules"}, Hooks{})
	if got := resultText(insearch); got != "node_modules/pkg/index.js:1:needle" {
		t.Errorf("search_files in an ignored directory: %q", got)
	}
	// read_file is not a walker: an ignored file stays readable.
	mustCall(t, e, schema.ToolReadFile, map[string]any{"path": "debug.log"}, Hooks{})

	off := false
	all := fx.engine(schema.Config{IgnoreVCS: &off, Tools: allTools})
	tree := mustCall(t, all, schema.ToolDirectoryTree, map[string]any{}, Hooks{}).(*schema.DirectoryTreeResult)
	if len(tree.Entries) != 9 || tree.Hidden.Ignored != 0 {
		t.Errorf("ignore_vcs false: %q", tree.Text)
	}
}

// TestIgnore_FilesReadSafely: an ignore file that is a symlink (here to a file outside the
// root) or that access rules deny is not read; a huge one is read up to ignore.MaxFileBytes.
func TestIgnore_FilesReadSafely(t *testing.T) {
	fx := makeFixture(t, "a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt")
	os.WriteFile(filepath.Join(fx.outside, "ign"), []byte("a.txt\n"), 0o644)
	fx.add(".gitignore => $OUTSIDE/ign", "sub/.ignore: d.txt\\n")
	huge := strings.Repeat("#"+strings.Repeat("x", 1000)+"\n", ignore.MaxFileBytes/1001+1) + "c.txt\n"
	os.WriteFile(filepath.Join(fx.root, ".ignore"), []byte(huge), 0o644)
	denied := []string{"sub/.ignore"}
	e := fx.engine(schema.Config{DeniedPatterns: &denied, Tools: allTools})
	res := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "**/*.txt"}, Hooks{}).(*schema.FindFilesResult)
	if !slices.Equal(res.Paths, []string{"a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt"}) {
		t.Errorf("find_files: %q", res.Text)
	}
	tree := mustCall(t, e, schema.ToolDirectoryTree, map[string]any{}, Hooks{}).(*schema.DirectoryTreeResult)
	if tree.Hidden.Ignored != 0 {
		t.Errorf("directory_tree ignored %d: %q", tree.Hidden.Ignored, tree.Text)
	}
}

// TestIgnore_BombCostsLittle: three nested ignore files of 10,000 patterns each (literal names,
// extensions, wildcards with a literal prefix) over 600 entries: the entries are checked against
// the few patterns their names select, not all 30,000 (which cost 55.8 s in one list_directory
// with 1 MiB files). The count is of go-git Match calls, through the work budget, so it does not
// depend on the machine.
func TestIgnore_BombCostsLittle(t *testing.T) {
	kinds := []string{"name%05d", "*.e%05d", "f%d*[xy]"}
	lines := []string{}
	for level, dir := range []string{"a", "a/b", "a/b/c"} {
		var b strings.Builder
		for i := range ignore.MaxPatternsPerFile {
			fmt.Fprintf(&b, kinds[level]+"\\n", i)
		}
		lines = append(lines, dir+"/.gitignore: "+b.String())
	}
	for i := range 600 {
		lines = append(lines, fmt.Sprintf("a/b/c/f%03d.txt: x", i))
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{Tools: allTools})
	c := &call{ctx: t.Context(), tool: schema.ToolListDirectory}
	f := e.newWalkFilter(c)
	d, _ := openDirHandle(e, "a/b/c", nil)
	defer d.close()
	dir := &walkDir{rel: "a/b/c", lex: "a/b/c", h: d}
	ents, _ := dir.readNames()
	f.enter(dir, ents)
	before := f.work.left
	shown := 0
	for _, de := range ents {
		if _, ok := f.entry(dir, de, false); ok {
			shown++
		}
	}
	spent := before - f.work.left - len(ents) // less the unit each entry costs anyway
	if f.load.Dropped() != 0 || f.load.Applied() != 3*ignore.MaxPatternsPerFile {
		t.Fatalf("patterns applied %d, dropped %d; want all %d", f.load.Applied(), f.load.Dropped(), 3*ignore.MaxPatternsPerFile)
	}
	// "f%d*[xy]" keys on "f0", "f1", ...: each entry selects the patterns whose prefix it has.
	if spent <= 0 {
		t.Errorf("600 entries under 30,000 ignore patterns: %d pattern checks counted; each check should spend the work budget", spent)
	}
	if spent > 600*20 {
		t.Errorf("600 entries under 30,000 ignore patterns: %d pattern checks; want at most %d", spent, 600*20)
	}
	if shown != 600 {
		t.Errorf("%d of 600 entries shown", shown)
	}
	t.Logf("%d pattern checks for 600 entries", spent)
}

// TestIgnore_PatternCaps: patterns past ignore.MaxPatternsPerFile of a file, or past
// ignore.MaxPatternsPerCall of a call, are not applied, and the walk's text says how many.
func TestIgnore_PatternCaps(t *testing.T) {
	var b strings.Builder
	for i := range ignore.MaxPatternsPerFile + 5 {
		fmt.Fprintf(&b, "skip%d.txt\\n", i)
	}
	lines := []string{".gitignore: " + b.String(), "skip0.txt: x", fmt.Sprintf("skip%d.txt: x", ignore.MaxPatternsPerFile), "keep.txt: x"}
	var local strings.Builder
	for i := range ignore.MaxPatternsPerFile {
		fmt.Fprintf(&local, "local%d.txt\\n", i)
	}
	for _, d := range []string{"d1", "d2", "d3"} {
		lines = append(lines, d+"/.gitignore: "+local.String(), d+"/local0.txt: x")
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{Tools: allTools})
	list := mustCall(t, e, schema.ToolListDirectory, map[string]any{}, Hooks{}).(*schema.ListDirectoryResult)
	if !strings.Contains(list.Text, "[5 ignore patterns not applied: one call applies at most 30000, and at most 10000 of one file; entries they would hide are shown]") ||
		!strings.Contains(list.Text, fmt.Sprintf("skip%d.txt", ignore.MaxPatternsPerFile)) || strings.Contains(list.Text, "skip0.txt") {
		t.Errorf("list_directory under an ignore file over the cap: %q", list.Text)
	}
	// The whole tree: the root's, d1's and d2's files fill the call's 30,000; d3's are not
	// applied, so d3/local0.txt is listed.
	files := mustCall(t, e, schema.ToolListFiles, map[string]any{}, Hooks{}).(*schema.ListFilesResult)
	if !slices.Contains(files.Paths, "d3/local0.txt") || slices.Contains(files.Paths, "d1/local0.txt") || !strings.Contains(files.Text, "[10005 ignore patterns not applied") {
		t.Errorf("list_files past the per-call cap: %q", files.Text)
	}
}
