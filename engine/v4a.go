package engine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file owns the V4A patch format (the `apply_patch` format OpenAI models are trained on):
// parsing the envelope and the single-operation diffs, and applying one file's hunks to its bytes
// in memory. It touches no file; apply_patch.go resolves, checks, announces and commits.
//
// The envelope:
//
//	*** Begin Patch
//	*** Add File: path        then every line of the new file prefixed with "+"
//	*** Delete File: path
//	*** Update File: path     optionally followed by "*** Move to: new/path", then hunks
//	*** End Patch
//
// A hunk is a run of lines: " " context, "-" removed, "+" added (a line that is empty in the
// patch is an empty context line); "@@" starts a hunk, "@@ text" also names an anchor line (a
// class or function header) the hunk follows; several "@@ text" lines narrow step by step; a
// hunk ending in "*** End of File" must sit at the end of the file.
//
// Matching follows the published reference appliers: each hunk's old lines (context and removed)
// are sought from where the previous hunk ended, first exactly, then with trailing whitespace
// ignored, then with surrounding whitespace ignored; an anchor likewise. fsbox refuses what they
// would guess: an anchor that is not found, and old lines that match at more than one place at
// the first tier that matches at all in a hunk without an "@@ text" anchor (the reference
// appliers silently take the first; below an anchor fsbox takes the first too, the anchor being
// the model's disambiguation), are errors that tell the model how to fix the patch. A fuzzy match never rewrites a context line:
// context keeps the file's bytes, CRLF and bytes that are not UTF-8 included.

// Limits of one patch: the patch text, and the files it may touch. Bigger is refused before
// anything is read, with a hint to split it.
const (
	maxPatchBytes = 4 << 20
	maxPatchFiles = 100
)

// patchOpKind is what one file operation of a patch does.
type patchOpKind int

const (
	patchAdd patchOpKind = iota
	patchDelete
	patchUpdate
)

func (k patchOpKind) String() string {
	switch k {
	case patchAdd:
		return "Add File"
	case patchDelete:
		return "Delete File"
	}
	return "Update File"
}

// patchOp is one file operation of a V4A patch.
type patchOp struct {
	kind   patchOpKind
	path   string
	moveTo string      // Update with "*** Move to:"; "" otherwise
	add    []string    // Add: the new file's lines, without terminators
	hunks  []patchHunk // Update
	line   int         // 1-based line of the operation's header in the patch (0 for the single-operation form)
}

// patchHunk is one hunk of an Update: anchors to seek first, then the lines.
type patchHunk struct {
	anchors []string
	lines   []patchLine
	eof     bool // "*** End of File": the old lines end the file
	line    int  // 1-based line of the hunk's first line in the patch
}

// patchLine is one line of a hunk: ' ' context, '-' removed, '+' added.
type patchLine struct {
	op   byte
	text string
}

// Envelope and operation markers.
const (
	v4aBegin  = "*** Begin Patch"
	v4aEnd    = "*** End Patch"
	v4aAdd    = "*** Add File: "
	v4aDelete = "*** Delete File: "
	v4aUpdate = "*** Update File: "
	v4aMove   = "*** Move to: "
	v4aEOF    = "*** End of File"
)

// patchError is a malformed patch: msg says what is wrong and how to write it instead.
type patchError struct{ msg string }

func (p *patchError) Error() string { return p.msg }

func patchErrorf(format string, args ...any) *patchError {
	return &patchError{msg: fmt.Sprintf(format, args...)}
}

// splitPatchLines splits patch text into lines, dropping a "\r" before each "\n" (a patch sent
// with CRLF line ends means the same lines; the target's own line ends are kept by the applier).
func splitPatchLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// parseV4A parses a whole envelope. Blank lines and surrounding whitespace outside the envelope
// are ignored; anything else outside it, a missing marker, an unknown "***" line, an empty
// Update, an Add line without "+", or a path that appears twice is a patchError.
func parseV4A(text string) ([]patchOp, *patchError) {
	if len(text) > maxPatchBytes {
		return nil, patchErrorf("The patch is %d bytes; at most %d per call. Split it into several calls, a few files each.", len(text), maxPatchBytes)
	}
	lines := splitPatchLines(strings.TrimSpace(text))
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != v4aBegin {
		return nil, patchErrorf("The patch must start with the line %q.", v4aBegin)
	}
	last := len(lines) - 1
	if last < 1 || strings.TrimSpace(lines[last]) != v4aEnd {
		return nil, patchErrorf("The patch must end with the line %q.", v4aEnd)
	}
	var ops []patchOp
	i := 1
	for i < last {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, v4aAdd):
			op := patchOp{kind: patchAdd, path: strings.TrimSpace(l[len(v4aAdd):]), line: i + 1}
			i++
			for i < last && !isOpHeader(lines[i]) {
				if !strings.HasPrefix(lines[i], "+") {
					return nil, patchErrorf("Line %d: every line of an added file starts with '+', got %s. Prefix each line of %s with '+'.", i+1, quoteLine(lines[i]), op.path)
				}
				op.add = append(op.add, lines[i][1:])
				i++
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, v4aDelete):
			ops = append(ops, patchOp{kind: patchDelete, path: strings.TrimSpace(l[len(v4aDelete):]), line: i + 1})
			i++
		case strings.HasPrefix(l, v4aUpdate):
			op := patchOp{kind: patchUpdate, path: strings.TrimSpace(l[len(v4aUpdate):]), line: i + 1}
			i++
			if i < last && strings.HasPrefix(lines[i], v4aMove) {
				op.moveTo = strings.TrimSpace(lines[i][len(v4aMove):])
				if op.moveTo == "" {
					return nil, patchErrorf("Line %d: %q needs the new path after it.", i+1, strings.TrimSpace(v4aMove))
				}
				i++
			}
			end := i
			for end < last && !isOpHeader(lines[end]) {
				end++
			}
			hunks, perr := parseHunks(lines[i:end], i+1)
			if perr != nil {
				return nil, perr
			}
			if len(hunks) == 0 && op.moveTo == "" {
				return nil, patchErrorf("Line %d: the update of %s has no hunk. Give the lines to change, with ' ' context, '-' and '+' lines.", op.line, op.path)
			}
			op.hunks = hunks
			ops = append(ops, op)
			i = end
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, patchErrorf("Line %d: expected %q, %q or %q followed by a path, got %s.", i+1,
				strings.TrimSpace(v4aAdd), strings.TrimSpace(v4aDelete), strings.TrimSpace(v4aUpdate), quoteLine(l))
		}
	}
	if len(ops) == 0 {
		return nil, patchErrorf("The patch has no file operation. Add %q, %q or %q lines between the markers.",
			strings.TrimSpace(v4aAdd), strings.TrimSpace(v4aDelete), strings.TrimSpace(v4aUpdate))
	}
	return ops, checkOps(ops)
}

// checkOps refuses an operation without a path, too many operations, and a path that two
// operations touch (its result would depend on their order).
func checkOps(ops []patchOp) *patchError {
	if len(ops) > maxPatchFiles {
		return patchErrorf("The patch touches %d files; at most %d per call. Split it into several calls.", len(ops), maxPatchFiles)
	}
	seen := map[string]int{}
	for _, op := range ops {
		for _, p := range []string{op.path, op.moveTo} {
			if p == "" {
				if p == op.path {
					return patchErrorf("Line %d: %q needs a path.", op.line, op.kind.String())
				}
				continue
			}
			if at, dup := seen[p]; dup {
				return patchErrorf("Line %d: %s is also changed by the operation at line %d; change each file once per patch.", op.line, p, at)
			}
			seen[p] = op.line
		}
	}
	return nil
}

// isOpHeader reports whether l starts the next operation or ends the patch.
func isOpHeader(l string) bool {
	return strings.HasPrefix(l, v4aAdd) || strings.HasPrefix(l, v4aDelete) || strings.HasPrefix(l, v4aUpdate) ||
		strings.TrimSpace(l) == v4aEnd
}

// parseHunks parses the body of an Update (or the diff of an update_file operation); first is
// the patch line number of lines[0].
func parseHunks(lines []string, first int) ([]patchHunk, *patchError) {
	var hunks []patchHunk
	var cur *patchHunk
	start := func(n int) {
		hunks = append(hunks, patchHunk{line: n})
		cur = &hunks[len(hunks)-1]
	}
	for k, l := range lines {
		n := first + k
		switch {
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			anchor := ""
			if len(l) > 3 {
				anchor = l[3:]
			}
			// "@@" lines in a row narrow the same hunk; one after hunk lines starts the next.
			if cur == nil || len(cur.lines) > 0 || cur.eof {
				start(n)
			}
			if strings.TrimSpace(anchor) != "" {
				cur.anchors = append(cur.anchors, anchor)
			}
		case strings.TrimSpace(l) == v4aEOF:
			if cur == nil || len(cur.lines) == 0 {
				return nil, patchErrorf("Line %d: %q must follow the lines of a hunk.", n, v4aEOF)
			}
			cur.eof = true
		case strings.HasPrefix(l, "***"):
			return nil, patchErrorf("Line %d: unknown marker %s. Markers are %q, %q, %q, %q, %q and %q.", n, quoteLine(l),
				strings.TrimSpace(v4aAdd), strings.TrimSpace(v4aDelete), strings.TrimSpace(v4aUpdate), strings.TrimSpace(v4aMove), v4aEOF, v4aEnd)
		default:
			op := byte(' ')
			text := l
			if l != "" {
				op, text = l[0], l[1:]
			}
			if op != ' ' && op != '-' && op != '+' {
				return nil, patchErrorf("Line %d: a hunk line starts with ' ' (context), '-' (remove) or '+' (add), got %s. Prefix unchanged lines with a space.", n, quoteLine(l))
			}
			if cur == nil || cur.eof {
				start(n)
			}
			cur.lines = append(cur.lines, patchLine{op: op, text: text})
		}
	}
	for _, h := range hunks {
		if len(h.lines) == 0 {
			return nil, patchErrorf("Line %d: the hunk has no lines. Give ' ' context, '-' and '+' lines after %q.", h.line, "@@")
		}
	}
	return hunks, nil
}

// parseAddDiff parses the diff of a create_file operation: every line starts with "+" (an empty
// diff is an empty file).
func parseAddDiff(diff string) ([]string, *patchError) {
	if len(diff) > maxPatchBytes {
		return nil, patchErrorf("The diff is %d bytes; at most %d per call. Create the file in parts.", len(diff), maxPatchBytes)
	}
	if diff == "" {
		return nil, nil
	}
	var out []string
	for k, l := range splitPatchLines(diff) {
		if !strings.HasPrefix(l, "+") {
			return nil, patchErrorf("Line %d of the diff: every line of a created file starts with '+', got %s.", k+1, quoteLine(l))
		}
		out = append(out, l[1:])
	}
	return out, nil
}

// parseUpdateDiff parses the diff of an update_file operation: hunks without the envelope.
func parseUpdateDiff(diff string) ([]patchHunk, *patchError) {
	if len(diff) > maxPatchBytes {
		return nil, patchErrorf("The diff is %d bytes; at most %d per call. Split it into several calls.", len(diff), maxPatchBytes)
	}
	lines := splitPatchLines(diff)
	if strings.TrimSpace(diff) == "" {
		return nil, patchErrorf("The diff is empty. Give the lines to change, with ' ' context, '-' and '+' lines.")
	}
	hunks, err := parseHunks(lines, 1)
	if err != nil {
		return nil, err
	}
	return hunks, nil
}

// quoteLine quotes a patch line for a message, cut to 80 characters.
func quoteLine(l string) string {
	if utf8.RuneCountInString(l) > 80 {
		l = string([]rune(l)[:80]) + "…"
	}
	return strconv.Quote(l)
}

// fileLines is a text file split into lines, each kept with its own terminator, so the bytes
// the patch does not touch are written back as they were. The lines are substrings of one copy
// of the content (one allocation, not one per line).
type fileLines struct {
	text  []string // each line without its terminator, as bytes (string conversion, not decoded)
	term  []string // "\n", "\r\n" or "" (only the last line, when the file has no final newline)
	start []int    // byte offset of each line in the content, and len(content) last
	eol   string   // the terminator added lines get: the file's most common one, "\n" by default
}

// splitFileLines splits content into lines with their terminators.
func splitFileLines(content []byte) *fileLines {
	n := bytes.Count(content, []byte{'\n'}) + 1
	f := &fileLines{eol: "\n", text: make([]string, 0, n), term: make([]string, 0, n), start: make([]int, 0, n+1)}
	s := string(content)
	crlf, lf := 0, 0
	at := 0
	for at < len(s) {
		f.start = append(f.start, at)
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			f.text = append(f.text, s[at:])
			f.term = append(f.term, "")
			at = len(s)
			break
		}
		end, term := at+i, "\n"
		if i > 0 && s[end-1] == '\r' {
			end, term = end-1, "\r\n"
			crlf++
		} else {
			lf++
		}
		f.text = append(f.text, s[at:end])
		f.term = append(f.term, term)
		at += i + 1
	}
	f.start = append(f.start, len(s))
	if crlf > lf {
		f.eol = "\r\n"
	}
	return f
}

// matchTier is how strictly old lines were compared: exactly, ignoring trailing whitespace,
// ignoring surrounding whitespace.
type matchTier int

const (
	tierExact matchTier = iota
	tierTrimEnd
	tierTrim
)

func (t matchTier) norm(s string) string {
	switch t {
	case tierTrimEnd:
		return strings.TrimRight(s, " \t\r\f\v")
	case tierTrim:
		return strings.TrimSpace(s)
	}
	return s
}

// hunkFailure is why a hunk did not apply: no match or several, with the message for the model.
type hunkFailure struct {
	multiple bool
	msg      string
}

// applyHunks applies an Update's hunks to content in memory and returns the new bytes. name is
// the path as the patch spells it, for messages. The original's line ends are kept for every
// line not added; added lines get the file's common line end; a missing final newline stays
// missing.
func applyHunks(content []byte, hunks []patchHunk, name string) ([]byte, *hunkFailure) {
	f := splitFileLines(content)
	splices, fail := locateHunks(f, hunks, name)
	if fail != nil {
		return nil, fail
	}
	if len(splices) == 0 {
		return content, nil
	}
	return spliceLines(content, f, splices), nil
}

// splice replaces del lines of the original from line index at with the lines ins.
type splice struct {
	at, del int
	ins     []string
}

// locateHunks finds each hunk in f, in order (its @@ anchors, then its old lines, each search
// starting below the previous hunk), and turns it into splices: one per run of '-'/'+' lines
// between context lines, in line order.
func locateHunks(f *fileLines, hunks []patchHunk, name string) ([]splice, *hunkFailure) {
	var splices []splice
	cursor := 0
	for hi, h := range hunks {
		for _, a := range h.anchors {
			at, ok := seekAnchor(f.text, cursor, a)
			if !ok {
				return nil, &hunkFailure{msg: fmt.Sprintf("Hunk %d (patch line %d) of %s: the @@ line %s was not found%s. %s",
					hi+1, h.line, name, quoteLine(a), afterLine(cursor), nearestLines(f.text, cursor, []string{a}))}
			}
			cursor = at + 1
		}
		var old []string
		for _, l := range h.lines {
			if l.op != '+' {
				old = append(old, l.text)
			}
		}
		at := cursor
		if len(old) == 0 {
			// Only added lines: at the cursor (the top of the file, or just below the anchor),
			// or at the end with End of File.
			if h.eof {
				at = len(f.text)
			}
		} else {
			var fail *hunkFailure
			at, fail = seekOld(f.text, cursor, old, h.eof, len(h.anchors) > 0, hi, h.line, name)
			if fail != nil {
				return nil, fail
			}
		}
		// Turn the hunk into splices relative to at: each run of '-'/'+' between context lines.
		pos := at
		var cur *splice
		for _, l := range h.lines {
			switch l.op {
			case ' ':
				cur = nil
				pos++
			case '-':
				if cur == nil {
					splices = append(splices, splice{at: pos})
					cur = &splices[len(splices)-1]
				}
				cur.del++
				pos++
			case '+':
				if cur == nil {
					splices = append(splices, splice{at: pos})
					cur = &splices[len(splices)-1]
				}
				cur.ins = append(cur.ins, l.text)
			}
		}
		cursor = at + len(old)
	}
	return splices, nil
}

// spliceLines builds the new bytes: the original's bytes between the splices as they are, each
// added line with the file's line end; then the final newline as the original had it (a missing
// one stays missing).
func spliceLines(content []byte, f *fileLines, splices []splice) []byte {
	noFinal := len(content) > 0 && content[len(content)-1] != '\n'
	size := len(content)
	for _, sp := range splices {
		for _, t := range sp.ins {
			size += len(t) + len(f.eol)
		}
	}
	out := make([]byte, 0, size+len(f.eol))
	n := len(f.text)
	keep := func(from, to int) {
		if from >= to {
			return
		}
		out = append(out, content[f.start[from]:f.start[to]]...)
		if to == n && f.term[n-1] == "" {
			// The original's last line, which had no line end: lines may follow it now.
			out = append(out, f.eol...)
		}
	}
	prev := 0
	for _, sp := range splices {
		keep(prev, sp.at)
		for _, t := range sp.ins {
			out = append(out, t...)
			out = append(out, f.eol...)
		}
		prev = sp.at + sp.del
	}
	keep(prev, n)
	if noFinal {
		switch {
		case bytes.HasSuffix(out, []byte("\r\n")):
			out = out[:len(out)-2]
		case bytes.HasSuffix(out, []byte("\n")):
			out = out[:len(out)-1]
		}
	}
	return out
}

// seekAnchor finds the anchor line a at or after from: exactly, then ignoring trailing
// whitespace, then ignoring surrounding whitespace.
func seekAnchor(lines []string, from int, a string) (int, bool) {
	for t := tierExact; t <= tierTrim; t++ {
		want := t.norm(a)
		for i := from; i < len(lines); i++ {
			if t.norm(lines[i]) == want {
				return i, true
			}
		}
	}
	return 0, false
}

// seekOld finds where old (a hunk's context and removed lines) starts, at or after from. The
// first tier at which old matches anywhere decides; more than one place at that tier is refused
// (multiple), unless the hunk is anchored: then the first match after the anchor is the one meant.
// With eof the match must end the file; a match elsewhere is refused with that hint.
func seekOld(lines []string, from int, old []string, eof, anchored bool, hi, pline int, name string) (int, *hunkFailure) {
	work := 0 // line comparisons made, bounded by maxMatchWork
	tooCostly := func() (int, *hunkFailure) {
		return 0, &hunkFailure{msg: fmt.Sprintf(
			"Hunk %d (patch line %d) of %s: matching its %d context and '-' lines against the file's %d lines costs more than this tool allows. Split it into smaller hunks, each with a few lines of unique context.",
			hi+1, pline, name, len(old), len(lines))}
	}
	for t := tierExact; t <= tierTrim; t++ {
		norm := make([]string, len(old))
		for i, o := range old {
			norm[i] = t.norm(o)
		}
		var found []int
		if eof {
			at := len(lines) - len(old)
			if at >= from && matchAt(lines, at, norm, t) {
				return at, nil
			}
			continue
		}
		for i := from; i+len(old) <= len(lines); i++ {
			ok, cost := matchAtCost(lines, i, norm, t)
			if work += cost; work > maxMatchWork {
				return tooCostly()
			}
			if ok {
				found = append(found, i)
				if anchored {
					// Below an anchor the first match is the one meant: the anchor is the
					// disambiguation, as in the reference appliers.
					break
				}
				if len(found) > maxListedMatches {
					break
				}
			}
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return 0, &hunkFailure{multiple: true, msg: fmt.Sprintf(
				"Hunk %d (patch line %d) of %s: its context and '-' lines match %s%s, at lines %s. Add an \"@@ <line>\" anchor naming a line just above the change (a function or class header), or more context lines, so it matches once.",
				hi+1, pline, name, matchCount(found), afterLine(from), lineList(found))}
		}
	}
	if eof {
		return 0, &hunkFailure{msg: fmt.Sprintf("Hunk %d (patch line %d) of %s: with %q its context and '-' lines must be the last lines of the file, and they are not. %s",
			hi+1, pline, name, v4aEOF, quoteTail(lines))}
	}
	return 0, &hunkFailure{msg: fmt.Sprintf("Hunk %d (patch line %d) of %s: its context and '-' lines were not found%s. %s Copy the lines exactly as the file has them.",
		hi+1, pline, name, afterLine(from), nearestLines(lines, from, old))}
}

// maxListedMatches caps the match positions an ambiguity message lists.
const maxListedMatches = 10

func matchCount(found []int) string {
	if len(found) > maxListedMatches {
		return fmt.Sprintf("more than %d times", maxListedMatches)
	}
	return fmt.Sprintf("%d times", len(found))
}

func lineList(found []int) string {
	var b strings.Builder
	for i, f := range found[:min(len(found), maxListedMatches)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(f + 1))
	}
	return b.String()
}

func afterLine(from int) string {
	if from == 0 {
		return ""
	}
	return fmt.Sprintf(" after line %d (where the previous hunk or @@ line matched)", from)
}

func matchAt(lines []string, at int, norm []string, t matchTier) bool {
	ok, _ := matchAtCost(lines, at, norm, t)
	return ok
}

// matchAtCost is matchAt that also says how many lines it compared.
func matchAtCost(lines []string, at int, norm []string, t matchTier) (bool, int) {
	for j, w := range norm {
		if t.norm(lines[at+j]) != w {
			return false, j + 1
		}
	}
	return true, len(norm)
}

// maxMatchWork bounds the line comparisons of seeking one hunk (all tiers together): a hunk of
// many repeated lines against a file of the same lines would otherwise cost file lines × hunk
// lines. 1<<25 comparisons take well under a second; real hunks (a few lines of context, matched
// on their first line almost everywhere) use a tiny fraction.
const maxMatchWork = 1 << 25

// maxNearestWork bounds the comparisons nearestLines makes (file lines × patch lines).
const maxNearestWork = 1 << 21

// nearestLines quotes, numbered as read_file numbers them, the lines of the file most like old:
// the window (from from on) where the most old lines equal the file's ignoring surrounding
// whitespace, or, when none does, where the first non-blank old line best overlaps. Bounded work:
// on a huge file only the first non-blank line is sought.
func nearestLines(lines []string, from int, old []string) string {
	if len(lines) == 0 {
		return "The file is empty."
	}
	best, bestScore := -1, 0
	if (len(lines)-from)*len(old) <= maxNearestWork {
		norm := make([]string, len(old))
		for i, o := range old {
			norm[i] = strings.TrimSpace(o)
		}
		for i := from; i < len(lines); i++ {
			score := 0
			for j := range norm {
				if i+j < len(lines) && norm[j] != "" && strings.TrimSpace(lines[i+j]) == norm[j] {
					score++
				}
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
	}
	if best < 0 {
		first := ""
		for _, o := range old {
			if strings.TrimSpace(o) != "" {
				first = strings.TrimSpace(o)
				break
			}
		}
		bestLen := 0
		for i := from; i < len(lines) && first != ""; i++ {
			if n := commonPrefix(strings.TrimSpace(lines[i]), first); n > bestLen {
				best, bestLen = i, n
			}
		}
		if best < 0 || bestLen < 3 {
			return "No similar lines are in the file" + afterLine(from) + "; read it again to see its current content."
		}
	}
	lo := max(best-1, 0)
	hi := min(best+max(len(old), 1)+1, len(lines))
	if hi-lo > 12 {
		hi = lo + 12
	}
	var b strings.Builder
	b.WriteString("The nearest lines in the file are:\n")
	for i := lo; i < hi; i++ {
		l := lines[i]
		if utf8.RuneCountInString(l) > 200 {
			l = string([]rune(l)[:200]) + "…"
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, strings.ToValidUTF8(l, "\uFFFD"))
	}
	return b.String()
}

// quoteTail quotes the last lines of the file, for an End of File hunk that does not match.
func quoteTail(lines []string) string {
	if len(lines) == 0 {
		return "The file is empty."
	}
	var b strings.Builder
	b.WriteString("The file ends with:\n")
	for i := max(len(lines)-4, 0); i < len(lines); i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, strings.ToValidUTF8(lines[i], "\uFFFD"))
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// addContent is the content of an added file: every line ends with "\n" (the envelope cannot
// say that a new file has no final newline).
func addContent(lines []string) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	out := make([]byte, 0, n)
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}
