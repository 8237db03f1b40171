package engine

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/schema"
)

// maxMediaBytes is the largest image or PDF read_file returns as data: 5 MB, the strictest
// per-image limit among the main model providers, so what fsbox hands over does not fail the
// next model request. Larger media get the binary description instead.
const maxMediaBytes = 5_000_000

// hexPreviewBytes is how many leading bytes of a non-media binary file read_file shows in hex.
const hexPreviewBytes = 64

// hexRowChars is the length of one full hex row: an 8-digit offset, two spaces, 16 bytes as
// two digits each with a space between, and the newline.
const hexRowChars = 8 + 2 + 16*3 - 1 + 1

// sniffMedia returns the media type of an image or PDF from its leading bytes, or "". Only these
// are handed to a model as data: most multimodal models take them, while audio, video and office
// documents fail on several providers. The bytes decide, not the name, so a misnamed file is not
// sent under the wrong type.
func sniffMedia(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return "image/webp"
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "application/pdf"
	}
	return ""
}

// binaryType names the type of a binary file that is not media, from a few well-known signatures;
// anything else is application/octet-stream. It reads content only (never the system's MIME
// tables), so the answer is the same on every machine.
func binaryType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "application/zip"
	case bytes.HasPrefix(head, []byte("\x1f\x8b")):
		return "application/gzip"
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "application/x-executable"
	case bytes.HasPrefix(head, []byte("\x00asm")):
		return "application/wasm"
	}
	return "application/octet-stream"
}

// binaryHeader is read_file's first line for a binary file: path label, media type, size and,
// when hashes are on, the hash the model can pass as expected_hash.
func (e *Engine) binaryHeader(label, mediaType string, size int64, hash string) string {
	if !e.hashes {
		return fmt.Sprintf("[%s | %s | %d bytes]\n", label, mediaType, size)
	}
	return fmt.Sprintf("[%s | %s | %d bytes | hash:%s]\n", label, mediaType, size, hash)
}

// hexPreview renders up to hexPreviewBytes of head as offset-prefixed rows of 16 bytes, as many
// rows as fit maxChars, then a line saying how many bytes were not shown.
func hexPreview(head []byte, size int64, maxChars int) string {
	n := min(len(head), hexPreviewBytes, max(maxChars/hexRowChars, 0)*16)
	var b strings.Builder
	for start := 0; start < n; start += 16 {
		row := head[start:min(start+16, n)]
		fmt.Fprintf(&b, "%08x ", start)
		for _, c := range row {
			fmt.Fprintf(&b, " %02x", c)
		}
		b.WriteByte('\n')
	}
	if rest := size - int64(n); rest > 0 {
		fmt.Fprintf(&b, "... (%d more bytes)\n", rest)
	}
	return b.String()
}

// renderBinary fills read_file's result for a binary file:
//
//  1. an image or PDF of at most maxMediaBytes: the header alone as text, the bytes as Data with
//     their MediaType, for the host to hand to a multimodal model;
//  2. a larger one: the header and a line saying it is too large to view;
//  3. any other binary file: the header and a hex dump of its first bytes, within max_read_chars.
//
// The header carries the hash in every case, so the model can guard a later overwrite.
func (e *Engine) renderBinary(res *schema.ReadFileResult, sc *scanResult, label string, maxChars int) {
	res.Binary = true
	mediaType := sc.media
	if mediaType == "" {
		mediaType = binaryType(sc.head)
	}
	res.MediaType = mediaType
	header := e.binaryHeader(label, mediaType, sc.size, sc.hash)
	switch {
	case sc.media != "" && sc.data != nil:
		res.Data = sc.data
		res.Text = header
	case sc.media != "":
		res.Text = fmt.Sprintf("%sToo large to view: the limit is %d bytes.\n", header, maxMediaBytes)
	default:
		const intro = "Binary file; the first bytes in hex:\n"
		const moreNotice = len("... (999999999999 more bytes)\n")
		budget := maxChars - utf8.RuneCountInString(header) - len(intro) - moreNotice
		res.Text = header + intro + hexPreview(sc.head, sc.size, budget)
	}
}
