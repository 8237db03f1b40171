package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// Files as MCP resources. One resource template, file://{+path}, lets a host attach a file of the
// root by its absolute path (file:///home/me/project/src/main.go); resources/list enumerates
// nothing, so a client learns no file name it did not already know.
//
// Every read is a read_file call on the host's engine, so containment (symlinks resolved and
// raced with the engine's own checks), the policy's denied files and the read budgets are the
// tools' own; nothing here opens a host path. What this file adds is the URI rule, which fails
// closed before the engine sees a path:
//
//  1. the scheme is file and the authority empty: file:///abs/path. A host (file://server/x,
//     file://localhost/x), user info or port, a query or fragment (even an empty "?" or "#"), a
//     relative or opaque form (file:x, file:/x) are refused;
//  2. each path segment is percent-decoded on its own; a segment that decodes to "." or "..",
//     contains a slash or a NUL (an encoded %2F or %00), is empty (a doubled slash) or is not
//     valid percent-encoding is refused, so no spelling of traversal reaches the engine;
//  3. the decoded absolute path goes to read_file, which refuses anything outside the root or
//     denied by the policy, exactly as for a tool call.
//
// A file that does not exist is the specification's "Resource not found" (-32602 with the URI);
// every other refusal is -32602 with the engine's message for the model and its kind; an internal
// failure is -32603 with fsbox's generic text, its cause on stderr.
//
// Content by type: text (the whole file within one read_file window: max_read_lines and
// max_read_chars) as text; an image or PDF of at most 5,000,000 bytes as a base64 blob with its
// media type; anything longer or other binary files are refused with a message naming the tool
// call that reads it in pieces. An empty file is an empty blob (the Go SDK omits empty text).
//
// It does not protect against a host that shows the model a file the user did not mean to attach:
// the client picks the URI; fsbox only checks that it lies inside the root and is readable.

// fileTemplate is the one resource template.
const fileTemplate = "file://{+path}"

// addFileResources registers the template when read_file is enabled (a host that turned reading
// off offers no resources either).
func (s *Server) addFileResources(caps *mcp.ServerCapabilities) {
	enabled := false
	for _, name := range s.eng.ToolNames() {
		enabled = enabled || name == schema.ToolReadFile
	}
	if !enabled {
		return
	}
	caps.Resources = &mcp.ResourceCapabilities{}
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:  "file",
		Title: "A file in the root",
		Description: "A file inside the server's root directory, by absolute path: file:///path/to/file. " +
			"Text comes back as text, images and PDFs as base64 blobs. Files are not listed; the path " +
			"must lie inside the root and be readable under the host's policy.",
		URITemplate: fileTemplate,
	}, s.readResource)
}

// readResource serves resources/read for the file template.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	p, err := resourcePath(uri)
	if err != nil {
		return nil, resourceError(uri, schema.KindInvalidPath, err.Error())
	}
	var sink func(any)
	if req.Session != nil {
		sink = s.sessionEventSink(ctx, req.Session)
	}
	args, _ := json.Marshal(map[string]any{"path": p})
	res, err := s.eng.Call(ctx, schema.ToolReadFile, args, engine.Hooks{Event: sink})
	if err != nil {
		var ee *engine.Error
		switch {
		case errors.As(err, &ee) && ee.Kind == schema.KindNotFound:
			return nil, mcp.ResourceNotFoundError(uri)
		case errors.As(err, &ee) && ee.Kind != schema.KindInternal:
			return nil, resourceError(uri, ee.Kind, ee.Msg)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		s.logf("internal error reading resource: %v", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: schema.InternalErrorMessage}
	}
	r, ok := res.(*schema.ReadFileResult)
	if !ok {
		s.logf("internal error reading resource: read_file returned %T", res)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: schema.InternalErrorMessage}
	}
	out := &mcp.ResourceContents{URI: uri}
	switch {
	case r.Binary && r.Data != nil:
		out.MIMEType, out.Blob = r.MediaType, r.Data
	case r.Binary:
		return nil, resourceError(uri, schema.KindBinaryFile, fmt.Sprintf(
			"'%s' is a binary file (%s, %d bytes); only text, images and PDFs of at most 5,000,000 bytes are served as resources.",
			p, r.MediaType, r.Size))
	case r.TotalLines == 0:
		out.MIMEType, out.Blob = textType(p), []byte{}
	case r.LinesShown == 0:
		// Not one line fits: the first is longer than the read window.
		return nil, resourceError(uri, "", fmt.Sprintf(
			"'%s' has a first line longer than one read returns. Use %s with path='%s', offset=0 and column=0 to read it in pieces.",
			p, s.readTool(), p))
	case r.Content == nil || r.NextOffset != nil || r.LinesShown < r.TotalLines:
		next := r.LinesShown
		return nil, resourceError(uri, "", fmt.Sprintf(
			"'%s' has %d lines, more than one read returns (%d fit). Use %s with path='%s' and offset=%d to read it in pieces.",
			p, r.TotalLines, r.LinesShown, s.readTool(), p, next))
	default:
		out.MIMEType, out.Text = textType(p), *r.Content
	}
	// A file's bytes are the user's: no shared cache may keep them, and they may change any time.
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{out}, Cacheable: mcp.Cacheable{CacheScope: "private"}}, nil
}

// readTool is the tool of this presentation that reads a file in pieces (path, offset).
func (s *Server) readTool() string {
	if s.opts.Compat == CompatReference {
		return "read_text_file"
	}
	return schema.ToolReadFile
}

// resourceError is the JSON-RPC error of a refused resources/read: -32602 (the URI is not one
// this server serves), the message for the model, and data with the URI and the engine's kind
// (none for a refusal the engine did not make).
func resourceError(uri string, kind schema.ErrorKind, msg string) error {
	data := map[string]any{"uri": uri}
	if kind != "" {
		retry, _ := schema.LookupErrorKind(kind)
		data["kind"], data["retry"] = kind, retry
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: raw}
}

// resourcePath turns a file URI into the absolute path it names, by rules 1 and 2 above.
func resourcePath(uri string) (string, error) {
	const scheme = "file://"
	if len(uri) < len(scheme) || !strings.EqualFold(uri[:len(scheme)], scheme) {
		return "", errors.New("Only file:///absolute/path URIs are served.")
	}
	rest := uri[len(scheme):]
	if strings.ContainsAny(rest, "?#") {
		return "", errors.New("A file URI here has no query or fragment; percent-encode '?' and '#' in names (%3F, %23).")
	}
	if !strings.HasPrefix(rest, "/") {
		return "", errors.New("A file URI here names no host: write file:///absolute/path (three slashes).")
	}
	segs := strings.Split(rest[1:], "/")
	for i, seg := range segs {
		dec, err := url.PathUnescape(seg)
		switch {
		case err != nil:
			return "", fmt.Errorf("Path segment %d of the URI is not valid percent-encoding.", i+1)
		case dec == "":
			return "", errors.New("The URI's path has an empty segment (a doubled or trailing slash); name one file.")
		case dec == "." || dec == "..":
			return "", errors.New("The URI's path may not contain '.' or '..' segments (encoded or not); give the file's own absolute path.")
		case strings.ContainsAny(dec, "/\x00"):
			return "", fmt.Errorf("Path segment %d of the URI encodes a slash or NUL (%%2F, %%00); give the file's own absolute path.", i+1)
		}
		segs[i] = dec
	}
	return "/" + strings.Join(segs, "/"), nil
}

// textType is the media type of a text file, by extension; text/plain when not known. A fixed
// table rather than the system's mime.types, so the answer does not depend on the machine.
func textType(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".html", ".htm":
		return "text/html"
	case ".css":
		return "text/css"
	case ".csv":
		return "text/csv"
	case ".js", ".mjs", ".cjs":
		return "text/javascript"
	case ".xml":
		return "application/xml"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".svg":
		return "image/svg+xml"
	}
	return "text/plain"
}
