package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// journalEngine opens an engine on fx with the journal in a host directory outside the root
// (returned), with the optional tools enabled.
func journalEngine(t *testing.T, fx *fixture, jc *schema.JournalConfig, dropped func(schema.CheckpointDroppedParams)) (*Engine, string) {
	t.Helper()
	if jc == nil {
		jc = &schema.JournalConfig{}
	}
	if jc.Dir == "" {
		jc.Dir = filepath.Join(filepath.Dir(fx.root), "journal")
	}
	tools := []string{}
	for _, tl := range schema.Tools {
		tools = append(tools, tl.Name)
	}
	e, err := New(schema.Config{RootDir: fx.root, Tools: tools, Journal: jc}, Options{Journal: JournalOptions{Dropped: dropped}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, jc.Dir
}

func checkpoint(t *testing.T, e *Engine, label string) string {
	t.Helper()
	cp, err := e.CheckpointCreate(label)
	if err != nil {
		t.Fatal(err)
	}
	return cp.ID
}

func restore(t *testing.T, e *Engine, id string, force bool) *schema.CheckpointRestoreResult {
	t.Helper()
	res, err := e.CheckpointRestore(context.Background(), id, force)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRestoreEveryChangeTool changes a tree with every change tool, the model moving and
// deleting directories between the checkpoint and the restore, and restores it byte for byte
// (modes included).
func TestRestoreEveryChangeTool(t *testing.T) {
	fx := makeFixture(t, "a.txt: alpha\n", "keep/b.txt: beta\n", "keep/deep/c.txt: gamma\n", "gone/d.txt: delta\n",
		"empty/", "mv/e.txt: eps\n", "patch.txt: one\ntwo\nthree\n", "edit.txt: hello world\n", `big.bin: \0\0binary\n`)
	os.Chmod(fx.abs("a.txt"), 0o750)
	e, _ := journalEngine(t, fx, nil, nil)
	before := snapshot(t, fx.root)
	id := checkpoint(t, e, "start")

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "a.txt", "content": "changed\n"}},
		{"write_file", map[string]any{"path": "new.txt", "content": "new\n"}},
		{"edit_file", map[string]any{"path": "edit.txt", "old_text": "world", "new_text": "there"}},
		{"create_directory", map[string]any{"path": "made/x/y"}},
		{"delete", map[string]any{"path": "gone", "recursive": true}},
		{"move_file", map[string]any{"source": "keep", "destination": "moved"}},
		{"move_file", map[string]any{"source": "mv/e.txt", "destination": "e2.txt"}},
		{"remove_directory", map[string]any{"path": "empty"}},
		{"delete", map[string]any{"path": "big.bin"}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: patch.txt\n@@\n one\n-two\n+TWO\n three\n*** Add File: added/p.txt\n+p\n*** End Patch\n"}},
		{"str_replace_based_edit_tool", map[string]any{"command": "create", "path": "made/x/z.txt", "file_text": "z\n"}},
		{"write_file", map[string]any{"path": "gone", "content": "a file where a directory was\n"}},
	}
	for _, c := range calls {
		mustCall(t, e, c.tool, c.args, Hooks{})
	}
	if snapshot(t, fx.root) == before {
		t.Fatal("the calls changed nothing")
	}
	diff, err := e.CheckpointDiff(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff.Diff, "-alpha") || !strings.Contains(diff.Diff, "+changed") {
		t.Errorf("diff lacks a.txt's change:\n%s", diff.Diff)
	}
	res := restore(t, e, id, false)
	if !res.Complete {
		t.Fatalf("restore incomplete: %+v", res.NotRestored)
	}
	if got := snapshot(t, fx.root); got != before {
		t.Errorf("restored tree differs:\n got %s\nwant %s", got, before)
	}
	// The same restore again finds everything in place.
	again := restore(t, e, id, false)
	if !again.Complete || len(again.Restored) != 0 {
		t.Errorf("second restore: restored %v, not restored %+v", again.Restored, again.NotRestored)
	}
}

// TestRestoreRefusesOthersChanges: a path someone else changed since fsbox last wrote it is
// left alone and reported; force overwrites it and says so.
func TestRestoreRefusesOthersChanges(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n", "b.txt: b\n")
	e, _ := journalEngine(t, fx, nil, nil)
	id := checkpoint(t, e, "")
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, Hooks{})
	mustCall(t, e, "write_file", map[string]any{"path": "b.txt", "content": "model\n"}, Hooks{})
	os.WriteFile(fx.abs("a.txt"), []byte("human\n"), 0o644)
	res := restore(t, e, id, false)
	if res.Complete || len(res.NotRestored) != 1 || res.NotRestored[0].Path != "a.txt" || res.NotRestored[0].Kind != "conflict" {
		t.Fatalf("want a conflict on a.txt, got %+v", res)
	}
	if fx.read("a.txt") != "human\n" || fx.read("b.txt") != "b\n" {
		t.Errorf("a.txt %q (want the human's), b.txt %q (want restored)", fx.read("a.txt"), fx.read("b.txt"))
	}
	res = restore(t, e, id, true)
	if !res.Complete || len(res.Overwritten) != 1 || res.Overwritten[0] != "a.txt" || fx.read("a.txt") != "a\n" {
		t.Errorf("force: %+v, a.txt %q", res, fx.read("a.txt"))
	}
}

// TestJournalOutsideTheModel: a journal directory inside the root, inside a mount, or around
// the root is refused; the model writing files named like the journal's own changes nothing
// in the journal, and the journal's files are nowhere the model can reach.
func TestJournalOutsideTheModel(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n", "$OUTSIDE/m.txt: m\n")
	for name, dir := range map[string]string{
		"inside the root":  filepath.Join(fx.root, "journal"),
		"the root itself":  fx.root,
		"around the root":  filepath.Dir(fx.root),
		"inside the mount": filepath.Join(fx.outside, "j"),
	} {
		e, err := New(schema.Config{RootDir: fx.root, Journal: &schema.JournalConfig{Dir: dir},
			Mounts: []schema.Mount{{Path: "mnt", Dir: fx.outside}}}, Options{})
		if err == nil {
			e.Close()
			os.RemoveAll(dir + "/blobs")
			os.Remove(dir + "/index.jsonl")
		}
		if err == nil || !strings.Contains(err.Error(), "journal.dir") {
			t.Errorf("journal %s: want refused, got %v", name, err)
		}
	}
	e, jdir := journalEngine(t, fx, nil, nil)
	id := checkpoint(t, e, "")
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "b\n"}, Hooks{})
	for _, p := range []string{"index.jsonl", "blobs/x", "../journal/index.jsonl", jdir + "/index.jsonl"} {
		_, err := tryCall(t, e, "write_file", map[string]any{"path": p, "content": `{"t":"c","c":{"id":"cp-9","seq":0}}` + "\n"}, Hooks{})
		if strings.HasPrefix(p, "..") || strings.HasPrefix(p, "/") {
			if err == nil {
				t.Errorf("write_file %s reached outside the root", p)
			}
		}
	}
	if _, err := tryCall(t, e, "read_file", map[string]any{"path": jdir + "/index.jsonl"}, Hooks{}); err == nil {
		t.Error("the model read the journal's index")
	}
	list, _ := e.CheckpointList()
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].ID != id {
		t.Errorf("checkpoints after the model's writes: %+v", list.Checkpoints)
	}
	res := restore(t, e, id, false)
	if !res.Complete || fx.read("a.txt") != "a\n" {
		t.Fatalf("restore: %+v, a.txt %q", res, fx.read("a.txt"))
	}
	// The model's look-alikes were its own changes: restore removed them too.
	if _, err := os.Stat(fx.abs("index.jsonl")); err == nil {
		t.Error("index.jsonl written by the model survived the restore")
	}
}

// TestJournalBound: past journal.max_bytes the oldest checkpoint goes whole, with a notice; a
// file bigger than the bound is recorded as not restorable; the checkpoints kept restore
// completely.
func TestJournalBound(t *testing.T) {
	fx := makeFixture(t, "huge.bin: x\n")
	os.WriteFile(fx.abs("huge.bin"), make([]byte, 300<<10), 0o644)
	max := int64(256 << 10)
	var dropped []schema.CheckpointDroppedParams
	e, _ := journalEngine(t, fx, &schema.JournalConfig{MaxBytes: &max}, func(d schema.CheckpointDroppedParams) { dropped = append(dropped, d) })
	first := checkpoint(t, e, "first")
	mustCall(t, e, "delete", map[string]any{"path": "huge.bin"}, Hooks{})
	res := restore(t, e, first, false)
	if res.Complete || len(res.NotRestored) != 1 || res.NotRestored[0].Kind != "not_restorable" {
		t.Fatalf("huge file: want not_restorable, got %+v", res)
	}
	var ids []string
	chunk := strings.Repeat("0123456789abcdef", 1<<10) // 16 KiB
	for i := 0; i < 40; i++ {
		ids = append(ids, checkpoint(t, e, ""))
		mustCall(t, e, "write_file", map[string]any{"path": "f.txt", "content": chunk + string(rune('a'+i%26))}, Hooks{})
	}
	size, bound := e.jr.Size()
	if size > bound {
		t.Errorf("journal holds %d bytes, over its bound %d", size, bound)
	}
	if len(dropped) == 0 || dropped[0].ID != first {
		t.Fatalf("want the first checkpoint dropped with a notice, got %+v", dropped)
	}
	list, _ := e.CheckpointList()
	oldest := list.Checkpoints[0].ID
	if _, err := e.CheckpointRestore(context.Background(), first, false); err == nil {
		t.Error("a dropped checkpoint still restores")
	}
	// The oldest kept checkpoint is complete: restoring it gives f.txt as it was then.
	var at int
	for i, id := range ids {
		if id == oldest {
			at = i
		}
	}
	want := "<missing>"
	if at > 0 {
		want = chunk + string(rune('a'+(at-1)%26))
	}
	res = restore(t, e, oldest, false)
	if !res.Complete || fx.read("f.txt") != want {
		t.Errorf("oldest kept checkpoint %s: complete %v, f.txt %d bytes", oldest, res.Complete, len(fx.read("f.txt")))
	}
}
