package engine

import (
	"strings"
	"testing"
	"time"
)

// hunksOf parses an update diff or fails the test.
func hunksOf(t *testing.T, diff string) []patchHunk {
	t.Helper()
	h, err := parseUpdateDiff(diff)
	if err != nil {
		t.Fatalf("parseUpdateDiff: %s", err.msg)
	}
	return h
}

func TestApplyHunks(t *testing.T) {
	cases := []struct {
		name, old, diff, want string
	}{
		{"replace one line", "a\nb\nc\n", "@@\n a\n-b\n+B\n c\n", "a\nB\nc\n"},
		{"CRLF file stays CRLF, added lines too", "a\r\nb\r\nc\r\n", "@@\n a\n-b\n+B\n+B2\n c\n", "a\r\nB\r\nB2\r\nc\r\n"},
		{"no final newline kept", "a\nb", "@@\n a\n-b\n+B\n", "a\nB"},
		{"no final newline kept when appending", "a\nb", "@@\n b\n+c\n*** End of File\n", "a\nb\nc"},
		{"bytes that are not UTF-8 outside the hunk survive", "x\xff\ny\nz\n", "@@\n-y\n+Y\n z\n", "x\xff\nY\nz\n"},
		{"trailing whitespace fuzz keeps the file's context bytes", "a  \nb\nc\n", "@@\n a\n-b\n+B\n", "a  \nB\nc\n"},
		{"trimmed fuzz", "\tif x {\n\t\ty()\n\t}\n", "@@\n if x {\n-  y()\n+\t\tz()\n }\n", "\tif x {\n\t\tz()\n\t}\n"},
		{"anchor picks the second of two equal blocks", "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n",
			"@@ func b() {\n-\treturn 1\n+\treturn 2\n", "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n"},
		{"two hunks in order", "1\n2\n3\n4\n5\n6\n7\n8\n", "@@\n 1\n-2\n+two\n 3\n@@\n 6\n-7\n+seven\n 8\n", "1\ntwo\n3\n4\n5\n6\nseven\n8\n"},
		{"pure insertion at the top", "a\n", "@@\n+first\n", "first\na\n"},
		{"empty file gets lines", "", "@@\n+x\n+y\n", "x\ny\n"},
		{"delete everything", "a\nb\n", "@@\n-a\n-b\n", ""},
		{"EOF hunk prefers the end", "x\ny\nx\ny\n", "@@\n x\n-y\n+Y\n*** End of File\n", "x\ny\nx\nY\n"},
		{"blank patch line is empty context", "a\n\nb\n", "@@\n a\n\n-b\n+B\n", "a\n\nB\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, fail := applyHunks([]byte(tc.old), hunksOf(t, tc.diff), "f")
			if fail != nil {
				t.Fatalf("failed: %s", fail.msg)
			}
			if string(got) != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestApplyHunks_Failures(t *testing.T) {
	file := "package p\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	_, fail := applyHunks([]byte(file), hunksOf(t, "@@\n-\treturn 1\n+\treturn 2\n"), "p.go")
	if fail == nil || !fail.multiple || !strings.Contains(fail.msg, "2 times") || !strings.Contains(fail.msg, "lines 4, 8") {
		t.Fatalf("ambiguous context: %+v", fail)
	}
	if !strings.Contains(fail.msg, "@@") {
		t.Fatalf("the ambiguity message does not say how to anchor: %s", fail.msg)
	}
	_, fail = applyHunks([]byte(file), hunksOf(t, "@@\n func a() {\n-\treturn 7\n+\treturn 2\n"), "p.go")
	if fail == nil || fail.multiple || !strings.Contains(fail.msg, "nearest lines") || !strings.Contains(fail.msg, "     3\tfunc a() {") {
		t.Fatalf("context not found should quote the nearest lines numbered: %+v", fail)
	}
	_, fail = applyHunks([]byte(file), hunksOf(t, "@@ func c() {\n-\treturn 1\n+\treturn 2\n"), "p.go")
	if fail == nil || !strings.Contains(fail.msg, "func c()") {
		t.Fatalf("missing anchor: %+v", fail)
	}
	_, fail = applyHunks([]byte(file), hunksOf(t, "@@\n-func a() {\n+func A() {\n*** End of File\n"), "p.go")
	if fail == nil || !strings.Contains(fail.msg, "ends with") {
		t.Fatalf("EOF hunk not at the end: %+v", fail)
	}
}

func TestParseV4A(t *testing.T) {
	ops, err := parseV4A("*** Begin Patch\n*** Add File: n.txt\n+hi\n*** Update File: a.go\n*** Move to: b.go\n@@ func f() {\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n")
	if err != nil {
		t.Fatal(err.msg)
	}
	if len(ops) != 3 || ops[0].kind != patchAdd || ops[0].add[0] != "hi" || ops[1].moveTo != "b.go" || ops[1].hunks[0].anchors[0] != "func f() {" || ops[2].kind != patchDelete {
		t.Fatalf("ops = %+v", ops)
	}
	bad := map[string]string{
		"no begin":       "*** Update File: a\n@@\n-x\n*** End Patch",
		"no end":         "*** Begin Patch\n*** Update File: a\n@@\n-x\n",
		"bad add line":   "*** Begin Patch\n*** Add File: a\nhello\n*** End Patch",
		"unknown marker": "*** Begin Patch\n*** Update File: a\n*** Rename: b\n*** End Patch",
		"empty update":   "*** Begin Patch\n*** Update File: a\n*** End Patch",
		"same path":      "*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch",
		"bad hunk line":  "*** Begin Patch\n*** Update File: a\n@@\n!x\n*** End Patch",
		"nothing":        "*** Begin Patch\n*** End Patch",
	}
	for name, p := range bad {
		if _, err := parseV4A(p); err == nil {
			t.Errorf("%s: parsed; want an error", name)
		} else if !strings.Contains(err.msg, "Line") && !strings.Contains(err.msg, "must") && !strings.Contains(err.msg, "no file") {
			t.Errorf("%s: message does not say where: %s", name, err.msg)
		}
	}
	if _, err := parseV4A("*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n"); err != nil {
		t.Fatalf("CRLF patch text: %s", err.msg)
	}
}

// TestApplyHunks_AnchorTakesFirstBelow: below an "@@" anchor the first match is the one meant,
// even when the same lines occur again further down; without an anchor that is ambiguous.
func TestApplyHunks_AnchorTakesFirstBelow(t *testing.T) {
	file := "def a():\n    return 1\n\ndef b():\n    return 1\n\ndef c():\n    return 1\n"
	got, fail := applyHunks([]byte(file), hunksOf(t, "@@ def b():\n-    return 1\n+    return 2\n"), "p.py")
	if fail != nil || string(got) != "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 1\n" {
		t.Fatalf("anchored: %v %q", fail, got)
	}
}

// TestApplyHunks_MatchWorkBounded: a hunk of many repeated lines against a file of the same
// lines (file lines × hunk lines comparisons) is refused at the work bound, quickly, with a hint.
func TestApplyHunks_MatchWorkBounded(t *testing.T) {
	file := strings.Repeat("a\n", 200000)
	diff := "@@\n" + strings.Repeat("-a\n", 3000) + "-b\n+c\n"
	done := make(chan *hunkFailure, 1)
	go func() {
		_, fail := applyHunks([]byte(file), hunksOf(t, diff), "big.txt")
		done <- fail
	}()
	select {
	case fail := <-done:
		if fail == nil || !strings.Contains(fail.msg, "Split it into smaller hunks") {
			t.Fatalf("want the work bound's refusal, got %+v", fail)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("matching a pathological hunk is not bounded")
	}
}

// FuzzV4A: any patch text against any file content parses or is refused, applies or is refused,
// and never panics; a patch of context lines only gives the file back unchanged.
func FuzzV4A(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n a\n-b\n+c\n*** End of File\n*** End Patch", "x\na\nb")
	f.Add("@@\n-\r\n+\n", "\r\n\r\n")
	f.Add("@@ \n@@\n+x\n", "")
	f.Fuzz(func(t *testing.T, patch, content string) {
		if ops, err := parseV4A(patch); err == nil {
			for _, op := range ops {
				applyHunks([]byte(content), op.hunks, op.path)
			}
		}
		hunks, err := parseUpdateDiff(patch)
		if err != nil {
			return
		}
		applyHunks([]byte(content), hunks, "f")
		var ctx strings.Builder
		ctx.WriteString("@@\n")
		for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n")[:min(3, strings.Count(content, "\n"))] {
			ctx.WriteString(" " + strings.TrimSuffix(l, "\r") + "\n")
		}
		if h, err := parseUpdateDiff(ctx.String()); err == nil {
			if got, fail := applyHunks([]byte(content), h, "f"); fail == nil && string(got) != content {
				t.Fatalf("context-only hunk changed %q into %q", content, got)
			}
		}
	})
}
