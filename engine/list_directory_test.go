package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

func TestListDirectory_Cap(t *testing.T) {
	fx := makeFixture(t)
	for i := range 7 {
		fx.add(fmt.Sprintf("f%d.txt: x", i))
	}
	cases := []struct {
		cap  int
		want string
	}{
		{5, "f0.txt  (1 bytes)\nf1.txt  (1 bytes)\nf2.txt  (1 bytes)\nf3.txt  (1 bytes)\nf4.txt  (1 bytes)\n[... truncated at 5 entries]"},
		{7, "f0.txt  (1 bytes)\nf1.txt  (1 bytes)\nf2.txt  (1 bytes)\nf3.txt  (1 bytes)\nf4.txt  (1 bytes)\nf5.txt  (1 bytes)\nf6.txt  (1 bytes)"},
	}
	for _, tc := range cases {
		e := fx.engine(schema.Config{MaxListResults: intp(tc.cap)})
		res := mustCall(t, e, "list_directory", map[string]any{}, Hooks{}).(*schema.ListDirectoryResult)
		if res.Text != tc.want || res.Truncated != (tc.cap < 7) || len(res.Entries) != min(tc.cap, 7) {
			t.Errorf("cap %d: %q truncated=%v entries=%d", tc.cap, res.Text, res.Truncated, len(res.Entries))
		}
	}
	// Hidden and filtered entries do not count towards the cap (walk rule 7).
	fx.add(".a", ".b", ".c")
	e := fx.engine(schema.Config{MaxListResults: intp(7)})
	if got := callText(t, e, "list_directory", map[string]any{"path": "."}); strings.Contains(got, "truncated") {
		t.Errorf("hidden entries counted towards the cap:\n%s", got)
	}
}

func TestListDirectory_Errors(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add("escape => $OUTSIDE", "loop => loop")
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"src"}})
	for _, tc := range []struct {
		path string
		kind schema.ErrorKind
	}{
		{"hello.txt", schema.KindNotADirectory},
		{"missing", schema.KindNotFound},
		{"..", schema.KindOutsideRoot},
		{"escape", schema.KindOutsideRoot},
		{"loop", schema.KindSymlinkLoop},
		{"src", schema.KindDenied},
		{"src/a", schema.KindDenied},
	} {
		_, err := tryCall(t, e, "list_directory", map[string]any{"path": tc.path}, Hooks{})
		wantKind(t, fmt.Sprintf("list_directory(%q)", tc.path), err, tc.kind)
		if err != nil && strings.Contains(err.Msg, fx.root) {
			t.Errorf("list_directory(%q) message leaks the root: %q", tc.path, err.Msg)
		}
	}
	// An omitted (or empty) path is the working directory.
	if got := callText(t, e, "list_directory", map[string]any{}); !strings.Contains(got, "hello.txt") {
		t.Errorf("list_directory({}) = %q", got)
	}
}

// TestListDirectory_Symlinks covers walk rule 3: entries resolved through their links.
func TestListDirectory_Symlinks(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add(
		"$OUTSIDE/secret.txt: escaped!\n",
		"inner_link.txt => hello.txt",
		"inner_dir => subdir",
		"abs_link.txt => $ROOT/multi.txt",
		"escape_link.txt => $OUTSIDE/secret.txt",
		"escape_dir => $OUTSIDE",
		"dangling.txt => gone.txt",
		"loop => loop",
		"creds.secret: hunter2\n",
		"alias.txt => creds.secret",
		"dot_alias => .env",
	)
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"*.secret"}})
	got := callText(t, e, "list_directory", map[string]any{"path": "."})
	for _, want := range []string{"inner_link.txt  (14 bytes)", "inner_dir/", "abs_link.txt  (30 bytes)", "dot_alias  (8 bytes)"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"escape", "dangling", "loop", "secret", "alias.txt", fx.outside} {
		if strings.Contains(got, absent) {
			t.Errorf("listing shows %q:\n%s", absent, got)
		}
	}
	// Listing through an in-root directory link shows the link's spelling.
	if got := callText(t, e, "list_directory", map[string]any{"path": "inner_dir"}); got != "inner_dir/nested.py  (16 bytes)" {
		t.Errorf("list inner_dir = %q", got)
	}
}

// TestListDirectory_Patterns: the root is gated by denied only, entries by read-level access.
func TestListDirectory_Patterns(t *testing.T) {
	fx := makeFixture(t, "keep.py", "skip.md", "sub/x.py", "private/secret.txt")
	e := fx.engine(schema.Config{AllowedPatterns: []string{"*.py"}})
	if got := callText(t, e, "list_directory", map[string]any{"path": "."}); got != "keep.py  (8 bytes)\n[3 entries not shown: access rules deny them]" { // not allowed: counted, not named
		t.Errorf("allowed *.py: list . = %q", got)
	}
	e = fx.engine(schema.Config{ProtectedPatterns: &[]string{"*"}})
	if got := callText(t, e, "list_directory", map[string]any{"path": "."}); !strings.Contains(got, "keep.py") || !strings.Contains(got, "sub/") {
		t.Errorf("protected * hid entries (seed bug #322): %q", got)
	}
	e = fx.engine(schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"read"}, Paths: []string{"/private/**"}, Mode: "deny"}}})
	if got := callText(t, e, "list_directory", map[string]any{"path": "."}); strings.Contains(got, "private") {
		t.Errorf("read-denied directory listed: %q", got)
	}
}

func TestListDirectory_Event(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	e := fx.engine(schema.Config{})
	var rec recorder
	mustCall(t, e, "list_directory", map[string]any{"path": "src/"}, rec.hooks(false))
	if len(rec.events) != 1 {
		t.Fatalf("events = %v; want one", rec.events)
	}
	ev, ok := rec.events[0].(*schema.DirectoryListedEvent)
	if !ok || ev.Kind != schema.KindDirectoryListed || ev.Path != "src" || ev.EntryCount != 2 || ev.RootDir != fx.root || ev.Tool != "list_directory" {
		t.Errorf("event = %+v", rec.events[0])
	}
	rec.events = nil
	tryCall(t, e, "list_directory", map[string]any{"path": "missing"}, rec.hooks(false))
	if len(rec.events) != 0 {
		t.Errorf("a failed listing emitted %v", rec.events)
	}
}

// TestListDirectory_ModifiedAt: entries carry the modification time an adapter needs (deepagents'
// FileInfo.modified_at), of the target for a link, in UTC.
func TestListDirectory_ModifiedAt(t *testing.T) {
	fx := makeFixture(t, "old.txt: x", "sub/new.txt: y", "link => old.txt")
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(fx.abs("old.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "list_directory", map[string]any{}, Hooks{}).(*schema.ListDirectoryResult)
	got := map[string]string{}
	for _, ent := range res.Entries {
		got[ent.Path] = ent.ModifiedAt
	}
	if got["old.txt"] != "2021-03-04T05:06:07Z" || got["link"] != "2021-03-04T05:06:07Z" {
		t.Errorf("modified_at = %v; want old.txt and link at 2021-03-04T05:06:07Z", got)
	}
	if got["sub/"] != "" {
		t.Errorf("sub/ modified_at = %q; directories carry none", got["sub/"])
	}
}
