package engine

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

func writeRaw(t *testing.T, fx *fixture, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(fx.abs(name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadFile_Binary: a binary read carries the hash and a bounded hex preview; images and PDFs,
// told by content, come back whole as typed data, never in the text; past the media cap, a notice.
func TestReadFile_Binary(t *testing.T) {
	fx := makeFixture(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	pdf := []byte("%PDF-1.7\nno NUL byte here\n%%EOF\n")
	blob := append([]byte{0, 1, 2, 3}, bytes.Repeat([]byte{0xab}, 200)...)
	big := append([]byte("GIF89a"), make([]byte, text.MaxMediaBytes)...)
	writeRaw(t, fx, "shot.bin", png) // the name says nothing: the content decides
	writeRaw(t, fx, "doc.pdf", pdf)
	writeRaw(t, fx, "blob.dat", blob)
	writeRaw(t, fx, "huge.gif", big)
	e := fx.engine(schema.Config{})
	read := func(p string) *schema.ReadFileResult {
		return mustCall(t, e, "read_file", schema.ReadFileArgs{Path: p}, Hooks{}).(*schema.ReadFileResult)
	}

	res := read("shot.bin")
	if res.MediaType != "image/png" || !bytes.Equal(res.Data, png) || !res.Binary {
		t.Errorf("png: media %q, %d data bytes, binary %v", res.MediaType, len(res.Data), res.Binary)
	}
	if want := "[shot.bin | image/png | 108 bytes | hash:" + text.ContentHash(png) + "]\n"; res.Text != want {
		t.Errorf("png text = %q; want %q", res.Text, want)
	}
	if res := read("doc.pdf"); res.MediaType != "application/pdf" || !bytes.Equal(res.Data, pdf) || res.Content != nil {
		t.Errorf("pdf: media %q, %d data bytes, content %v", res.MediaType, len(res.Data), res.Content)
	}

	res = read("blob.dat")
	want := "[blob.dat | application/octet-stream | 204 bytes | hash:" + text.ContentHash(blob) + "]\n" +
		"Binary file; the first bytes in hex:\n" +
		"00000000  00 01 02 03 ab ab ab ab ab ab ab ab ab ab ab ab\n" +
		"00000010  ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab\n" +
		"00000020  ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab\n" +
		"00000030  ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab\n" +
		"... (140 more bytes)\n"
	if res.Text != want || res.Data != nil || res.Hash != text.ContentHash(blob) {
		t.Errorf("blob text = %q\nwant %q (data %d bytes)", res.Text, want, len(res.Data))
	}

	res = read("huge.gif")
	if res.Data != nil || !strings.HasSuffix(res.Text, "Too large to view: the limit is 5000000 bytes.\n") || res.MediaType != "image/gif" {
		t.Errorf("huge gif: %d data bytes, text %q", len(res.Data), res.Text)
	}

	// The preview stays within max_read_chars, and hashes off hides the hash.
	small := fx.engine(schema.Config{MaxReadChars: intp(200), ContentHashes: boolp(false)})
	res = mustCall(t, small, "read_file", schema.ReadFileArgs{Path: "blob.dat"}, Hooks{}).(*schema.ReadFileResult)
	if len([]rune(res.Text)) > 200 || strings.Contains(res.Text, "hash:") || !strings.Contains(res.Text, "00000000  00 01 02 03") {
		t.Errorf("small budget: %d chars: %q", len([]rune(res.Text)), res.Text)
	}
}

func boolp(b bool) *bool { return &b }
