package engine

import (
	"fmt"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// binaryHeader is read_file's first line for a binary file: path label, media type, size and,
// when hashes are on, the hash the model can pass as expected_hash.
func (e *Engine) binaryHeader(label, mediaType string, size int64, hash string) string {
	if !e.hashes {
		return fmt.Sprintf("[%s | %s | %d bytes]\n", label, mediaType, size)
	}
	return fmt.Sprintf("[%s | %s | %d bytes | hash:%s]\n", label, mediaType, size, hash)
}

// renderBinary fills read_file's result for a binary file:
//
//  1. an image or PDF of at most text.MaxMediaBytes: the header alone as text, the bytes as Data with
//     their MediaType, for the host to hand to a multimodal model;
//  2. a larger one: the header and a line saying it is too large to view;
//  3. any other binary file: the header and a hex dump of its first bytes, within max_read_chars.
//
// The header carries the hash in every case, so the model can guard a later overwrite.
func (e *Engine) renderBinary(res *schema.ReadFileResult, sc *scan.Result, label string, maxChars int) {
	res.Binary = true
	mediaType := sc.Media
	if mediaType == "" {
		mediaType = text.BinaryType(sc.Head)
	}
	res.MediaType = mediaType
	header := e.binaryHeader(label, mediaType, sc.Size, sc.Hash)
	switch {
	case sc.Media != "" && sc.Data != nil:
		res.Data = sc.Data
		res.Text = header
	case sc.Media != "":
		res.Text = fmt.Sprintf("%sToo large to view: the limit is %d bytes.\n", header, text.MaxMediaBytes)
	default:
		const intro = "Binary file; the first bytes in hex:\n"
		const moreNotice = len("... (999999999999 more bytes)\n")
		budget := maxChars - utf8.RuneCountInString(header) - len(intro) - moreNotice
		res.Text = header + intro + text.HexPreview(sc.Head, sc.Size, budget)
	}
}
