package engine

import (
	"errors"
	"strings"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(schema.ToolReadMultipleFiles, tool((*Engine).readMultipleFiles))
}

// readMultipleFiles reads each path as read_file with the default offset and limit. A path that
// fails is reported in place, as a bracketed line naming the path and the message read_file
// would have failed with, and does not fail the others; each file read emits its own file_read
// event. The text is the files' read_file texts (or failure lines) in the order given,
// separated by a blank line.
func (e *Engine) readMultipleFiles(c *call, a *schema.ReadMultipleFilesArgs) (*schema.ReadMultipleFilesResult, error) {
	if len(a.Paths) == 0 {
		return nil, errorf(c.tool, "", kindInvalidArguments, "paths must name at least one file.")
	}
	res := &schema.ReadMultipleFilesResult{Files: make([]schema.FileReadItem, 0, len(a.Paths))}
	var b strings.Builder
	for i, p := range a.Paths {
		if err := c.ctx.Err(); err != nil {
			return nil, cancelled(c.tool, err)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		item := schema.FileReadItem{Path: p}
		r, err := e.readFile(c, &schema.ReadFileArgs{Path: p})
		if err != nil {
			var ee *Error
			if !errors.As(err, &ee) {
				return nil, err // not a tool failure: Call reports it as internal
			}
			if cerr := c.ctx.Err(); cerr != nil {
				return nil, cancelled(c.tool, cerr)
			}
			item.Error = &schema.ToolError{Kind: ee.Kind, Message: ee.Msg}
			b.WriteString("[")
			b.WriteString(p)
			b.WriteString(": ")
			b.WriteString(ee.Msg)
			b.WriteString("]\n")
		} else {
			item.Result = r
			b.WriteString(r.Text)
		}
		res.Files = append(res.Files, item)
	}
	res.Text = b.String()
	return res, nil
}
