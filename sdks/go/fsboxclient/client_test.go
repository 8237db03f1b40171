//go:build unix

// The tests use shell scripts as stand-in servers and signal 0 to check that no child is left.

package fsboxclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain builds the fsbox binary the tests drive, unless FSBOX_BIN names one already. No test
// mocks the server.
func TestMain(m *testing.M) {
	if os.Getenv("FSBOX_BIN") == "" {
		dir, err := os.MkdirTemp("", "fsboxclient-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		bin := filepath.Join(dir, "fsbox")
		build := exec.Command("go", "build", "-o", bin, "./cmd/fsbox")
		build.Dir = filepath.Join("..", "..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building fsbox: %v\n%s", err, out)
			os.Exit(1)
		}
		os.Setenv("FSBOX_BIN", bin)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// allTools enables the opt-in tools the SDK has typed methods for, besides the defaults.
var allTools = []string{"read_file", "write_file", "edit_file", "list_directory", "search_files", "find_files",
	"create_directory", "file_info", "read_multiple_files", "directory_tree"}

// start starts a client on a fresh root (unless opts names one) and closes it after the test.
func start(t *testing.T, opts Options) *Client {
	t.Helper()
	if opts.RootDir == "" {
		opts.RootDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeTestFile(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fsboxError asserts that err is an *Error and returns it.
func fsboxError(t *testing.T, err error) *Error {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want an *Error", err, err)
	}
	return fe
}

func TestSession(t *testing.T) {
	root := t.TempDir()
	c := start(t, Options{RootDir: root})
	s := c.Session()
	resolved, _ := filepath.EvalSymlinks(root)
	if s.RootDir != resolved || s.Cwd != "." || s.ProtocolVersion != ProtocolVersion {
		t.Errorf("session = %+v", s)
	}
	// The server embeds the same committed schema the SDK was generated from.
	if s.SchemaHash != SchemaHash {
		t.Errorf("server schema %s, SDK generated from %s: run go run ./cmd/fsbox gen", s.SchemaHash, SchemaHash)
	}
	var names []string
	for _, tool := range c.Tools() {
		names = append(names, tool.Name)
		if len(tool.InputSchema) == 0 || tool.Description == "" {
			t.Errorf("tool %s has no input schema or description", tool.Name)
		}
	}
	if got := strings.Join(names, ","); got != strings.Join(allTools[:8], ",") {
		t.Errorf("default tools = %s", got)
	}
	listed, err := c.ListTools(context.Background())
	if err != nil || len(listed) != 8 {
		t.Errorf("ListTools = %d tools, %v", len(listed), err)
	}
	schema, err := c.Schema(context.Background())
	if err != nil || !strings.Contains(string(schema), `"x-fsbox"`) {
		t.Errorf("Schema = %.80s…, %v", schema, err)
	}
}

// TestEveryTool makes one round trip through each typed method.
func TestEveryTool(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "src/main.go", "package main\n\nfunc main() {}\n")
	c := start(t, Options{RootDir: root, Config: &Config{Tools: allTools}})
	ctx := context.Background()

	w, err := c.WriteFile(ctx, WriteFileParams{Path: "notes.txt", Content: "one\ntwo\nthree\n"})
	if err != nil || !w.Created || w.Lines != 3 || w.Hash == nil {
		t.Fatalf("WriteFile = %+v, %v", w, err)
	}
	r, err := c.ReadFile(ctx, ReadFileParams{Path: "notes.txt", Offset: new(1), Limit: new(1)})
	if err != nil || r.TotalLines != 3 || r.LinesShown != 1 || r.NextOffset == nil || *r.NextOffset != 2 ||
		!strings.Contains(r.Text, "     2\ttwo\n") || *r.Hash != *w.Hash {
		t.Errorf("ReadFile = %+v, %v", r, err)
	}
	e, err := c.EditFile(ctx, EditFileParams{Path: "notes.txt", OldText: new("two"), NewText: new("2"), ExpectedHash: w.Hash})
	if err != nil || e.Replacements != 1 {
		t.Errorf("EditFile = %+v, %v", e, err)
	}
	e, err = c.EditFile(ctx, EditFileParams{Path: "notes.txt", Replacements: []Replacement{{OldText: "one", NewText: "1"}, {OldText: "three", NewText: "3"}}})
	if err != nil || e.Replacements != 2 {
		t.Errorf("EditFile with replacements = %+v, %v", e, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "1\n2\n3\n" {
		t.Errorf("after the edits the file holds %q", b)
	}
	l, err := c.ListDirectory(ctx, ListDirectoryParams{})
	if err != nil || len(l.Entries) != 2 || l.Entries[0].Path != "notes.txt" || l.Entries[0].Type != "file" ||
		*l.Entries[0].Size != 6 || l.Entries[1].Path != "src/" {
		t.Errorf("ListDirectory = %+v, %v", l, err)
	}
	s, err := c.SearchFiles(ctx, SearchFilesParams{Pattern: "func \\w+", IncludeGlob: new("*.go")})
	if err != nil || len(s.Matches) != 1 || s.Matches[0] != (SearchMatch{Path: "src/main.go", Line: 3, Text: "func main() {}"}) {
		t.Errorf("SearchFiles = %+v, %v", s, err)
	}
	f, err := c.FindFiles(ctx, FindFilesParams{Pattern: "**/*.go"})
	if err != nil || strings.Join(f.Paths, ",") != "src/main.go" || f.Truncated {
		t.Errorf("FindFiles = %+v, %v", f, err)
	}
	d, err := c.CreateDirectory(ctx, CreateDirectoryParams{Path: "a/b"})
	if err != nil || !d.Created || d.Path != "a/b" {
		t.Errorf("CreateDirectory = %+v, %v", d, err)
	}
	if d, err := c.CreateDirectory(ctx, CreateDirectoryParams{Path: "a/b"}); err != nil || d.Created {
		t.Errorf("CreateDirectory of an existing directory = %+v, %v", d, err)
	}
	i, err := c.FileInfo(ctx, FileInfoParams{Path: "notes.txt"})
	if err != nil || i.Type != "file" || i.Size != 6 || *i.Lines != 3 || *i.Binary || i.SymlinkTarget != nil {
		t.Errorf("FileInfo = %+v, %v", i, err)
	}
	m, err := c.ReadMultipleFiles(ctx, ReadMultipleFilesParams{Paths: []string{"notes.txt", "missing.txt"}})
	if err != nil || len(m.Files) != 2 || m.Files[0].Result == nil || m.Files[0].Result.TotalLines != 3 ||
		m.Files[1].Error == nil || m.Files[1].Error.Kind != KindNotFound {
		t.Errorf("ReadMultipleFiles = %+v, %v", m, err)
	}
	tree, err := c.DirectoryTree(ctx, DirectoryTreeParams{MaxDepth: new(1)})
	if err != nil {
		t.Fatalf("DirectoryTree: %v", err)
	}
	var paths []string
	for _, entry := range tree.Entries {
		paths = append(paths, entry.Path)
		if *entry.Depth != 1 {
			t.Errorf("entry %s at depth %d beyond max_depth 1", entry.Path, *entry.Depth)
		}
	}
	if got := strings.Join(paths, ","); got != "a/,notes.txt,src/" {
		t.Errorf("DirectoryTree entries = %s", got)
	}
}

// TestErrorMapping checks that tool failures arrive as *Error with the protocol's kind, code,
// retry flag and path.
func TestErrorMapping(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "a.txt", "alpha\n")
	c := start(t, Options{RootDir: root})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
		kind ErrorKind
		path string
	}{
		{"outside_root", func() error { _, err := c.ReadFile(ctx, ReadFileParams{Path: "../etc/passwd"}); return err }, KindOutsideRoot, ""},
		{"stale_hash", func() error {
			_, err := c.WriteFile(ctx, WriteFileParams{Path: "a.txt", Content: "x", ExpectedHash: new("000000000000")})
			return err
		}, KindStaleHash, "a.txt"},
		{"no_match", func() error {
			_, err := c.EditFile(ctx, EditFileParams{Path: "a.txt", OldText: new("omega"), NewText: new("x")})
			return err
		}, KindNoMatch, "a.txt"},
		{"protected", func() error { _, err := c.WriteFile(ctx, WriteFileParams{Path: ".envrc", Content: "K=v"}); return err }, KindProtected, ".envrc"},
		{"not_found", func() error { _, err := c.ReadFile(ctx, ReadFileParams{Path: "nope.txt"}); return err }, KindNotFound, "nope.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fsboxError(t, tc.call())
			if fe.Kind != tc.kind || fe.Code != CodeRetry || !fe.Retry || !fe.IsRetry() || fe.Message == "" {
				t.Errorf("error = %+v", fe)
			}
			if tc.path != "" && fe.Path != tc.path {
				t.Errorf("Path = %q, want %q", fe.Path, tc.path)
			}
			if !fe.Kind.Retry() {
				t.Errorf("%s.Retry() = false, the schema says retry", fe.Kind)
			}
			if !strings.Contains(fe.Error(), string(tc.kind)) {
				t.Errorf("Error() = %q does not name the kind", fe.Error())
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a refused call changed a.txt: %q", b)
	}
	// An unknown tool through the dynamic Call: the server's invalid-params error.
	_, err := c.Call(ctx, "no_such_tool", map[string]any{})
	if fe := fsboxError(t, err); fe.Kind != KindUnknownTool || fe.Code != CodeInvalidParams || !fe.Retry {
		t.Errorf("unknown tool: %+v", fe)
	}
}

// recorder collects events; OnEvent runs on the client's reader goroutine.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) onEvent(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.events
	r.events = nil
	return e
}

// TestEventsBeforeResult checks that a call's events have been delivered, typed, by the time the
// call returns: no waiting.
func TestEventsBeforeResult(t *testing.T) {
	root := t.TempDir()
	rec := &recorder{}
	c := start(t, Options{RootDir: root, OnEvent: rec.onEvent})
	ctx := context.Background()
	if _, err := c.WriteFile(ctx, WriteFileParams{Path: "a.txt", Content: "hi\n"}); err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	if len(got) != 1 {
		t.Fatalf("events after WriteFile = %v", got)
	}
	written, ok := got[0].(*FileWrittenEvent)
	resolved, _ := filepath.EvalSymlinks(root)
	if !ok || written.Path != "a.txt" || written.Tool != "write_file" || written.RootDir != resolved || written.ContentHash == "" {
		t.Errorf("event = %#v", got[0])
	}
	if _, err := c.ReadFile(ctx, ReadFileParams{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 1 || got[0].EventKind() != "file_system.file_read" {
		t.Errorf("events after ReadFile = %v", got)
	}
	if _, err := c.ReadFile(ctx, ReadFileParams{Path: "nope"}); err == nil {
		t.Fatal("reading a missing file succeeded")
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("a failed call emitted %v", got)
	}
	// Without OnEvent the client does not ask for events.
	quiet := start(t, Options{RootDir: root})
	if _, err := quiet.ReadFile(ctx, ReadFileParams{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("events reached another client: %v", got)
	}
}

func TestChangeRequestCancelled(t *testing.T) {
	root := t.TempDir()
	var seen []*ChangeRequest
	var mu sync.Mutex
	c := start(t, Options{RootDir: root, OnChangeRequest: func(_ context.Context, req *ChangeRequest) error {
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		return fmt.Errorf("wrapped: %w", req.Cancel("not today"))
	}})
	w, err := c.WriteFile(context.Background(), WriteFileParams{Path: "b.txt", Content: "x\n"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Cancelled == nil || !*w.Cancelled || w.CancelReason == nil || *w.CancelReason != "not today" ||
		w.Text != "['b.txt' was not written: not today]" {
		t.Errorf("result = %+v", w)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused write touched the disk: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Path != "b.txt" || seen[0].Operation != "write" || seen[0].Tool != "write_file" ||
		seen[0].Reason != "listener" || !strings.Contains(seen[0].Diff, "+x") {
		t.Errorf("change requests = %+v", seen)
	}
}

func TestChangeRequestApproved(t *testing.T) {
	root := t.TempDir()
	asked := 0
	c := start(t, Options{RootDir: root, OnChangeRequest: func(context.Context, *ChangeRequest) error {
		asked++ // calls are sequential here
		return nil
	}})
	w, err := c.WriteFile(context.Background(), WriteFileParams{Path: "b.txt", Content: "x\n"})
	if err != nil || w.Cancelled != nil || !w.Created {
		t.Fatalf("WriteFile = %+v, %v", w, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "x\n" || asked != 1 {
		t.Errorf("disk holds %q after %d change requests", b, asked)
	}
}

// TestChangeRequestEdited: ApproveWith and EditArguments (wrapped or not) apply the reviewer's
// replacement, and the result says so.
func TestChangeRequestEdited(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "t.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, Options{RootDir: root, OnChangeRequest: func(_ context.Context, req *ChangeRequest) error {
		switch req.Operation {
		case "write":
			return fmt.Errorf("wrapped: %w", req.ApproveWith("reviewed\n"))
		case "edit":
			return req.EditArguments(EditFileParams{Path: "t.txt", OldText: new("b"), NewText: new("B")})
		}
		return nil
	}})
	w, err := c.WriteFile(context.Background(), WriteFileParams{Path: "w.txt", Content: "model\n"})
	if err != nil || w.ModifiedByReviewer == nil || !*w.ModifiedByReviewer || !strings.HasSuffix(w.Text, "\nNote: the reviewer modified this change before it was applied.") {
		t.Fatalf("WriteFile = %+v, %v", w, err)
	}
	e, err := c.EditFile(context.Background(), EditFileParams{Path: "t.txt", OldText: new("a"), NewText: new("A")})
	if err != nil || e.ModifiedByReviewer == nil || !*e.ModifiedByReviewer {
		t.Fatalf("EditFile = %+v, %v", e, err)
	}
	for name, want := range map[string]string{"w.txt": "reviewed\n", "t.txt": "a\nB\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != want {
			t.Errorf("%s = %q; want %q", name, b, want)
		}
	}
}

// TestChangeRequestHandlerFails: an error other than a refusal makes the server abort the call.
func TestChangeRequestHandlerFails(t *testing.T) {
	root := t.TempDir()
	c := start(t, Options{RootDir: root, OnChangeRequest: func(context.Context, *ChangeRequest) error {
		return errors.New("policy service unreachable")
	}})
	_, err := c.WriteFile(context.Background(), WriteFileParams{Path: "b.txt", Content: "x\n"})
	if fe := fsboxError(t, err); fe.Kind != KindChangeRequestFailed || fe.Retry || fe.IsRetry() || fe.Code != CodeFatal {
		t.Errorf("error = %+v", fe)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("an aborted write touched the disk: %v", err)
	}
}

// TestConcurrentCalls keeps one call parked in a change request while many others complete on the
// same connection: calls are pipelined, not serialised.
func TestConcurrentCalls(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		writeTestFile(t, root, fmt.Sprintf("f%02d.txt", i), strings.Repeat(fmt.Sprintf("line %d\n", i), i+1))
	}
	parked, release := make(chan struct{}), make(chan struct{})
	c := start(t, Options{RootDir: root, OnChangeRequest: func(context.Context, *ChangeRequest) error {
		close(parked)
		<-release
		return nil
	}})
	ctx := context.Background()
	writeDone := make(chan error, 1)
	go func() {
		_, err := c.WriteFile(ctx, WriteFileParams{Path: "parked.txt", Content: "x"})
		writeDone <- err
	}()
	<-parked
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for round := range 5 {
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := c.ReadFile(ctx, ReadFileParams{Path: fmt.Sprintf("f%02d.txt", i)})
				if err != nil || r.TotalLines != i+1 {
					errs <- fmt.Errorf("round %d file %d: %+v, %v", round, i, r, err)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	close(release)
	if err := <-writeDone; err != nil {
		t.Errorf("parked write: %v", err)
	}
}

// TestServerCrash kills the server while calls are in flight: each fails at once with
// ErrConnectionLost, and so does every later call.
func TestServerCrash(t *testing.T) {
	root := t.TempDir()
	var parked sync.WaitGroup
	parked.Add(3)
	release := make(chan struct{})
	c := start(t, Options{RootDir: root, OnChangeRequest: func(context.Context, *ChangeRequest) error {
		parked.Done()
		<-release
		return nil
	}})
	// The deadline only turns a hang into a failure; the calls must fail long before it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errs := make(chan error, 3)
	for i := range 3 {
		go func() {
			_, err := c.WriteFile(ctx, WriteFileParams{Path: fmt.Sprintf("w%d.txt", i), Content: "x"})
			errs <- err
		}()
	}
	parked.Wait()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		err := <-errs
		if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "killed") {
			t.Errorf("in-flight call: %v, want ErrConnectionLost naming the signal", err)
		}
	}
	close(release)
	if _, err := c.ReadFile(ctx, ReadFileParams{Path: "a"}); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("call after the crash: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after a crash: %v", err)
	}
}

// TestCloseIdempotent closes twice (and concurrently): the child is gone and later calls fail
// with ErrClosed.
func TestCloseIdempotent(t *testing.T) {
	c := start(t, Options{})
	pid := c.cmd.Process.Pid
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}()
	}
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if state := c.cmd.ProcessState; state == nil || !state.Success() {
		t.Errorf("server did not exit cleanly after shutdown: %v", state)
	}
	// The child has been reaped: its pid no longer exists.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) = %v, want ESRCH: a child is left behind", pid, err)
	}
	if _, err := c.ReadFile(context.Background(), ReadFileParams{Path: "a"}); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	} else if !errors.Is(err, ErrConnectionLost) {
		t.Errorf("call after Close: %v matches ErrClosed but not ErrConnectionLost", err)
	}
}

// TestCloseDuringChangeRequest: Close with a handler parked on its context returns without
// killing the server, and the parked call fails.
func TestCloseDuringChangeRequest(t *testing.T) {
	parked := make(chan struct{})
	c, err := Start(context.Background(), Options{RootDir: t.TempDir(), OnChangeRequest: func(ctx context.Context, _ *ChangeRequest) error {
		close(parked)
		<-ctx.Done()
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.WriteFile(context.Background(), WriteFileParams{Path: "a.txt", Content: "x"})
		done <- err
	}()
	<-parked
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	err = <-done
	var fe *Error
	if !errors.Is(err, ErrClosed) && !(errors.As(err, &fe) && fe.Kind == KindChangeRequestFailed) {
		t.Errorf("parked call: %v, want ErrClosed or change_request_failed", err)
	}
	if state := c.cmd.ProcessState; state == nil || !state.Success() {
		t.Errorf("server did not exit by itself: %v", state)
	}
}

// TestCloseKillsStuckServer: a server that ignores shutdown and its closed stdin is killed, and
// Close still returns with no child left.
func TestCloseKillsStuckServer(t *testing.T) {
	defer func(s, e time.Duration) { shutdownTimeout, exitTimeout = s, e }(shutdownTimeout, exitTimeout)
	shutdownTimeout, exitTimeout = 100*time.Millisecond, 100*time.Millisecond
	stuck := filepath.Join(t.TempDir(), "fsbox")
	script := `#!/bin/sh
read line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"1","server_info":{"name":"stuck","version":"0"},"root_dir":"/","cwd":".","tools":[],"schema_hash":"` + SchemaHash + `"}}'
trap '' TERM HUP
exec sleep 600
`
	if err := os.WriteFile(stuck, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Options{Binary: stuck})
	if err != nil {
		t.Fatal(err)
	}
	pid := c.cmd.Process.Pid
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) = %v, want ESRCH: the stuck server is still there", pid, err)
	}
}

// TestCancelledContext: a call whose context ends returns at once, and the connection stays usable.
func TestCancelledContext(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "a.txt", "a\n")
	parked, release := make(chan struct{}), make(chan struct{})
	c := start(t, Options{RootDir: root, OnChangeRequest: func(context.Context, *ChangeRequest) error {
		close(parked)
		<-release
		return nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.WriteFile(ctx, WriteFileParams{Path: "b.txt", Content: "x"})
		done <- err
	}()
	<-parked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	close(release)
	if _, err := c.ReadFile(context.Background(), ReadFileParams{Path: "a.txt"}); err != nil {
		t.Errorf("call after a cancelled one: %v", err)
	}
}

func TestBinaryNotFound(t *testing.T) {
	t.Setenv("FSBOX_BIN", "")
	t.Setenv("PATH", t.TempDir())
	_, err := Start(context.Background(), Options{})
	// The advice names what works today; `go install …@latest` does not until a release is tagged.
	if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "go build -o bin/fsbox ./cmd/fsbox") ||
		!strings.Contains(err.Error(), "pip install fsbox") || !strings.Contains(err.Error(), "npm install @fsbox/sdk") ||
		strings.Contains(err.Error(), "@latest") {
		t.Errorf("err = %v", err)
	}
}

// TestSchemaMismatch: a server whose schema_hash is not the one the SDK was generated from is
// refused at Start with an error naming both hashes, and its process is not left behind.
func TestSchemaMismatch(t *testing.T) {
	other := filepath.Join(t.TempDir(), "fsbox")
	script := `#!/bin/sh
read line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"1","server_info":{"name":"old","version":"0"},"root_dir":"/","cwd":".","tools":[],"schema_hash":"sha256:0ld"}}'
read line
`
	if err := os.WriteFile(other, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Options{Binary: other})
	if err == nil {
		c.Close()
		t.Fatal("Start succeeded against a server of another schema")
	}
	if !errors.Is(err, ErrSchemaMismatch) || !strings.Contains(err.Error(), `"sha256:0ld"`) || !strings.Contains(err.Error(), SchemaHash) {
		t.Errorf("err = %v", err)
	}
}

// TestStartReportsServerStderr: a server that dies at once is reported with its stderr.
func TestStartReportsServerStderr(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fsbox")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'fsbox: error: no such flag' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	_, err := Start(context.Background(), Options{Binary: fake, Stderr: &stderr})
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "exit status 3") ||
		!strings.Contains(err.Error(), "no such flag") {
		t.Errorf("err = %v", err)
	}
	if !strings.Contains(stderr.String(), "no such flag") {
		t.Errorf("the server's stderr was not passed on: %q", stderr.String())
	}
}

// TestInvalidConfig: initialize refuses a bad limit, and Start returns the server's error.
func TestInvalidConfig(t *testing.T) {
	_, err := Start(context.Background(), Options{RootDir: t.TempDir(), Config: &Config{MaxReadLines: new(-1)}})
	if fe := fsboxError(t, err); fe.Code != CodeInvalidParams {
		t.Errorf("error = %+v", fe)
	}
}

func TestDecodeEvent(t *testing.T) {
	raw := `{"kind":"file_system.file_read","path":"a.txt","root_dir":"/r","tool":"read_file","content_hash":"abc"}`
	e, err := DecodeEvent([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := e.(*FileReadEvent); !ok || r.Path != "a.txt" || r.ContentHash != "abc" {
		t.Errorf("DecodeEvent = %#v", e)
	}
	// Marshalling writes the kind back: the wire form round-trips.
	if back, _ := json.Marshal(e); string(back) != raw {
		t.Errorf("Marshal = %s\nwant      %s", back, raw)
	}
	future := `{"kind":"file_system.file_teleported","path":"a"}`
	e, err = DecodeEvent([]byte(future))
	if u, ok := e.(*UnknownEvent); err != nil || !ok || u.Kind != "file_system.file_teleported" {
		t.Fatalf("unknown kind: %#v, %v", e, err)
	}
	if back, _ := json.Marshal(e); string(back) != future {
		t.Errorf("unknown event marshals as %s", back)
	}
	if _, err := DecodeEvent([]byte(`{"kind":"file_system.file_read","path":7}`)); err == nil {
		t.Error("a malformed event decoded")
	}
}

// ResultShape "text": Text and Call give the text, the typed methods refuse before sending (a
// write must not happen behind an error), and the session says the shape.
func TestResultShapeText(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	both := start(t, Options{RootDir: root})
	c := start(t, Options{RootDir: root, ResultShape: ResultShapeText})
	ctx := context.Background()
	if got := c.Session().ResultShape; got != ResultShapeText {
		t.Fatalf("Session().ResultShape = %q; want text", got)
	}
	want, err := both.ReadFile(ctx, ReadFileParams{Path: "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Text(ctx, "read_file", map[string]any{"path": "a.txt"})
	if err != nil || text != want.Text {
		t.Fatalf("Text = %q, %v; want %q", text, err, want.Text)
	}
	raw, err := c.Call(ctx, "read_file", map[string]any{"path": "a.txt"})
	if err != nil || !strings.HasPrefix(string(raw), `{"text":`) || strings.Contains(string(raw), "total_lines") {
		t.Fatalf("Call = %s, %v; want only {text}", raw, err)
	}
	if _, err := c.ReadFile(ctx, ReadFileParams{Path: "a.txt"}); !errors.Is(err, ErrResultShape) || !strings.Contains(err.Error(), "Client.Text") {
		t.Fatalf("typed ReadFile in shape text: %v; want ErrResultShape pointing at Client.Text", err)
	}
	if _, err := c.WriteFile(ctx, WriteFileParams{Path: "new.txt", Content: "x"}); !errors.Is(err, ErrResultShape) {
		t.Fatalf("typed WriteFile in shape text: %v; want ErrResultShape", err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused typed write reached the disk: %v", err)
	}
	if both.Session().ResultShape != ResultShapeBoth {
		t.Fatalf("default shape = %q; want both", both.Session().ResultShape)
	}
}

func TestResultShapeTypedAndUnknown(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, Options{RootDir: root, ResultShape: ResultShapeTyped})
	ctx := context.Background()
	r, err := c.ReadFile(ctx, ReadFileParams{Path: "a.txt"})
	if err != nil || r.Text != "" || r.TotalLines != 1 {
		t.Fatalf("typed ReadFile = %+v, %v; want the typed fields without text", r, err)
	}
	if _, err := c.Text(ctx, "read_file", map[string]any{"path": "a.txt"}); err == nil {
		t.Fatal("Text in shape typed must fail: the result has no text")
	}
	_, err = Start(ctx, Options{RootDir: root, ResultShape: "texts"})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "capabilities.result_shape") {
		t.Fatalf("unknown shape: %v; want the server's invalid_arguments naming capabilities.result_shape", err)
	}
}

// TestErrorNamesFromBeforeTheScheme: the names from before docs/errors.md's scheme are the same
// values as the new ones, so errors.Is written against either matches what the SDK returns.
func TestErrorNamesFromBeforeTheScheme(t *testing.T) {
	if ErrServerExited != ErrConnectionLost || ErrTextShape != ErrResultShape {
		t.Error("a deprecated sentinel is not the same value as its new name")
	}
	if !errors.Is(fmt.Errorf("x: %w", ErrConnectionLost), ErrServerExited) || !errors.Is(fmt.Errorf("x: %w", ErrResultShape), ErrTextShape) {
		t.Error("errors.Is with a deprecated name misses an error wrapping the new one")
	}
	if errors.Is(ErrConnectionLost, ErrClosed) {
		t.Error("a lost connection reads as closed by the caller")
	}
}
