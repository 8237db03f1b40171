package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestCreateDirectoryAndFileInfo(t *testing.T) {
	fx := makeFixture(t, "hello.txt: Hello, world!\n", "binary.bin: \\0\x01", "link.txt => $ROOT/hello.txt", "p |", "subdir/")
	e := fx.engine(schema.Config{})
	var rec recorder
	res := mustCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "sub/../new/deep"}, rec.hooks(false)).(*schema.CreateDirectoryResult)
	if res.Text != "Created directory: sub/../new/deep" || !res.Created || len(rec.events) != 1 {
		t.Errorf("create = %+v, events %v", res, rec.events)
	}
	if ev := rec.events[0].(*schema.DirectoryCreatedEvent); ev.Path != "new/deep" {
		t.Errorf("event path %q", ev.Path)
	}
	res = mustCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "new/deep"}, rec.hooks(false)).(*schema.CreateDirectoryResult)
	if res.Created || len(rec.events) != 1 {
		t.Errorf("existing: %+v", res)
	}
	_, err := tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "hello.txt"}, Hooks{})
	wantKind(t, "create over file", err, "already_exists")
	_, err = tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "hello.txt/nested"}, Hooks{})
	wantKind(t, "create under file", err, "parent_not_directory")
	_, err = tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: ".git/hooks"}, Hooks{})
	wantKind(t, "create .git/hooks", err, "protected")

	info := func(p string) string {
		return mustCall(t, e, "file_info", schema.FileInfoArgs{Path: p}, Hooks{}).(*schema.FileInfoResult).Text
	}
	if got, want := info("hello.txt"), "path: hello.txt\ntype: file\nsize: 14 bytes\nbinary: False\nlines: 1\nhash: d9014c462484"; got != want {
		t.Errorf("info = %q; want %q", got, want)
	}
	if got, want := info("link.txt"), "path: link.txt\ntype: file\nsize: 14 bytes\nbinary: False\nlines: 1\nhash: d9014c462484\nsymlink_target: hello.txt"; got != want {
		t.Errorf("info link = %q; want %q", got, want)
	}
	if got, want := info("p"), "path: p\ntype: file\nsize: 0 bytes"; got != want {
		t.Errorf("info fifo = %q; want %q", got, want)
	}
	if got := info("binary.bin"); !strings.Contains(got, "binary: True\nmedia_type: application/octet-stream\nhash: ") {
		t.Errorf("info binary = %q; want its media type and hash", got)
	}
	if got := info("subdir"); !strings.HasPrefix(got, "path: subdir\ntype: directory\nsize: ") {
		t.Errorf("info dir = %q", got)
	}
	_, err = tryCall(t, e, "file_info", schema.FileInfoArgs{Path: "nonexistent"}, Hooks{})
	wantKind(t, "info missing", err, "not_found")
}
