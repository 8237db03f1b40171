package engine

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsbox/fsbox/schema"
)

func intp(n int) *int { return &n }

func readText(t *testing.T, e *Engine, args schema.ReadFileArgs) string {
	t.Helper()
	return mustCall(t, e, "read_file", args, Hooks{}).(*schema.ReadFileResult).Text
}

func TestReadFile_Window(t *testing.T) {
	fx := makeFixture(t,
		`multi.txt: line1\nline2\nline3\nline4\nline5\n`,
		"hello.txt: Hello, world!\n",
		"nonl.txt: no newline",
		"empty.txt: ",
		`crlf.txt: a\r\nb\r\n`,
	)
	e := fx.engine(schema.Config{})
	cases := []struct {
		args schema.ReadFileArgs
		want string
	}{
		{schema.ReadFileArgs{Path: "hello.txt"}, "[hello.txt | 1 lines | hash:d9014c462484]\n     1\tHello, world!\n"},
		{schema.ReadFileArgs{Path: "multi.txt", Offset: intp(2), Limit: intp(2)}, "     3\tline3\n     4\tline4\n... (1 more lines. Use offset=4 to continue reading.)\n"},
		{schema.ReadFileArgs{Path: "multi.txt", Offset: intp(1), Limit: intp(4)}, "     2\tline2\n     3\tline3\n     4\tline4\n     5\tline5\n"},
		{schema.ReadFileArgs{Path: "nonl.txt"}, "1 lines"},
		{schema.ReadFileArgs{Path: "nonl.txt"}, "     1\tno newline\n"},
		{schema.ReadFileArgs{Path: "empty.txt", Offset: intp(7)}, "0 lines | hash:e3b0c44298fc]\n(empty file)\n"},
		{schema.ReadFileArgs{Path: "crlf.txt"}, "     1\ta\r\n     2\tb\r\n"},
	}
	for _, c := range cases {
		got := readText(t, e, c.args)
		if !strings.Contains(got, c.want) && !strings.HasSuffix(got, c.want) {
			t.Errorf("read_file(%+v) = %q; want it to contain %q", c.args, got, c.want)
		}
	}
	_, err := tryCall(t, e, "read_file", schema.ReadFileArgs{Path: "multi.txt", Offset: intp(5)}, Hooks{})
	wantKind(t, "offset 5", err, "offset_out_of_range")
	if err.Msg != "Offset 5 exceeds file length (5 lines)." {
		t.Errorf("msg = %q", err.Msg)
	}
}

func TestReadFile_MaxReadChars(t *testing.T) {
	var ten strings.Builder
	for i := range 10 {
		fmt.Fprintf(&ten, "line %d %s\n", i, strings.Repeat("x", 40))
	}
	fx := makeFixture(t, "ten.txt: "+strings.ReplaceAll(ten.String(), "\n", `\n`),
		`over.txt: short\n`+strings.Repeat("y", 500)+`\nafter\n`)
	e := fx.engine(schema.Config{MaxReadChars: intp(400)})
	got := readText(t, e, schema.ReadFileArgs{Path: "ten.txt"})
	if !strings.HasSuffix(got, "     2\tline 1 "+strings.Repeat("x", 40)+"\n... (8 more lines. Use offset=2 to continue reading.)\n") {
		t.Errorf("ten = %q", got)
	}
	got = readText(t, e, schema.ReadFileArgs{Path: "over.txt", Offset: intp(1)})
	want := "... (Line 2 is 501 characters and does not fit the read window. Use offset=1, column=0 to read it in pieces, or offset=2 to skip it.)\n"
	if !strings.HasSuffix(got, "]\n"+want) {
		t.Errorf("over = %q", got)
	}
}

// TestReadFile_Content: the typed content is the window's lines exactly as in the file (no
// gutter, terminators kept), so an adapter never has to parse the numbered text.
func TestReadFile_Content(t *testing.T) {
	fx := makeFixture(t, `multi.txt: line1\nline2\r\nline3\nline4`, "empty.txt: ", "bin.dat: a\x00b")
	e := fx.engine(schema.Config{})
	cases := []struct {
		args schema.ReadFileArgs
		want *string
	}{
		{schema.ReadFileArgs{Path: "multi.txt"}, strp("line1\nline2\r\nline3\nline4")},
		{schema.ReadFileArgs{Path: "multi.txt", Offset: intp(1), Limit: intp(2)}, strp("line2\r\nline3\n")},
		{schema.ReadFileArgs{Path: "empty.txt"}, nil},
		{schema.ReadFileArgs{Path: "bin.dat"}, nil},
	}
	for _, c := range cases {
		res := mustCall(t, e, "read_file", c.args, Hooks{}).(*schema.ReadFileResult)
		switch {
		case c.want == nil && res.Content != nil:
			t.Errorf("read_file(%+v).content = %q; want absent", c.args, *res.Content)
		case c.want != nil && (res.Content == nil || *res.Content != *c.want):
			t.Errorf("read_file(%+v).content = %v; want %q", c.args, res.Content, *c.want)
		}
	}
}

func strp(s string) *string { return &s }

// TestReadFile_LimitIsCapped: max_read_lines caps a larger limit, and the notice says so.
func TestReadFile_LimitIsCapped(t *testing.T) {
	fx := makeFixture(t, `ten.txt: 1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n`)
	e := fx.engine(schema.Config{MaxReadLines: intp(5)})
	res := mustCall(t, e, "read_file", schema.ReadFileArgs{Path: "ten.txt", Limit: intp(8)}, Hooks{}).(*schema.ReadFileResult)
	if res.LinesShown != 5 || !strings.HasSuffix(res.Text, "     5\t5\n... (5 more lines; limit is capped at 5 lines. Use offset=5 to continue reading.)\n") {
		t.Errorf("limit 8 under max_read_lines 5: %d lines shown:\n%s", res.LinesShown, res.Text)
	}
	res = mustCall(t, e, "read_file", schema.ReadFileArgs{Path: "ten.txt", Limit: intp(3)}, Hooks{}).(*schema.ReadFileResult)
	if res.LinesShown != 3 || strings.Contains(res.Text, "capped") {
		t.Errorf("limit 3: %d lines shown:\n%s", res.LinesShown, res.Text)
	}
}

// TestReadFile_LongLineInPieces: a line too long for the window is read whole by following
// next_column, piece by piece, each within max_read_chars; multi-byte characters split across
// read chunks and invalid bytes come through as read_file shows them elsewhere.
func TestReadFile_LongLineInPieces(t *testing.T) {
	fx := makeFixture(t)
	line := strings.Repeat("é", 150_000) + "\xff" + strings.Repeat("ab", 40_000) + "\n"
	writeRaw(t, fx, "min.json", []byte(line+"tail\n"))
	e := fx.engine(schema.Config{MaxReadChars: intp(30_000)})
	read := func(args schema.ReadFileArgs) *schema.ReadFileResult {
		return mustCall(t, e, "read_file", args, Hooks{}).(*schema.ReadFileResult)
	}
	first := read(schema.ReadFileArgs{Path: "min.json"})
	if !strings.Contains(first.Text, "Use offset=0, column=0 to read it in pieces, or offset=1 to skip it.") {
		t.Fatalf("the dead end offers no way in:\n%s", first.Text)
	}
	var got strings.Builder
	col, pieces := 0, 0
	for {
		res := read(schema.ReadFileArgs{Path: "min.json", Column: intp(col)})
		pieces++
		if n := utf8.RuneCountInString(res.Text); n > 30_000 {
			t.Fatalf("piece %d is %d characters, over max_read_chars", pieces, n)
		}
		got.WriteString(*res.Content)
		if res.NextColumn == nil {
			if res.NextOffset == nil || *res.NextOffset != 1 || !strings.Contains(res.Text, "End of line 1. 1 more lines. Use offset=1") {
				t.Errorf("last piece: next_offset %v, text tail %q", res.NextOffset, res.Text[len(res.Text)-80:])
			}
			break
		}
		if *res.NextColumn <= col {
			t.Fatalf("next_column %d does not advance from %d", *res.NextColumn, col)
		}
		col = *res.NextColumn
	}
	want := strings.Replace(line, "\xff", "\uFFFD", 1)
	if got.String() != want || pieces < 8 {
		t.Errorf("pieces (%d) put together differ from the line (%d vs %d chars)", pieces, utf8.RuneCountInString(got.String()), utf8.RuneCountInString(want))
	}
	_, err := tryCall(t, e, "read_file", schema.ReadFileArgs{Path: "min.json", Offset: intp(1), Column: intp(5)}, Hooks{})
	wantKind(t, "column past the end", err, "offset_out_of_range")
}
