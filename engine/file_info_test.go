package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// TestFileInfo_BinaryHashAndMediaType: file_info shows the hash and media type of every regular file.
func TestFileInfo_BinaryHashAndMediaType(t *testing.T) {
	fx := makeFixture(t, "notes.txt: hi\n")
	png := []byte("\x89PNG\r\n\x1a\nrest")
	writeRaw(t, fx, "p.png", png)
	e := fx.engine(schema.Config{})
	info := func(p string) *schema.FileInfoResult {
		return mustCall(t, e, "file_info", schema.FileInfoArgs{Path: p}, Hooks{}).(*schema.FileInfoResult)
	}
	if r := info("p.png"); r.MediaType != "image/png" || r.Hash != text.ContentHash(png) || !strings.HasSuffix(r.Text, "binary: True\nmedia_type: image/png\nhash: "+text.ContentHash(png)) {
		t.Errorf("p.png: %+v", r)
	}
	if r := info("notes.txt"); r.MediaType != "text/plain" || strings.Contains(r.Text, "media_type") {
		t.Errorf("notes.txt: media %q, text %q", r.MediaType, r.Text)
	}
}
