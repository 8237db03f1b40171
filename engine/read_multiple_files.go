package engine

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// maxMultiPaths caps the paths of one read_multiple_files call. More is refused outright rather
// than half served: the model resends in batches, and nothing was read or emitted twice.
const maxMultiPaths = 100

// minMultiWindow is the least budget a file after the first is read with; below it the file
// would show little more than its header, so it and the rest are left unread instead.
const minMultiWindow = 500

// readMultipleFiles reads each path as read_file with the default offset and limit, all of them
// within one output budget (max_output_chars, see budget.go):
//
//  1. More than maxMultiPaths paths is invalid_arguments; nothing is read.
//  2. Files are read in the order given, each with a read window of what is left of the budget
//     (at most max_read_chars), so a file that does not fit is shown in part, with read_file's
//     own hint of the offset that continues.
//  3. Once less than minMultiWindow characters are left (or a failure line does not fit), the
//     remaining paths are not read: they are listed in not_read, the result is truncated, and a
//     closing notice names them (while they fit) and says to read them with read_file.
//  4. A path that fails is reported in place, as a bracketed line naming the path and the message
//     read_file would have failed with, and does not fail the others; each file read emits its
//     own file_read event, a file not read emits none.
//
// The text is the files' read_file texts (or failure lines) in the order given, separated by a
// blank line.
func (e *Engine) readMultipleFiles(c *call, a *schema.ReadMultipleFilesArgs) (*schema.ReadMultipleFilesResult, error) {
	if len(a.Paths) == 0 {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "paths must name at least one file.")
	}
	if len(a.Paths) > maxMultiPaths {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "paths names %d files; at most %d per call. Split them into several calls.", len(a.Paths), maxMultiPaths)
	}
	res := &schema.ReadMultipleFilesResult{Files: make([]schema.FileReadItem, 0, len(a.Paths))}
	budget := e.newBudget()
	var b strings.Builder
	for i, p := range a.Paths {
		if err := c.ctx.Err(); err != nil {
			return nil, cancelled(c.tool, err)
		}
		sep := 0
		if i > 0 {
			sep = 1
		}
		left := budget.Limit - budget.Used - sep
		if i > 0 && left < minMultiWindow {
			res.NotRead = a.Paths[i:]
			break
		}
		item := schema.FileReadItem{Path: p}
		var text string
		r, err := e.readFileWithin(c, &schema.ReadFileArgs{Path: p}, min(e.maxReadChars, max(left, 1)), c.typed())
		if err != nil {
			var ee *Error
			if !errors.As(err, &ee) {
				return nil, err // not a tool failure: Call reports it as internal
			}
			if cerr := c.ctx.Err(); cerr != nil {
				return nil, cancelled(c.tool, cerr)
			}
			item.Error = &schema.ToolError{Kind: ee.Kind, Message: ee.Msg}
			text = "[" + p + ": " + ee.Msg + "]\n"
			if !budget.Take(sep+utf8.RuneCountInString(text)) && i > 0 {
				res.NotRead = a.Paths[i:]
				break
			}
		} else {
			item.Result = r
			text = r.Text
			budget.Take(sep + utf8.RuneCountInString(text))
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
		res.Files = append(res.Files, item)
	}
	if len(res.NotRead) > 0 {
		res.Truncated = true
		shown := res.NotRead[:min(len(res.NotRead), maxSkippedNamed)]
		b.WriteString("\n[" + strconv.Itoa(len(res.NotRead)) + " files not read: the output budget of " + strconv.Itoa(budget.Limit) +
			" characters (max_output_chars) is used up. Read them with read_file: " + text.NoticePaths(shown, len(res.NotRead)) + "]\n")
	}
	res.Text = b.String()
	return res, nil
}
