package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// The reference presentation (--compat reference): the tool names and argument shapes of
// @modelcontextprotocol/server-filesystem, mapped onto the engine, so that a host can swap that
// server for fsbox by changing its command line. Each tool is offered when the engine tool it
// maps to is enabled; its outputSchema and structuredContent are that engine tool's (without the
// text, which is the content block, as for the native tools: structured.go). What maps:
//
//	read_text_file {path, head, tail, offset, column}  read_file (tail reads the line count first;
//	                                       offset and column, fsbox's additions, continue a long file
//	                                       or line where a result's hint says to)
//	read_media_file {path}                 read_file: an image or PDF as image/resource content
//	read_multiple_files {paths}            read_multiple_files
//	write_file {path, content}             write_file
//	edit_file {path, edits, dryRun}        edit_file replacements; dryRun shows the diff, writes nothing
//	create_directory {path}                create_directory
//	list_directory {path}                  list_directory
//	list_directory_with_sizes {path, sortBy}  list_directory (sortBy "name" only)
//	directory_tree {path, excludePatterns} directory_tree (no excludePatterns)
//	search_files {path, pattern, excludePatterns}  find_files; a pattern without "/" searches every depth
//	move_file {source, destination}        move_file (never overwrites, as the reference refuses to)
//	get_file_info {path}                   file_info
//	list_allowed_directories {}            "." : the model never sees the host's path
//
// Every hint is callable (every continuation names arguments the same tool takes in this mode):
// read_text_file takes the offset and column read_file's hints name; results whose notices name a
// native tool or argument this mode does not offer are reworded by compatHints.
//
// read_media_file serves the images and PDFs (by content, at most 5,000,000 bytes) that read_file
// returns as data, and refuses anything else. The text of every result is fsbox's (numbered lines, truncation notes), not the
// reference server's; docs/mcp.md lists the differences.

// compatTool describes one reference tool.
type compatTool struct {
	name, backing, description string
	input                      map[string]any
	run                        func(ctx context.Context, c *toolCall, args json.RawMessage) (any, error)
}

func referenceTools(eng *engine.Engine) ([]*toolDef, error) {
	enabled := map[string]bool{}
	for _, n := range eng.ToolNames() {
		enabled[n] = true
	}
	// The backing tools' descriptors, built in one pass (each build decodes the bundle).
	var backing []string
	for _, ct := range compatTools {
		if ct.backing != "" && enabled[ct.backing] && !slices.Contains(backing, ct.backing) {
			backing = append(backing, ct.backing)
		}
	}
	descs, err := schema.Descriptors(backing, eng.ContentHashes())
	if err != nil {
		return nil, err
	}
	outputs := make(map[string]map[string]any, len(descs))
	inputs := make(map[string]map[string]any, len(descs))
	for _, d := range descs {
		outputs[d.Name], inputs[d.Name] = d.OutputSchema, d.InputSchema
	}
	var out []*toolDef
	for _, ct := range compatTools {
		var outSchema map[string]any
		spec, _ := schema.ToolByName(ct.backing)
		if ct.backing != "" {
			if !enabled[ct.backing] {
				continue
			}
			outSchema = outputs[ct.backing]
		} else {
			spec = schema.ToolSpec{Name: ct.name, ReadOnly: true}
			outSchema = allowedDirsSchema
		}
		in, desc := ct.input, ct.description
		if in == nil {
			// A tool the reference server lacks, presented as fsbox presents it.
			in, desc = inputs[ct.backing], spec.Description
		}
		out = append(out, &toolDef{
			tool: &mcp.Tool{Name: ct.name, Description: desc, InputSchema: in, OutputSchema: toolOutputSchema(outSchema),
				Annotations: annotations(spec)},
			run: ct.run,
		})
	}
	return out, nil
}

func obj(required []string, props map[string]any) map[string]any {
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		m["required"] = required
	}
	return m
}

var (
	strProp   = map[string]any{"type": "string"}
	strList   = map[string]any{"type": "array", "items": strProp}
	pathProp  = map[string]any{"type": "string", "description": "Path relative to the working directory, or absolute inside the root."}
	linesProp = func(d string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 1, "description": d}
	}
	pathOnly   = obj([]string{"path"}, map[string]any{"path": pathProp})
	editsInput = obj([]string{"path", "edits"}, map[string]any{
		"path": pathProp,
		"edits": map[string]any{"type": "array", "minItems": 1, "items": obj([]string{"oldText", "newText"}, map[string]any{
			"oldText": map[string]any{"type": "string", "description": "Exact text to replace; must occur exactly once."},
			"newText": map[string]any{"type": "string", "description": "Replacement text."},
		})},
		"dryRun": map[string]any{"type": "boolean", "default": false, "description": "Show the diff without writing."},
	})
	allowedDirsSchema = obj([]string{"text", "directories"}, map[string]any{"text": strProp, "directories": strList})
)

var compatTools = []compatTool{
	{name: "read_text_file", backing: schema.ToolReadFile,
		description: "Read a text file as numbered lines. head reads only the first N lines, tail only the last N; long files are paged (the result says which offset, and for a long line which column, continues).",
		input: obj([]string{"path"}, map[string]any{"path": pathProp,
			"head": linesProp("Read only the first N lines."), "tail": linesProp("Read only the last N lines."),
			"offset": map[string]any{"type": "integer", "minimum": 0, "description": "Lines to skip before reading (0-based), to continue where a result says; with head, head lines from there."},
			"column": map[string]any{"type": "integer", "minimum": 0, "description": "With offset: the character of that line to continue from, where a result says."}}),
		run: readTextFile},
	{name: "read_media_file", backing: schema.ToolReadFile,
		description: "Read an image (PNG, JPEG, GIF, WebP) or a PDF, up to 5 MB, as content a multimodal model can see. Other files are refused; use read_text_file.",
		input:       pathOnly, run: readMediaFile},
	{name: "read_multiple_files", backing: schema.ToolReadMultipleFiles,
		description: "Read several text files at once; one failure does not fail the others.",
		input:       obj([]string{"paths"}, map[string]any{"paths": map[string]any{"type": "array", "minItems": 1, "items": strProp}}),
		run:         reworded(passThrough(schema.ToolReadMultipleFiles), readMultipleHints)},
	{name: "write_file", backing: schema.ToolWriteFile,
		description: "Create a file or replace its whole content. The parent directory must exist.",
		input:       obj([]string{"path", "content"}, map[string]any{"path": pathProp, "content": strProp}),
		run:         passThrough(schema.ToolWriteFile)},
	{name: "edit_file", backing: schema.ToolEditFile,
		description: "Apply exact-text edits to a file, in order, all or nothing; each oldText must occur exactly once. dryRun returns the diff without writing.",
		input:       editsInput, run: editFile},
	{name: "create_directory", backing: schema.ToolCreateDirectory,
		description: "Create a directory and any missing parents. An existing directory is not an error.",
		input:       pathOnly, run: passThrough(schema.ToolCreateDirectory)},
	{name: "list_directory", backing: schema.ToolListDirectory,
		description: "List a directory's entries: `dir/` for directories, `file  (N bytes)` for files.",
		input:       pathOnly, run: reworded(passThrough(schema.ToolListDirectory), listHints)},
	{name: "list_directory_with_sizes", backing: schema.ToolListDirectory,
		description: "List a directory's entries with file sizes, sorted by name.",
		input: obj([]string{"path"}, map[string]any{"path": pathProp,
			"sortBy": map[string]any{"type": "string", "enum": []any{"name"}, "default": "name"}}),
		run: reworded(listWithSizes, listHints)},
	{name: "directory_tree", backing: schema.ToolDirectoryTree,
		description: "Show the tree below a directory, one path per line.",
		input:       obj([]string{"path"}, map[string]any{"path": pathProp, "excludePatterns": strList}),
		run:         reworded(directoryTree, treeHints)},
	{name: "search_files", backing: schema.ToolFindFiles,
		description: "Find files and directories by glob (`**/*.go`, `*.md`); a pattern without `/` matches at any depth. excludePatterns drops matching paths.",
		input:       obj([]string{"path", "pattern"}, map[string]any{"path": pathProp, "pattern": strProp, "excludePatterns": strList}),
		run:         searchFiles},
	{name: "move_file", backing: schema.ToolMoveFile,
		description: "Move or rename a file or directory inside the allowed directory. Fails if the destination exists.",
		input:       obj([]string{"source", "destination"}, map[string]any{"source": pathProp, "destination": pathProp}),
		run:         passThrough(schema.ToolMoveFile)},
	{name: "get_file_info", backing: schema.ToolFileInfo,
		description: "Describe a file or directory: type, size, line count and content hash for text files.",
		input:       pathOnly, run: passThrough(schema.ToolFileInfo)},
	// The provider-shaped edit tools, when enabled: not in the reference server, offered under
	// their own names and schemas in both modes, so a client that speaks them needs no switch.
	{name: schema.ToolApplyPatch, backing: schema.ToolApplyPatch, run: passThrough(schema.ToolApplyPatch)},
	{name: schema.ToolStrReplaceBasedEditTool, backing: schema.ToolStrReplaceBasedEditTool, run: passThrough(schema.ToolStrReplaceBasedEditTool)},
	{name: "list_allowed_directories",
		description: "List the directories this server may access. Paths are relative to the working directory.",
		input:       obj(nil, map[string]any{}), run: listAllowed},
}

// decodeCompat decodes raw into dst with schema.Decode, the decoder of every front end: member
// names exact and case-sensitive, unknown or repeated ones refused, types checked. A refusal is
// invalid_arguments in the engine's words (engine.ArgumentsError), naming the argument and the
// one meant when close.
func decodeCompat(tool string, raw json.RawMessage, dst any) error {
	if err := schema.Decode(raw, dst); err != nil {
		return engine.ArgumentsError(tool, err)
	}
	return nil
}

func invalidArgs(tool, msg string) *engine.Error {
	return &engine.Error{Op: tool, Kind: schema.KindInvalidArguments, Msg: msg}
}

func call(ctx context.Context, c *toolCall, tool string, args any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return c.eng.Call(ctx, tool, raw, c.hooks)
}

// passThrough calls the engine tool with the arguments as they are: the reference shape and
// fsbox's agree (the engine checks them strictly).
func passThrough(tool string) func(context.Context, *toolCall, json.RawMessage) (any, error) {
	return func(ctx context.Context, c *toolCall, args json.RawMessage) (any, error) {
		return c.eng.Call(ctx, tool, args, c.hooks)
	}
}

// readMediaFile reads path through read_file and keeps the result only when it carries media
// data; resultOf then adds the image or resource block.
func readMediaFile(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeCompat("read_media_file", raw, &a); err != nil {
		return nil, err
	}
	res, err := call(ctx, c, schema.ToolReadFile, map[string]any{"path": a.Path})
	if err != nil {
		return nil, err
	}
	if r, ok := res.(*schema.ReadFileResult); !ok || r.Data == nil {
		return nil, &engine.Error{Op: "read_media_file", Kind: schema.KindBinaryFile, Path: a.Path,
			Msg: fmt.Sprintf("'%s' is not an image or PDF of at most 5,000,000 bytes. Use read_text_file.", a.Path)}
	}
	return res, nil
}

func readTextFile(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path   string `json:"path"`
		Head   *int   `json:"head,omitempty"`
		Tail   *int   `json:"tail,omitempty"`
		Offset *int   `json:"offset,omitempty"`
		Column *int   `json:"column,omitempty"`
	}
	if err := decodeCompat("read_text_file", raw, &a); err != nil {
		return nil, err
	}
	args := schema.ReadFileArgs{Path: a.Path, Offset: a.Offset, Column: a.Column}
	switch {
	case a.Head != nil && a.Tail != nil:
		return nil, invalidArgs("read_text_file", "Give head or tail, not both.")
	case a.Tail != nil && (a.Offset != nil || a.Column != nil):
		return nil, invalidArgs("read_text_file", "Give tail alone: offset and column continue from the start of the file.")
	case a.Head != nil:
		args.Limit = a.Head
	case a.Tail != nil:
		if *a.Tail < 1 {
			return nil, invalidArgs("read_text_file", "Argument 'tail' must be at least 1.")
		}
		// The line count comes from a one-line read, which reports no event: the host sees one read.
		one := 1
		probe := *c
		probe.hooks.Event = nil
		first, err := call(ctx, &probe, schema.ToolReadFile, schema.ReadFileArgs{Path: a.Path, Limit: &one})
		if err != nil {
			return nil, err
		}
		offset := max(0, first.(*schema.ReadFileResult).TotalLines-*a.Tail)
		args.Offset, args.Limit = &offset, a.Tail
	}
	return call(ctx, c, schema.ToolReadFile, args)
}

// The notices of native results that name a tool or an argument the reference presentation does
// not offer, and what they say here instead: each replacement names a tool of this mode and its
// arguments. One pair per notice; compat_test.go checks every one against a real result.
var (
	readMultipleHints = []string{
		"Read them with read_file: ", "Read them with read_text_file: ",
		". Use offset=", ". Use read_text_file with offset=",
	}
	listHints = []string{"use find_files with a narrower pattern", "use search_files with a narrower pattern"}
	treeHints = []string{"show a subdirectory, or a smaller max_depth", "show a subdirectory"}
)

// reworded runs run and rewrites its result's text with the (old, new) pairs of hints.
func reworded(run func(context.Context, *toolCall, json.RawMessage) (any, error), hints []string) func(context.Context, *toolCall, json.RawMessage) (any, error) {
	r := strings.NewReplacer(hints...)
	return func(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
		res, err := run(ctx, c, raw)
		if err != nil {
			return res, err
		}
		switch v := res.(type) {
		case *schema.ReadMultipleFilesResult:
			v.Text = r.Replace(v.Text)
		case *schema.ListDirectoryResult:
			v.Text = r.Replace(v.Text)
		case *schema.DirectoryTreeResult:
			v.Text = r.Replace(v.Text)
		}
		return res, nil
	}
}

func editFile(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path  string `json:"path"`
		Edits []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
		DryRun bool `json:"dryRun,omitempty"`
	}
	if err := decodeCompat("edit_file", raw, &a); err != nil {
		return nil, err
	}
	if len(a.Edits) == 0 {
		return nil, invalidArgs("edit_file", "Argument 'edits' needs at least one {oldText, newText}.")
	}
	args := schema.EditFileArgs{Path: a.Path}
	for _, e := range a.Edits {
		args.Replacements = append(args.Replacements, schema.Replacement{OldText: e.OldText, NewText: e.NewText})
	}
	if !a.DryRun {
		return call(ctx, c, schema.ToolEditFile, args)
	}
	// A dry run is an edit whose change request is answered "no" after keeping its diff: the
	// engine checks and diffs exactly as for a real edit, and nothing is written.
	var diff string
	asked := false
	dry := *c
	dry.hooks.ChangeRequest = func(_ context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		asked, diff = true, req.Diff
		if req.Truncated {
			diff += "\n[the diff is truncated]"
		}
		return engine.Reject("dry run"), nil
	}
	dry.hooks.Event = nil
	res, err := call(ctx, &dry, schema.ToolEditFile, args)
	if err != nil {
		return nil, err
	}
	r := res.(*schema.EditFileResult)
	if asked {
		r.Text = diff
	}
	return r, nil
}

func listWithSizes(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path   string `json:"path"`
		SortBy string `json:"sortBy,omitempty"`
	}
	if err := decodeCompat("list_directory_with_sizes", raw, &a); err != nil {
		return nil, err
	}
	if a.SortBy != "" && a.SortBy != "name" {
		return nil, invalidArgs("list_directory_with_sizes", "Only sortBy 'name' is supported.")
	}
	return call(ctx, c, schema.ToolListDirectory, schema.ListDirectoryArgs{Path: a.Path})
}

func directoryTree(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path            string   `json:"path"`
		ExcludePatterns []string `json:"excludePatterns,omitempty"`
	}
	if err := decodeCompat("directory_tree", raw, &a); err != nil {
		return nil, err
	}
	if len(a.ExcludePatterns) > 0 {
		return nil, invalidArgs("directory_tree", "excludePatterns is not supported here; call directory_tree on a narrower path instead.")
	}
	return call(ctx, c, schema.ToolDirectoryTree, schema.DirectoryTreeArgs{Path: a.Path})
}

func searchFiles(ctx context.Context, c *toolCall, raw json.RawMessage) (any, error) {
	var a struct {
		Path            string   `json:"path"`
		Pattern         string   `json:"pattern"`
		ExcludePatterns []string `json:"excludePatterns,omitempty"`
	}
	if err := decodeCompat("search_files", raw, &a); err != nil {
		return nil, err
	}
	for _, p := range a.ExcludePatterns {
		if !doublestar.ValidatePattern(p) {
			return nil, invalidArgs("search_files", fmt.Sprintf("excludePatterns: %q is not a valid glob.", p))
		}
	}
	pattern := a.Pattern
	if pattern != "" && !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	res, err := call(ctx, c, schema.ToolFindFiles, schema.FindFilesArgs{Path: a.Path, Pattern: pattern})
	if err != nil || len(a.ExcludePatterns) == 0 {
		return res, err
	}
	r := res.(*schema.FindFilesResult)
	dropped := map[string]bool{}
	kept := r.Paths[:0:0]
	for _, p := range r.Paths {
		if excluded(p, a.ExcludePatterns) {
			dropped[p] = true
			continue
		}
		kept = append(kept, p)
	}
	if len(dropped) == 0 {
		return r, nil
	}
	lines := slices.DeleteFunc(strings.Split(r.Text, "\n"), func(l string) bool { return dropped[l] })
	r.Paths, r.Text = kept, strings.Join(lines, "\n")
	if len(kept) == 0 && !r.Truncated {
		r.Text = "No files match (excludePatterns dropped every match)."
	}
	return r, nil
}

// excluded reports whether path (a find_files result, directories ending in "/") matches one of
// the patterns: as a whole, or, for a pattern without "/", by any one component.
func excluded(path string, patterns []string) bool {
	p := strings.TrimSuffix(path, "/")
	for _, pat := range patterns {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
		if !strings.Contains(pat, "/") {
			for _, part := range strings.Split(p, "/") {
				if ok, _ := doublestar.Match(pat, part); ok {
					return true
				}
			}
		}
	}
	return false
}

func listAllowed(_ context.Context, _ *toolCall, raw json.RawMessage) (any, error) {
	var a struct{}
	if err := decodeCompat("list_allowed_directories", raw, &a); err != nil {
		return nil, err
	}
	return &allowedDirectories{
		Text:        "Allowed directories:\n.\n(Paths are relative to the working directory; absolute paths must lie inside the root.)",
		Directories: []string{"."},
	}, nil
}

// allowedDirectories is list_allowed_directories' result; allowedDirsSchema describes it.
type allowedDirectories struct {
	Text        string   `json:"text"`
	Directories []string `json:"directories"`
}
