package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// coreTree is the fixture of the core tools' golden texts.
var coreTree = []string{
	"hello.txt: Hello, world!\n",
	`multi.txt: line1\nline2\nline3\nline4\nline5\n`,
	"empty.txt: ",
	`binary.bin: \0\x01\x02\x03`,
	`crlf.txt: one\r\ntwo\r\n`,
	"nonl.txt: no newline",
	"subdir/nested.py: print(\"nested\")\n",
	".env: TOKEN=1\n",
	".git/config: [core]\n",
	"link.txt => $ROOT/hello.txt",
	"rel_link.txt => subdir/nested.py",
	"loop => loop",
	"escape => $OUTSIDE",
	"pipe |",
	"x.txt: one x x",
	"sp ace's.txt: quote\n",
}

// TestCoreTools_Golden pins the model-facing text of every core tool: results, refusals and
// error messages (as "error <kind>: <message>").
func TestCoreTools_Golden(t *testing.T) {
	maxChars := 400
	cases := []struct {
		name string
		cfg  schema.Config
		tool string
		args map[string]any
		deny bool // refuse the change request with reason "not today"
	}{
		{name: "read_hello", tool: "read_file", args: map[string]any{"path": "hello.txt"}},
		{name: "read_window", tool: "read_file", args: map[string]any{"path": "multi.txt", "offset": 1, "limit": 2}},
		{name: "read_empty", tool: "read_file", args: map[string]any{"path": "empty.txt", "offset": 3}},
		{name: "read_binary", tool: "read_file", args: map[string]any{"path": "binary.bin"}},
		{name: "read_crlf", tool: "read_file", args: map[string]any{"path": "crlf.txt"}},
		{name: "read_nonl", tool: "read_file", args: map[string]any{"path": "./nonl.txt"}},
		{name: "read_nohash", cfg: schema.Config{ContentHashes: new(bool)}, tool: "read_file", args: map[string]any{"path": "multi.txt", "limit": 1}},
		{name: "read_budget", cfg: schema.Config{MaxReadChars: &maxChars}, tool: "read_file", args: map[string]any{"path": "wide.txt"}},
		{name: "read_oversized_line", cfg: schema.Config{MaxReadChars: &maxChars}, tool: "read_file", args: map[string]any{"path": "over.txt", "offset": 1}},
		{name: "read_long_label", cfg: schema.Config{MaxReadChars: &maxChars}, tool: "read_file", args: map[string]any{"path": strings.Repeat("./", 120) + "multi.txt", "limit": 1}},
		{name: "read_offset_error", tool: "read_file", args: map[string]any{"path": "multi.txt", "offset": 5}},
		{name: "read_negative_offset", tool: "read_file", args: map[string]any{"path": "multi.txt", "offset": -1}},
		{name: "read_zero_limit", tool: "read_file", args: map[string]any{"path": "multi.txt", "limit": 0}},
		{name: "read_directory", tool: "read_file", args: map[string]any{"path": "subdir"}},
		{name: "read_missing", tool: "read_file", args: map[string]any{"path": "nonexistent.txt"}},
		{name: "read_fifo", tool: "read_file", args: map[string]any{"path": "pipe"}},
		{name: "read_outside", tool: "read_file", args: map[string]any{"path": "../outside.txt"}},
		{name: "read_escape_link", tool: "read_file", args: map[string]any{"path": "escape/secret.txt"}},
		{name: "read_loop", tool: "read_file", args: map[string]any{"path": "loop"}},
		{name: "read_unknown_arg", tool: "read_file", args: map[string]any{"path": "hello.txt", "lines": 3}},
		{name: "read_wrong_type", tool: "read_file", args: map[string]any{"path": "hello.txt", "offset": "3"}},
		{name: "read_missing_arg", tool: "read_file", args: map[string]any{}},
		{name: "read_denied", cfg: schema.Config{DeniedPatterns: &[]string{"*.py"}}, tool: "read_file", args: map[string]any{"path": "subdir/nested.py"}},
		{name: "read_not_allowed", cfg: schema.Config{AllowedPatterns: []string{"*.py"}}, tool: "read_file", args: map[string]any{"path": "hello.txt"}},
		{name: "unknown_tool", tool: "delete", args: map[string]any{"path": "hello.txt"}},

		{name: "write_new", tool: "write_file", args: map[string]any{"path": "fmt.txt", "content": "ab\ncd\n"}},
		{name: "write_overwrite", tool: "write_file", args: map[string]any{"path": "hello.txt", "content": "h\u00e9llo\r\nnew content\n"}},
		{name: "write_nohash", cfg: schema.Config{ContentHashes: new(bool)}, tool: "write_file", args: map[string]any{"path": "f.txt", "content": "hello\nw\n"}},
		{name: "write_nohash_expected", cfg: schema.Config{ContentHashes: new(bool)}, tool: "write_file", args: map[string]any{"path": "f.txt", "content": "x", "expected_hash": "000000000000"}},
		{name: "write_parent_missing", tool: "write_file", args: map[string]any{"path": "deep/nested/file.txt", "content": "x"}},
		{name: "write_parent_missing_no_mkdir", cfg: schema.Config{Tools: []string{"write_file"}}, tool: "write_file", args: map[string]any{"path": "deep/file.txt", "content": "x"}},
		{name: "write_parent_file", tool: "write_file", args: map[string]any{"path": "hello.txt/nested", "content": "x"}},
		{name: "write_directory", tool: "write_file", args: map[string]any{"path": "subdir", "content": "x"}},
		{name: "write_fifo", tool: "write_file", args: map[string]any{"path": "pipe", "content": "x"}},
		{name: "write_protected", tool: "write_file", args: map[string]any{"path": ".envrc", "content": "x"}},
		{name: "write_protected_depth", tool: "write_file", args: map[string]any{"path": "subdir/.git/config", "content": "x"}},
		{name: "write_stale", tool: "write_file", args: map[string]any{"path": "hello.txt", "content": "x", "expected_hash": "hash:000000000000"}},
		{name: "write_bad_hash", tool: "write_file", args: map[string]any{"path": "hello.txt", "content": "x", "expected_hash": "nope"}},
		{name: "write_bad_hash_new", tool: "write_file", args: map[string]any{"path": "new.txt", "content": "x", "expected_hash": "any_hash_val"}},
		{name: "edit_bad_hash", tool: "edit_file", args: map[string]any{"path": "hello.txt", "old_text": "hello", "new_text": "x", "expected_hash": "any_hash_val"}},
		{name: "write_cancelled", tool: "write_file", args: map[string]any{"path": "hello.txt", "content": "x"}, deny: true},
		{name: "write_quoted_name", tool: "write_file", args: map[string]any{"path": "sp ace's.txt/x", "content": "x"}},

		{name: "edit_basic", tool: "edit_file", args: map[string]any{"path": "hello.txt", "old_text": "world", "new_text": "universe"}},
		{name: "edit_batch", tool: "edit_file", args: map[string]any{"path": "crlf.txt", "replacements": []map[string]string{{"old_text": "one", "new_text": "three"}, {"old_text": "three", "new_text": "four"}}}},
		{name: "edit_no_match", tool: "edit_file", args: map[string]any{"path": "x.txt", "old_text": "zzz", "new_text": "y"}},
		{name: "edit_no_match_batch", tool: "edit_file", args: map[string]any{"path": "x.txt", "replacements": []map[string]string{{"old_text": "one", "new_text": "1"}, {"old_text": "zzz", "new_text": "2"}}}},
		{name: "edit_multiple", tool: "edit_file", args: map[string]any{"path": "x.txt", "old_text": "x", "new_text": "y"}},
		{name: "edit_empty", tool: "edit_file", args: map[string]any{"path": "x.txt", "old_text": "", "new_text": "y"}},
		{name: "edit_binary", tool: "edit_file", args: map[string]any{"path": "binary.bin", "old_text": "a", "new_text": "y"}},
		{name: "edit_both_forms", tool: "edit_file", args: map[string]any{"path": "x.txt", "old_text": "x", "new_text": "y", "replacements": []map[string]string{{"old_text": "one", "new_text": "1"}}}},
		{name: "edit_no_form", tool: "edit_file", args: map[string]any{"path": "x.txt", "old_text": "x"}},
		{name: "edit_nested_unknown", tool: "edit_file", args: map[string]any{"path": "x.txt", "replacements": []map[string]string{{"old_text": "one", "new": "1"}}}},
		{name: "edit_missing", tool: "edit_file", args: map[string]any{"path": "nope.txt", "old_text": "x", "new_text": "y"}},
		{name: "edit_cancelled", tool: "edit_file", args: map[string]any{"path": "hello.txt", "old_text": "world", "new_text": "w"}, deny: true},

		{name: "mkdir_new", tool: "create_directory", args: map[string]any{"path": "a/b/c"}},
		{name: "mkdir_existing", tool: "create_directory", args: map[string]any{"path": "subdir"}},
		{name: "mkdir_over_file", tool: "create_directory", args: map[string]any{"path": "hello.txt"}},
		{name: "mkdir_under_file", tool: "create_directory", args: map[string]any{"path": "hello.txt/nested"}},
		{name: "mkdir_protected", tool: "create_directory", args: map[string]any{"path": ".git/hooks"}},
		{name: "mkdir_cancelled", tool: "create_directory", args: map[string]any{"path": "made"}, deny: true},

		{name: "info_file", tool: "file_info", args: map[string]any{"path": "hello.txt"}},
		{name: "info_binary", tool: "file_info", args: map[string]any{"path": "binary.bin"}},
		{name: "info_abs_link", tool: "file_info", args: map[string]any{"path": "link.txt"}},
		{name: "info_rel_link", tool: "file_info", args: map[string]any{"path": "rel_link.txt"}},
		{name: "info_fifo", tool: "file_info", args: map[string]any{"path": "pipe"}},
		{name: "info_missing", tool: "file_info", args: map[string]any{"path": "nonexistent"}},
		{name: "info_nohash", cfg: schema.Config{ContentHashes: new(bool)}, tool: "file_info", args: map[string]any{"path": "crlf.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := makeFixture(t, coreTree...)
			var wide strings.Builder
			for i := range 10 {
				wide.WriteString("line " + string(rune('0'+i)) + " " + strings.Repeat("x", 40) + `\n`)
			}
			fx.add("wide.txt: "+wide.String(), `over.txt: short\n`+strings.Repeat("y", 500)+`\nafter\n`,
				"$OUTSIDE/secret.txt: secret\n")
			e := fx.engine(c.cfg)
			rec := recorder{}
			if c.deny {
				rec.answer = func(*schema.FileChangeRequest) (bool, string, error) { return false, "not today", nil }
			}
			res, err := tryCall(t, e, c.tool, c.args, rec.hooks(c.deny))
			got := resultText(res)
			if err != nil {
				got = "error " + string(err.Kind) + ": " + err.Msg
			}
			golden(t, "core_"+c.name, got)
		})
	}
}
