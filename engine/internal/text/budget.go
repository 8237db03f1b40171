package text

import (
	"strconv"
	"unicode/utf8"
)

// The output budget. Entry caps (max_search_results, max_list_results, max_find_results) bound
// how many entries a listing shows, not how long they are: one matching line can be 10 MB, one
// path 250 KB. So every listing tool also counts the characters of its text against
// max_output_chars:
//
//  1. Entries are added in order while the text, entries and separators, stays within the
//     budget; the first entry that does not fit ends the listing, and the result is truncated.
//  2. The closing notices (truncation, skipped files, hidden entries) come after and are not
//     counted; together they are under 450 characters whatever the tree holds (paths are named
//     only while they fit; hidden entries are only counted).
//  3. The typed fields carry the same entries as the text, so the whole reply stays within a
//     small multiple of the budget on the wire.
//  4. A walk does not enter a directory whose displayed path alone is longer than the budget:
//     nothing below it could be shown. Such a cut also marks the result truncated.
//
// It does not bound the work of a walk (maxFindDirReads and the entry caps do that) nor the
// memory a search worker needs to hold one line (at most maxSearchFileBytes, see scan).

// Budget counts the characters of one result's text (rule 1).
type Budget struct {
	Limit int
	Used  int
	Over  bool // an entry did not fit
}

// Take counts n more characters and reports whether they fit; once an entry did not fit, none
// does, so the text stays a prefix of the full listing.
func (b *Budget) Take(n int) bool {
	if b.Over || b.Used+n > b.Limit {
		b.Over = true
		return false
	}
	b.Used += n
	return true
}

// TooLong reports whether a path shown as s cannot fit in the budget at all (rule 4).
func (b *Budget) TooLong(s string) bool {
	return len(s) > b.Limit && utf8.RuneCountInString(s) > b.Limit
}

// BudgetLine is the notice of a result cut by the budget; narrow says how to ask for less.
func BudgetLine(limit int, narrow string) string {
	return "[... truncated at " + strconv.Itoa(limit) + " characters of output (max_output_chars); " + narrow + "]"
}

// NoticePaths joins display paths for a notice, naming them only while the list stays under
// MaxNoticeChars, and says how many were left unnamed.
func NoticePaths(paths []string, total int) string {
	var out []byte
	named := 0
	for _, p := range paths {
		if named > 0 && len(out)+len(p)+2 > MaxNoticeChars || named == 0 && len(p) > MaxNoticeChars {
			break
		}
		if named > 0 {
			out = append(out, ", "...)
		}
		out = append(out, p...)
		named++
	}
	if rest := total - named; rest > 0 {
		if named > 0 {
			out = append(out, ", "...)
		}
		out = append(out, "and "+strconv.Itoa(rest)+" more"...)
	}
	return string(out)
}

// MaxNoticeChars bounds the paths one notice names (rule 2).
const MaxNoticeChars = 200

// Long matching lines (search_files): a line longer than MatchWidth characters is shown as a
// window of MatchWidth characters that starts MatchLead characters before the first match (or
// at the line's start), followed by a marker giving the window (1-based, inclusive) and the
// line's length in characters: "<window> [... line cut: showing chars 4921-5170 of 9500000]".
const (
	MatchWidth = 250
	MatchLead  = 80
)

// CutLine returns the displayed text of a matching line. locate gives the first match's byte
// range; it is called only for a long line, since it costs a second regexp run. Characters
// count runes, an invalid byte as one.
func CutLine(line []byte, locate func([]byte) []int) string {
	if len(line) <= MatchWidth {
		return DecodeLenient(line)
	}
	total := utf8.RuneCount(line)
	if total <= MatchWidth {
		return DecodeLenient(line)
	}
	at := 0
	if loc := locate(line); loc != nil {
		at = utf8.RuneCount(line[:loc[0]])
	}
	first := max(at-MatchLead, 0)
	last := min(first+MatchWidth, total) // exclusive, in runes
	first = max(last-MatchWidth, 0)
	lo := RuneOffset(line, 0, 0, first)
	hi := RuneOffset(line, lo, first, last)
	return DecodeLenient(line[lo:hi]) + " [... line cut: showing chars " + strconv.Itoa(first+1) + "-" +
		strconv.Itoa(last) + " of " + strconv.Itoa(total) + "]"
}

// RuneOffset returns the byte offset of rune index want in b, counting from byte off, which is
// rune index at.
func RuneOffset(b []byte, off, at, want int) int {
	for at < want && off < len(b) {
		_, n := utf8.DecodeRune(b[off:])
		off += n
		at++
	}
	return off
}
