package text

import (
	"bytes"
	"fmt"
	"strings"
)

// MaxMediaBytes is the largest image or PDF read_file returns as data: 5 MB, the strictest
// per-image limit among the main model providers, so what fsbox hands over does not fail the
// next model request. Larger media get the binary description instead.
const MaxMediaBytes = 5_000_000

// HexPreviewBytes is how many leading bytes of a non-media binary file read_file shows in hex.
const HexPreviewBytes = 64

// HexRowChars is the length of one full hex row: an 8-digit offset, two spaces, 16 bytes as
// two digits each with a space between, and the newline.
const HexRowChars = 8 + 2 + 16*3 - 1 + 1

// SniffMedia returns the media type of an image or PDF from its leading bytes, or "". Only these
// are handed to a model as data: most multimodal models take them, while audio, video and office
// documents fail on several providers. The bytes decide, not the name, so a misnamed file is not
// sent under the wrong type.
func SniffMedia(head []byte) string {
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

// BinaryType names the type of a binary file that is not media, from a few well-known signatures;
// anything else is application/octet-stream. It reads content only (never the system's MIME
// tables), so the answer is the same on every machine.
func BinaryType(head []byte) string {
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

// HexPreview renders up to HexPreviewBytes of head as offset-prefixed rows of 16 bytes, as many
// rows as fit maxChars, then a line saying how many bytes were not shown.
func HexPreview(head []byte, size int64, maxChars int) string {
	n := min(len(head), HexPreviewBytes, max(maxChars/HexRowChars, 0)*16)
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

// SniffBytes is how much of a file decides whether it is binary: a NUL byte among the first
// 8192 bytes (index 8191 counts, 8192 does not).
const SniffBytes = 8192

// HasNUL reports whether the sniffed prefix of a file (its first SniffBytes bytes or fewer)
// contains a NUL byte, which makes the file binary.
func HasNUL(prefix []byte) bool {
	if len(prefix) > SniffBytes {
		prefix = prefix[:SniffBytes]
	}
	return bytes.IndexByte(prefix, 0) >= 0
}
