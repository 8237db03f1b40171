package engine

import (
	"fmt"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// fileInfo serves file_info. A FIFO, socket or device is never opened: its text says "type: file"
// as pydantic-ai-harness's does, its typed Type is "other". Regular files are streamed once for binary, line
// count, hash and media type (hashes of binary files too, so a model can guard an overwrite).
func (e *Engine) fileInfo(c *call, a *schema.FileInfoArgs) (*schema.FileInfoResult, error) {
	r, _, rerr := e.resolveFor(c.tool, a.Path, accessRead)
	if rerr != nil {
		return nil, rerr
	}
	c.audit.path(r.rel)
	if !r.exists {
		return nil, fserr.Errorf(c.tool, r.rel, schema.KindNotFound, "Path not found: %s", a.Path)
	}
	res := &schema.FileInfoResult{Path: e.displayOf(r), Size: r.info.Size()}
	lines := []string{"path: " + a.Path}
	switch {
	case r.info.IsDir():
		res.Type = "directory"
		lines = append(lines, "type: directory", fmt.Sprintf("size: %d bytes", res.Size))
	case !r.info.Mode().IsRegular():
		res.Type = "other"
		lines = append(lines, "type: file", fmt.Sprintf("size: %d bytes", res.Size))
	default:
		res.Type = "file"
		r2, f, fi, oerr := e.openStable(c.tool, r, accessRead)
		if oerr != nil {
			return nil, oerr
		}
		r = r2
		sc, err := scan.Read(c.ctx, f, fi.Size(), scan.Window{})
		f.Close()
		if err != nil {
			return nil, e.scanError(c.tool, r, err)
		}
		res.Size = fi.Size()
		binary := sc.Binary
		res.Binary = &binary
		lines = append(lines, "type: file", fmt.Sprintf("size: %d bytes", res.Size), "binary: "+pyBool(binary))
		res.MediaType = "text/plain"
		if binary {
			res.MediaType = sc.Media
			if res.MediaType == "" {
				res.MediaType = text.BinaryType(sc.Head)
			}
			lines = append(lines, "media_type: "+res.MediaType)
		} else {
			n := sc.Lines
			res.Lines = &n
			lines = append(lines, fmt.Sprintf("lines: %d", n))
		}
		if e.hashes {
			res.Hash = sc.Hash
			lines = append(lines, "hash: "+sc.Hash)
		}
	}
	if target, ok := e.linkTarget(r); ok {
		res.SymlinkTarget = target
		lines = append(lines, "symlink_target: "+target)
	}
	res.Text = strings.Join(lines, "\n")
	return res, nil
}

// linkTarget reports the target of the path as the model wrote it, when that (lexical) path is a
// symlink: relative targets as written when they stay in the root, absolute ones root-relative
// when inside the root; anything leading out is fserr.OutsidePlaceholder (a link's outside target is
// never shown: docs/protocol.md §6, no host path in model-facing text).
func (e *Engine) linkTarget(r *resolved) (string, bool) {
	if r.lexical == "" || r.lexical == "." {
		return "", false
	}
	root, sub, _ := e.rootFor(r.lexical)
	target, err := root.Readlink(sub)
	if err != nil {
		return "", false
	}
	if !strings.HasPrefix(target, "/") {
		dir, _ := relpath.Parent(r.lexical)
		if relpath.Clean(append(relpath.Split(dir), strings.Split(target, "/")...)) == "" {
			return fserr.OutsidePlaceholder, true
		}
		return target, true
	}
	return e.hostToModel(target), true
}

// pyBool spells a bool as Python prints it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
