package engine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// snippetContext is how many lines around a change the result of str_replace and insert shows.
const snippetContext = 4

// strReplaceBasedEditTool serves str_replace_based_edit_tool, Anthropic's text editor
// (text_editor_20250728: view, create, str_replace, insert; no undo_edit), on the engine's own
// paths: view reads as read_file reads (a directory as directory_tree with two levels), create
// creates a file as write_file does but never over an existing one (making missing parent
// directories, as apply_patch's Add File does), str_replace and insert change the file
// as edit_file does (raw bytes, announced with a diff, committed crash-atomically and guarded by
// the hash the change was computed from).
//
// Arguments that belong to another command are refused (invalid_arguments naming them), so a
// call is never half understood. For str_replace on a CRLF file, old_str and new_str written
// with "\n" line ends match and are written with "\r\n" when the exact bytes occur nowhere.
func (e *Engine) strReplaceBasedEditTool(c *call, a *schema.StrReplaceBasedEditToolArgs) (*schema.StrReplaceBasedEditToolResult, error) {
	allowed := map[string][]string{
		"view":        {"view_range"},
		"create":      {"file_text"},
		"str_replace": {"old_str", "new_str"},
		"insert":      {"insert_line", "insert_text", "new_str"},
	}
	want, ok := allowed[a.Command]
	if !ok {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments,
			"Unrecognized command %s. The allowed commands are: view, create, str_replace, insert.", fserr.PyRepr(a.Command))
	}
	given := map[string]bool{"view_range": a.ViewRange != nil, "file_text": a.FileText != nil, "old_str": a.OldStr != nil,
		"new_str": a.NewStr != nil, "insert_line": a.InsertLine != nil, "insert_text": a.InsertText != nil}
	for _, name := range []string{"view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text"} {
		if given[name] && !contains(want, name) {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Argument '%s' does not belong to command %s; it takes %s.", name, fserr.PyRepr(a.Command), strings.Join(want, ", "))
		}
	}
	switch a.Command {
	case "view":
		return e.editorView(c, a)
	case "create":
		if a.FileText == nil {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Parameter 'file_text' is required for command: create.")
		}
		return e.editorCreate(c, a)
	case "str_replace":
		if a.OldStr == nil {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Parameter 'old_str' is required for command: str_replace.")
		}
		return e.editorChange(c, a)
	}
	if a.InsertLine == nil {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Parameter 'insert_line' is required for command: insert.")
	}
	if a.InsertText == nil && a.NewStr == nil || a.InsertText != nil && a.NewStr != nil {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Parameter 'insert_text' is required for command: insert (give it once; new_str is its older name).")
	}
	return e.editorChange(c, a)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// editorEdit computes the text editor's str_replace or insert on old: the new content, its
// first changed line (1-based) and how many lines the new text has.
func editorEdit(c *call, r *resolved, a *schema.StrReplaceBasedEditToolArgs, old []byte) (updated []byte, firstLine, shownLines int, _ *Error) {
	if a.Command == "str_replace" {
		return strReplace(c.tool, r, a, old)
	}
	text := a.InsertText
	if text == nil {
		text = a.NewStr
	}
	updated, ferr := insertAt(c.tool, r, old, *a.InsertLine, *text)
	if ferr != nil {
		return nil, 0, 0, ferr
	}
	return updated, *a.InsertLine + 1, max(strings.Count(strings.TrimSuffix(*text, "\n"), "\n")+1, 1), nil
}

// editorView is the view command: a file with line numbers, or a directory two levels deep.
func (e *Engine) editorView(c *call, a *schema.StrReplaceBasedEditToolArgs) (*schema.StrReplaceBasedEditToolResult, error) {
	r, _, rerr := e.resolveFor(c.tool, a.Path, accessRead)
	if rerr != nil {
		return nil, rerr
	}
	if r.exists && r.info.IsDir() {
		return e.editorViewDir(c, a, r)
	}
	first, last, verr := viewRange(c.tool, a.ViewRange)
	if verr != nil {
		return nil, verr
	}
	args := &schema.ReadFileArgs{Path: a.Path}
	off := first - 1
	args.Offset = &off
	if last != -1 {
		n := last - first + 1
		args.Limit = &n
	}
	rf, err := e.readFileWithin(c, args, e.maxReadChars, true) // the view is built from the content
	if err != nil {
		if ee, ok := err.(*Error); ok && ee.Kind == schema.KindOffsetOutOfRange {
			return nil, fserr.Errorf(c.tool, ee.Path, schema.KindOffsetOutOfRange, "Invalid view_range %s: its first element %d is past the end of the file (%d lines).", jsonInts(a.ViewRange), first, lineTotal(ee.Msg))
		}
		return nil, err
	}
	res := &schema.StrReplaceBasedEditToolResult{Path: rf.Path, Hash: rf.Hash}
	if rf.Binary {
		res.Text = strings.Replace(rf.Text, "read_file", c.tool, -1)
		return res, nil
	}
	if last != -1 && last > rf.TotalLines {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Invalid view_range %s: its second element %d is past the end of the file (%d lines); use -1 for the end.", jsonInts(a.ViewRange), last, rf.TotalLines)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here's the result of running `cat -n` on %s:\n", a.Path)
	content := ""
	if rf.Content != nil {
		content = *rf.Content
	}
	n := first
	for len(content) > 0 {
		line, rest, _ := strings.Cut(content, "\n")
		content = rest
		fmt.Fprintf(&b, "%6d\t%s\n", n, strings.TrimSuffix(line, "\r"))
		n++
	}
	if rf.NextOffset != nil && (last == -1 || *rf.NextOffset < last) {
		res.Truncated = true
		end := "-1"
		if last != -1 {
			end = strconv.Itoa(last)
		}
		if rf.LinesShown == 0 {
			fmt.Fprintf(&b, "[Line %d is too long to show here (more than %d characters). View from line %d on with view_range [%d, %s].]\n", first, e.maxReadChars, first+1, first+1, end)
		} else {
			fmt.Fprintf(&b, "[Shown lines %d-%d of %d; the rest did not fit. Continue with view_range [%d, %s].]\n", first, n-1, rf.TotalLines, n, end)
		}
	}
	res.Text = b.String()
	return res, nil
}

// editorViewDir is the view command on a directory: directory_tree two levels deep, in the
// words of this tool (which has no view_range for a directory and no max_depth).
func (e *Engine) editorViewDir(c *call, a *schema.StrReplaceBasedEditToolArgs, r *resolved) (*schema.StrReplaceBasedEditToolResult, error) {
	if a.ViewRange != nil {
		return nil, fserr.Errorf(c.tool, r.rel, schema.KindInvalidArguments, "The view_range parameter is not allowed when path points to a directory.")
	}
	depth := 2
	tr, err := e.directoryTree(c, &schema.DirectoryTreeArgs{Path: a.Path, MaxDepth: &depth})
	if err != nil {
		return nil, err
	}
	// directory_tree's notices name its max_depth; this tool has no such argument.
	text := strings.ReplaceAll(tr.Text, ", or a smaller max_depth", "")
	return &schema.StrReplaceBasedEditToolResult{Path: tr.Path, Truncated: tr.Truncated,
		Text: fmt.Sprintf("Here are the files and directories up to 2 levels deep in %s, excluding hidden items:\n%s", a.Path, text)}, nil
}

// viewRange checks the view command's view_range and returns its first line (1-based) and last
// (-1: the end of the file); without one, the whole file. Whether the range lies within the file
// is checked once it has been read.
func viewRange(op string, vr []int) (first, last int, err *Error) {
	first, last = 1, -1
	if vr != nil {
		if len(vr) != 2 {
			return 0, 0, fserr.Errorf(op, "", schema.KindInvalidArguments, "Invalid view_range %s: it should be a list of two integers, [first, last].", jsonInts(vr))
		}
		first, last = vr[0], vr[1]
		if first < 1 {
			return 0, 0, fserr.Errorf(op, "", schema.KindInvalidArguments, "Invalid view_range %s: its first element %d should be at least 1.", jsonInts(vr), first)
		}
		if last != -1 && last < first {
			return 0, 0, fserr.Errorf(op, "", schema.KindInvalidArguments, "Invalid view_range %s: its second element %d should be -1 (the end of the file) or at least its first element %d.", jsonInts(vr), last, first)
		}
	}
	return first, last, nil
}

// lineTotal pulls the line count out of read_file's offset message ("... (N lines).").
func lineTotal(msg string) int {
	i := strings.LastIndexByte(msg, '(')
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(strings.Fields(msg[i+1:])[0])
	return n
}

func jsonInts(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// editorCreate is the create command: a new file, never over an existing one, announced and
// committed as write_file creates one. A missing parent directory is created, with its missing
// ancestors, as apply_patch's Add File does (the editor has no other way to make one): it is
// checked as a write of its own and created only after the change is approved.
func (e *Engine) editorCreate(c *call, a *schema.StrReplaceBasedEditToolArgs) (*schema.StrReplaceBasedEditToolResult, error) {
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	if r.exists {
		return nil, fserr.Errorf(c.tool, r.rel, schema.KindAlreadyExists,
			"File already exists at: %s. Cannot overwrite files using command `create`; change it with str_replace or insert.", a.Path)
	}
	unlock := e.lockChange(r)
	defer unlock()
	var mkdir *resolved
	if err := e.writableTarget(c.tool, r); err != nil {
		i := strings.LastIndexByte(strings.TrimRight(a.Path, "/"), '/')
		if err.Kind != schema.KindParentMissing || i <= 0 {
			return nil, err
		}
		dir, drule, derr := e.resolveFor(c.tool, a.Path[:i], accessWrite)
		if derr != nil {
			return nil, derr
		}
		if dir.exists {
			return nil, err
		}
		mkdir, rule = dir, cmpOr(rule, drule)
	}
	content := []byte(*a.FileText)
	res := &schema.StrReplaceBasedEditToolResult{Path: e.displayOf(r)}
	res.ModifiedByReviewer = c.reviewed()
	if c.hooks.ChangeRequest != nil || rule != nil {
		diff, truncated := textdiff.Unified(r.rel, "", *a.FileText)
		ann, stop, aerr := e.ask(c, proposal{op: "write", rel: r.rel, diff: diff, truncated: truncated, rule: rule, pin: absentHash, verb: "created"}, &res.Text, &res.ChangeOutcome)
		if stop {
			return res, aerr
		}
		switch {
		case ann.content != nil && *ann.content != *a.FileText:
			content = []byte(*ann.content)
			res.ModifiedByReviewer = true
		}
	}
	if mkdir != nil {
		created, merr := e.mkdirAll(c, mkdir)
		if merr != nil {
			return nil, merr
		}
		if created {
			c.emit(&schema.DirectoryCreatedEvent{EventBase: e.base(c, schema.KindDirectoryCreated, mkdir.rel), ModifiedByReviewer: res.ModifiedByReviewer})
		}
	}
	if _, cerr := e.commitFile(c, commitSpec{op: c.tool, r: r, content: content, guard: absentHash, create: true, locked: r.rel}); cerr != nil {
		return nil, cerr
	}
	h := text.ContentHash(content)
	after := e.runPostEdit(c, r.rel, h, "write")
	if after != nil {
		h = after.hash
	}
	c.emit(&schema.FileWrittenEvent{EventBase: e.base(c, schema.KindFileWritten, r.rel), ContentHash: h, PostEdit: after.runList(),
		ModifiedByReviewer: res.ModifiedByReviewer})
	res.Text = "File created successfully at: " + a.Path
	e.endChangeText(&res.Text, &res.Hash, h, res.ModifiedByReviewer, after, &res.PostEditOutcome)
	return res, nil
}

// editorChange is the str_replace and insert commands: the new content is computed from the
// file's bytes, announced with its diff and committed as edit_file commits.
func (e *Engine) editorChange(c *call, a *schema.StrReplaceBasedEditToolArgs) (*schema.StrReplaceBasedEditToolResult, error) {
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	if err := e.wantRegular(c.tool, r); err != nil {
		if err.Kind == schema.KindNotFound {
			err.Msg = fmt.Sprintf("The path %s does not exist. Create it with command create.", a.Path)
		}
		return nil, err
	}
	unlock := e.lockChange(r)
	defer unlock()
	r, old, oerr := e.readEditable(c, r, a.Path)
	if oerr != nil {
		return nil, oerr
	}
	current := text.ContentHash(old)
	updated, firstLine, shownLines, ferr := editorEdit(c, r, a, old)
	if ferr != nil {
		return nil, ferr
	}
	diff, truncated := textdiff.Unified(r.rel, text.DecodeLenient(old), text.DecodeLenient(updated))
	res := &schema.StrReplaceBasedEditToolResult{Path: e.displayOf(r)}
	res.ModifiedByReviewer = c.reviewed()
	if c.hooks.ChangeRequest != nil || rule != nil {
		ann, stop, aerr := e.ask(c, proposal{op: "edit", rel: r.rel, diff: diff, truncated: truncated, rule: rule, pin: current, verb: "edited"}, &res.Text, &res.ChangeOutcome)
		if stop {
			return res, aerr
		}
		if ann.content != nil && *ann.content != string(updated) {
			if err := reviewerTextOnly(c, r.rel, *ann.content); err != nil {
				return nil, err
			}
			updated = []byte(*ann.content)
			diff, truncated = textdiff.Unified(r.rel, text.DecodeLenient(old), *ann.content)
			res.ModifiedByReviewer = true
			firstLine, shownLines = 1, 0
		}
	}
	if _, cerr := e.commitFile(c, commitSpec{op: c.tool, r: r, content: updated, guard: current, locked: r.rel}); cerr != nil {
		if cerr.Kind == schema.KindStaleHash {
			return nil, errChanged(c.tool, r)
		}
		return nil, cerr
	}
	h := text.ContentHash(updated)
	after := e.runPostEdit(c, r.rel, h, "edit")
	if after != nil && after.changed {
		h = after.hash
		diff, truncated = textdiff.HeadersOnly(r.rel), true
		if after.whole && h != absentHash {
			diff, truncated = textdiff.Unified(r.rel, text.DecodeLenient(old), text.DecodeLenient(after.content))
		}
	}
	c.emit(&schema.FileEditedEvent{EventBase: e.base(c, schema.KindFileEdited, r.rel), ContentHash: h, PostEdit: after.runList(),
		Diff: diff, Truncated: truncated, Replacements: 1, ModifiedByReviewer: res.ModifiedByReviewer})
	var b strings.Builder
	fmt.Fprintf(&b, "The file %s has been edited. ", a.Path)
	if shownLines > 0 {
		fmt.Fprintf(&b, "Here's the result of running `cat -n` on a snippet of %s:\n", a.Path)
		b.WriteString(snippet(updated, firstLine, shownLines))
	} else {
		b.WriteByte('\n')
	}
	b.WriteString("Review the changes and make sure they are as expected. Edit the file again if necessary.")
	res.Text = b.String()
	e.endChangeText(&res.Text, &res.Hash, h, res.ModifiedByReviewer, after, &res.PostEditOutcome)
	return res, nil
}

// strReplace replaces the one occurrence of old_str in content. It returns the new bytes, the
// 1-based line where the replacement starts and the number of lines of new_str. No occurrence
// is no_match, several are multiple_matches naming the lines they start on.
func strReplace(op string, r *resolved, a *schema.StrReplaceBasedEditToolArgs, content []byte) ([]byte, int, int, *Error) {
	oldStr, newStr := *a.OldStr, ""
	if a.NewStr != nil {
		newStr = *a.NewStr
	}
	if oldStr == "" {
		return nil, 0, 0, fserr.Errorf(op, r.rel, schema.KindEmptyOldText, "old_str is empty; it must be the exact text to replace, and occur exactly once in %s.", a.Path)
	}
	old := []byte(oldStr)
	n := bytes.Count(content, old)
	if n == 0 && bytes.Contains(content, []byte("\r\n")) && strings.Contains(oldStr, "\n") && !strings.Contains(oldStr, "\r") {
		// A CRLF file edited with "\n" line ends: the same lines, written back with the file's.
		crlf := []byte(strings.ReplaceAll(oldStr, "\n", "\r\n"))
		if m := bytes.Count(content, crlf); m > 0 {
			old, n = crlf, m
			newStr = strings.ReplaceAll(strings.ReplaceAll(newStr, "\r\n", "\n"), "\n", "\r\n")
		}
	}
	switch {
	case n == 0:
		return nil, 0, 0, fserr.Errorf(op, r.rel, schema.KindNoMatch, "No replacement was performed, old_str `%s` did not appear verbatim in %s.", clip(oldStr, 400), a.Path)
	case n > 1:
		var lines []string
		rest, base := content, 0
		for len(lines) < maxListedMatches {
			i := bytes.Index(rest, old)
			if i < 0 {
				break
			}
			lines = append(lines, strconv.Itoa(bytes.Count(content[:base+i], []byte("\n"))+1))
			base += i + len(old)
			rest = content[base:]
		}
		where := strings.Join(lines, ", ")
		if n > len(lines) {
			where += ", ..."
		}
		return nil, 0, 0, fserr.Errorf(op, r.rel, schema.KindMultipleMatches,
			"No replacement was performed. Multiple occurrences (%d) of old_str `%s` in lines %s. Please ensure it is unique: include more surrounding lines.", n, clip(oldStr, 400), where)
	}
	at := bytes.Index(content, old)
	out := make([]byte, 0, len(content)-len(old)+len(newStr))
	out = append(out, content[:at]...)
	out = append(out, newStr...)
	out = append(out, content[at+len(old):]...)
	first := bytes.Count(content[:at], []byte("\n")) + 1
	return out, first, strings.Count(newStr, "\n") + 1, nil
}

// insertAt inserts text after line n (0 for the top). The inserted text ends with the file's
// line end unless it already ends with one; at the end of a file without a final newline the
// text is put on a new line and the file still ends without one.
func insertAt(op string, r *resolved, content []byte, n int, text string) ([]byte, *Error) {
	f := splitFileLines(content)
	total := len(f.text)
	if n < 0 || n > total {
		return nil, fserr.Errorf(op, r.rel, schema.KindInvalidArguments,
			"Invalid insert_line %d: it should be within the range of lines of the file: [0, %d] (0 inserts at the top).", n, total)
	}
	if f.eol == "\r\n" {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	}
	at := 0
	for i := 0; i < n; i++ {
		at += len(f.text[i]) + len(f.term[i])
	}
	out := make([]byte, 0, len(content)+len(text)+2)
	out = append(out, content[:at]...)
	if n == total && total > 0 && f.term[total-1] == "" {
		out = append(out, f.eol...)
		out = append(out, strings.TrimSuffix(text, f.eol)...)
		return out, nil
	}
	out = append(out, text...)
	if !strings.HasSuffix(text, "\n") {
		out = append(out, f.eol...)
	}
	out = append(out, content[at:]...)
	return out, nil
}

// snippet numbers the lines [first-snippetContext, first+count+snippetContext) of content.
func snippet(content []byte, first, count int) string {
	f := splitFileLines(content)
	lo := max(first-1-snippetContext, 0)
	hi := min(first-1+count+snippetContext, len(f.text))
	var b strings.Builder
	for i := lo; i < hi; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, strings.ToValidUTF8(f.text[i], "\uFFFD"))
	}
	return b.String()
}

// clip cuts s to n characters for a message.
func clip(s string, n int) string {
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}
