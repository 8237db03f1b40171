package engine

import (
	"encoding/json"

	"github.com/fsbox/fsbox/schema"
)

// toolFunc runs one tool call on its raw arguments and returns a *schema.XxxResult.
type toolFunc func(e *Engine, c *call, args json.RawMessage) (any, error)

// toolTable is every tool fsbox serves and its handler, one line a tool, in the order of schema's tool names:
// Call looks the name up here (and in the session's enabled set). The handler lives in the file
// named after the tool. A pattern tool's arguments are bounded before they are decoded
// (boundedArgs, budget_pattern.go).
var toolTable = map[string]toolFunc{
	schema.ToolReadFile:                tool((*Engine).readFile),
	schema.ToolWriteFile:               tool((*Engine).writeFile),
	schema.ToolEditFile:                tool((*Engine).editFile),
	schema.ToolListDirectory:           tool((*Engine).listDirectory),
	schema.ToolSearchFiles:             boundedArgs("pattern", maxRegexBytes, tool((*Engine).searchFiles)),
	schema.ToolFindFiles:               boundedArgs("pattern", maxGlobBytes, tool((*Engine).findFiles)),
	schema.ToolCreateDirectory:         tool((*Engine).createDirectory),
	schema.ToolFileInfo:                tool((*Engine).fileInfo),
	schema.ToolListFiles:               boundedArgs("glob", maxGlobBytes, tool((*Engine).listFiles)),
	schema.ToolGrep:                    boundedArgs("pattern", maxRegexBytes, tool((*Engine).grep)),
	schema.ToolReadMultipleFiles:       tool((*Engine).readMultipleFiles),
	schema.ToolDirectoryTree:           tool((*Engine).directoryTree),
	schema.ToolRemoveDirectory:         tool((*Engine).removeDirectory),
	schema.ToolDelete:                  tool((*Engine).deleteEntry),
	schema.ToolMoveFile:                tool((*Engine).moveFile),
	schema.ToolApplyPatch:              tool((*Engine).applyPatch),
	schema.ToolStrReplaceBasedEditTool: tool((*Engine).strReplaceBasedEditTool),
	schema.ToolUndoLastChange:          tool((*Engine).undoLastChange),
}

// tool adapts a typed handler to a toolFunc: the raw arguments are decoded strictly into A (see
// decodeArgs) before fn runs.
func tool[A any, R any](fn func(e *Engine, c *call, a *A) (*R, error)) toolFunc {
	return func(e *Engine, c *call, raw json.RawMessage) (any, error) {
		var a A
		if err := decodeArgs(c.tool, raw, &a); err != nil {
			return nil, err
		}
		return fn(e, c, &a)
	}
}
