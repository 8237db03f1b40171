// Package textdiff renders bounded unified diffs for change requests and edit events.
//
// The rules are those of the protocol (docs/protocol.md §7):
//
//  1. Equal texts give an empty diff, not truncated.
//  2. When either side is over [MaxSourceChars] characters, or
//     (old lines + 1) × (new lines + 1) is over [MaxLinePairs], only the two header lines are
//     returned, with truncated = true.
//  3. Otherwise the diff is unified, from a/<path> to b/<path>, with 3 lines of context and GNU
//     hunk headers (-0,0 / +0,0 for an empty side), lines split on \n only, and the line
//     `\ No newline at end of file` after a line that has no final newline.
//  4. A diff longer than [MaxDiffChars] characters is cut after the last whole line that fits,
//     with truncated = true.
//  5. A label holding a control or otherwise non-printable character is quoted the way git quotes
//     it (C escapes, octal for other bytes), so a file name cannot forge a header or a hunk.
//
// Every line of a diff ends with a newline, the last one included, so a diff that is not truncated
// applies as it is with GNU patch and git apply (both reject an unterminated last line). This
// differs from pydantic-ai-harness, whose diff text has no final newline and so cannot be fed to
// patch without a fix-up; docs/protocol.md §7 asks for diffs that apply.
//
// The line diff itself is github.com/hexops/gotextdiff's Myers implementation, whose time and
// memory grow with (N+M)·D; textdiff trims the common leading and trailing lines first, so only the
// changed window (plus its context) is diffed, and rule 2 bounds the rest.
package textdiff

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hexops/gotextdiff"
	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"
)

// Limits of rule 2 and 4; the numbers are the protocol's.
const (
	// MaxDiffChars is the longest diff text returned, in Unicode code points.
	MaxDiffChars = 8192
	// MaxSourceChars is the longest side that is diffed, in Unicode code points (inclusive).
	MaxSourceChars = 4 * MaxDiffChars
	// MaxLinePairs bounds (old lines + 1) × (new lines + 1), lines counted as \n + 1.
	MaxLinePairs = 65536
)

// context is the number of unchanged lines shown around a change; gotextdiff fixes it at 3.
const context = 3

// Unified returns the unified diff from old to new of the file at path (root-relative, as in the
// event), and whether the diff does not show the whole change.
func Unified(path, old, new string) (diff string, truncated bool) {
	if old == new {
		return "", false
	}
	if tooBig(old, new) {
		return HeadersOnly(path), true
	}
	var b strings.Builder
	writeHeaders(&b, path)
	writeHunks(&b, old, new)
	return cut(b.String())
}

// HeadersOnly returns the two header lines of a diff of path, for a change whose content is not
// shown (too large, or unknown). Callers report it as truncated.
func HeadersOnly(path string) string {
	var b strings.Builder
	writeHeaders(&b, path)
	text, _ := cut(b.String())
	return text
}

func tooBig(old, new string) bool {
	if len(old) > MaxSourceChars && utf8.RuneCountInString(old) > MaxSourceChars {
		return true
	}
	if len(new) > MaxSourceChars && utf8.RuneCountInString(new) > MaxSourceChars {
		return true
	}
	pairs := int64(strings.Count(old, "\n")+1) * int64(strings.Count(new, "\n")+1)
	return pairs > MaxLinePairs
}

func writeHeaders(b *strings.Builder, path string) {
	b.WriteString("--- ")
	b.WriteString(quoteLabel("a/" + path))
	b.WriteString("\n+++ ")
	b.WriteString(quoteLabel("b/" + path))
	b.WriteString("\n")
}

// writeHunks diffs only the window between the common leading and trailing lines, widened by the
// context lines, and shifts the hunks back to file line numbers.
func writeHunks(b *strings.Builder, old, new string) {
	a, z := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(z) && a[pre] == z[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(z)-pre && a[len(a)-1-suf] == z[len(z)-1-suf] {
		suf++
	}
	lo := pre - min(pre, context)
	hiA := len(a) - suf + min(suf, context)
	hiZ := len(z) - suf + min(suf, context)
	before := strings.Join(a[lo:hiA], "")
	after := strings.Join(z[lo:hiZ], "")

	edits := myers.ComputeEdits(span.URIFromPath("file"), before, after)
	u := gotextdiff.ToUnified("", "", before, edits)
	for _, h := range u.Hunks {
		writeHunk(b, h, lo)
	}
}

// writeHunk formats one hunk with GNU range rules: "N" for one line, "N,K" otherwise, and "0,0"
// for an empty side (gotextdiff prints "1" there, which patch and git apply reject).
func writeHunk(b *strings.Builder, h *gotextdiff.Hunk, shift int) {
	from, to := 0, 0
	for _, l := range h.Lines {
		switch l.Kind {
		case gotextdiff.Delete:
			from++
		case gotextdiff.Insert:
			to++
		default:
			from++
			to++
		}
	}
	b.WriteString("@@ -")
	writeRange(b, h.FromLine+shift, from)
	b.WriteString(" +")
	writeRange(b, h.ToLine+shift, to)
	b.WriteString(" @@\n")
	for _, l := range h.Lines {
		switch l.Kind {
		case gotextdiff.Delete:
			b.WriteByte('-')
		case gotextdiff.Insert:
			b.WriteByte('+')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(l.Content)
		if !strings.HasSuffix(l.Content, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func writeRange(b *strings.Builder, start, count int) {
	switch count {
	case 0:
		// An empty range names the line before it; only an empty side has no lines in a hunk.
		b.WriteString(strconv.Itoa(start - 1))
		b.WriteString(",0")
	case 1:
		b.WriteString(strconv.Itoa(start))
	default:
		b.WriteString(strconv.Itoa(start))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(count))
	}
}

// splitLines splits after each \n; a final fragment without \n is a line of its own.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// cut applies rule 4: at most MaxDiffChars code points, ending on a whole line when there is a
// newline to cut at.
func cut(text string) (string, bool) {
	if len(text) <= MaxDiffChars {
		return text, false
	}
	end, n := len(text), 0
	for i := range text {
		if n == MaxDiffChars {
			end = i
			break
		}
		n++
	}
	if end == len(text) {
		return text, false
	}
	// Keep whole lines, each with its newline, so even a cut diff is well-formed up to its end.
	if nl := strings.LastIndexByte(text[:end], '\n'); nl >= 0 {
		return text[:nl+1], true
	}
	return text[:end], true
}

// quoteLabel quotes a header label git-style when it holds a character that is not printable.
func quoteLabel(label string) string {
	if !needsQuote(label) {
		return label
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(label); {
		r, size := utf8.DecodeRuneInString(label[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case strings.ContainsRune(cEscapes, r):
			b.WriteByte('\\')
			b.WriteByte(cEscapeLetters[strings.IndexRune(cEscapes, r)])
		case printable(r, size):
			b.WriteString(label[i : i+size])
		default:
			for _, c := range []byte(label[i : i+size]) {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + c>>3&7)
				b.WriteByte('0' + c&7)
			}
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// The control characters with a C escape letter, in the order of cEscapeLetters.
const (
	cEscapes       = "\a\b\t\n\v\f\r"
	cEscapeLetters = "abtnvfr"
)

func needsQuote(label string) bool {
	for i := 0; i < len(label); {
		r, size := utf8.DecodeRuneInString(label[i:])
		if !printable(r, size) {
			return true
		}
		i += size
	}
	return false
}

// printable reports whether a decoded rune may appear in a label as is; invalid UTF-8 may not.
func printable(r rune, size int) bool {
	if r == utf8.RuneError && size <= 1 {
		return false
	}
	return r == ' ' || unicode.IsPrint(r)
}
