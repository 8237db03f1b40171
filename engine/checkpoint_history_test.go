package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsbox/fsbox/schema"
)

// gitChange is one file change of this repository's history: its path and new content, or a
// deletion (gone).
type gitChange struct {
	path    string
	content string
	gone    bool
}

// gitHistory returns the first n file changes of this repository's history, oldest first, with
// their contents (read through one `git cat-file --batch`); text files under 256 KiB only.
func gitHistory(t *testing.T, n int) []gitChange {
	t.Helper()
	out, err := exec.Command("git", "log", "--reverse", "--format=C%H", "--name-status", "--no-renames").Output()
	if err != nil {
		t.Skipf("no git history here: %v", err)
	}
	type ref struct{ commit, path, status string }
	var refs []ref
	commit := ""
	for _, line := range strings.Split(string(out), "\n") {
		if c, ok := strings.CutPrefix(line, "C"); ok {
			commit = c
			continue
		}
		st, p, ok := strings.Cut(line, "\t")
		if ok && (st == "A" || st == "M" || st == "D") {
			refs = append(refs, ref{commit, p, st})
		}
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	defer in.Close()
	rd := bufio.NewReader(stdout)
	var changes []gitChange
	for _, r := range refs {
		if len(changes) == n {
			break
		}
		if r.status == "D" {
			changes = append(changes, gitChange{path: r.path, gone: true})
			continue
		}
		fmt.Fprintf(in, "%s:%s\n", r.commit, r.path)
		head, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			continue // missing
		}
		size, _ := strconv.Atoi(f[2])
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		body = body[:size]
		if f[1] != "blob" || size > 256<<10 || !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
			continue
		}
		changes = append(changes, gitChange{path: r.path, content: string(body)})
	}
	if len(changes) < n {
		t.Skipf("only %d changes in this repository's history", len(changes))
	}
	return changes
}

// replay applies changes through the tools: create_directory for a missing parent, write_file,
// delete (recursive for a directory left empty is not needed: files only).
func replay(t *testing.T, e *Engine, changes []gitChange) {
	t.Helper()
	for _, c := range changes {
		if c.gone {
			if _, err := tryCall(t, e, "delete", map[string]any{"path": c.path}, Hooks{}); err != nil && err.Kind != schema.KindNotFound {
				t.Fatalf("delete %s: %s", c.path, err.Msg)
			}
			continue
		}
		if dir := path.Dir(c.path); dir != "." {
			mustCall(t, e, "create_directory", map[string]any{"path": dir}, Hooks{})
		}
		mustCall(t, e, "write_file", map[string]any{"path": c.path, "content": c.content}, Hooks{})
	}
}

// TestRestoreReplayedHistory is the done-when: 250 changes of this repository's history
// make the tree at the checkpoint, the next 500 are applied through write_file and delete, and
// restoring the checkpoint yields the tree byte for byte.
func TestRestoreReplayedHistory(t *testing.T) {
	changes := gitHistory(t, 750)
	fx := makeFixture(t)
	e, _ := journalEngine(t, fx, nil, nil)
	replay(t, e, changes[:250])
	before := snapshot(t, fx.root)
	id := checkpoint(t, e, "after 250")
	replay(t, e, changes[250:])
	if snapshot(t, fx.root) == before {
		t.Fatal("500 changes changed nothing")
	}
	res := restore(t, e, id, false)
	if !res.Complete {
		t.Fatalf("restore incomplete: %+v", res.NotRestored[:min(5, len(res.NotRestored))])
	}
	if got := snapshot(t, fx.root); got != before {
		t.Fatalf("restored tree differs from the checkpoint (%d vs %d bytes of snapshot)", len(got), len(before))
	}
	t.Logf("restored %d paths, %d unchanged", len(res.Restored), len(res.Unchanged))
	_ = context.Background
}
