// Package journal stores the before-images of a session's changes: for every path a change
// replaced, what was there (a file's content and mode, a directory, or nothing) and what the
// change left (its hash), grouped by the call that made them and split by checkpoints.
//
// It protects against a model reading or rewriting the history it is judged by: the journal
// lives in a directory outside the root and every mount (the engine refuses one inside or around
// them, and the kernel's confinement grants it to the process only), reached only through a
// descriptor opened when the session starts (an [os.Root], so an entry planted there cannot lead
// elsewhere), and bounded in bytes: when it grows past its bound the oldest checkpoint goes,
// whole, with everything recorded before the next one, and the host is told. A checkpoint the
// journal keeps is complete: every change since it is recorded, or recorded as not restorable
// (a file bigger than the bound, a symlink or a special file).
//
// It does not protect against the host or another process with the host's rights editing the
// directory, and it does not decide what a change may do: containment, policy and the commit
// stay the engine's. It knows paths as strings, never opens anything in the root, and imports
// nothing of fsbox's (layout rule 22).
package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// DefaultMaxBytes is the bound of a journal whose host set none.
const DefaultMaxBytes = 256 << 20

// inlineMax is the largest before-image kept in the index line itself instead of a blob file:
// one write and one sync per small change.
const inlineMax = 4096

// indexName and blobDir are the journal's own files; lockName is held (flock) for the session.
const (
	indexName = "index.jsonl"
	blobDir   = "blobs"
)

// Kinds of a State.
const (
	File   = "file"   // a regular file: Mode, Hash, Size and its content (Data or Blob)
	Dir    = "dir"    // a directory (its entries are paths of their own)
	Absent = "absent" // nothing
	// Unrestorable is something the journal could not keep: a file bigger than the bound, a
	// symlink or a special file. Why says which; Hash is set when known.
	Unrestorable = "unrestorable"
	// Other is what a path holds now that no State above describes (a symlink, a special file):
	// never a before-image.
	Other = "other"
)

// State is what one path held at one moment.
type State struct {
	Kind string `json:"k"`
	Mode uint32 `json:"m,omitempty"`
	Hash string `json:"h,omitempty"`
	Size int64  `json:"s,omitempty"`
	Blob string `json:"b,omitempty"` // the file under blobs/ holding the content (its sha256, a suffix)
	Data []byte `json:"d,omitempty"` // the content itself, up to inlineMax bytes
	Why  string `json:"w,omitempty"`
}

// Same reports whether s and o describe the same thing (kind, and content hash for files).
func (s State) Same(o State) bool {
	if s.Kind != o.Kind {
		return false
	}
	if s.Kind == File {
		return s.Hash != "" && s.Hash == o.Hash && s.Mode&0o7777 == o.Mode&0o7777
	}
	return true
}

// SameContent is Same without the mode: what a conflict check compares.
func (s State) SameContent(o State) bool {
	if s.Kind != o.Kind {
		return false
	}
	return s.Kind != File || s.Hash != "" && s.Hash == o.Hash
}

// Entry is one path replaced by one call.
type Entry struct {
	Seq    uint64 `json:"seq"`
	Group  uint64 `json:"g"`
	Path   string `json:"p"`
	Before State  `json:"before"`
	After  State  `json:"after"`
	// Undoes is the group this entry's call undid (undo_last_change), 0 for other changes.
	Undoes uint64 `json:"u,omitempty"`
}

// Checkpoint marks a moment of the session: the changes after it are the entries whose Seq is
// above its Seq.
type Checkpoint struct {
	ID      string    `json:"id"`
	Label   string    `json:"label"`
	Seq     uint64    `json:"seq"`
	Created time.Time `json:"created"`
}

// Dropped reports a checkpoint the bound removed, for the host.
type Dropped struct {
	Checkpoint Checkpoint
	Reason     string
}

// Options configure [Open].
type Options struct {
	// Dir is the host-chosen directory; "" makes a private per-session directory under the
	// system's temporary directory, removed by Close.
	Dir string
	// MaxBytes bounds the journal (contents and index); 0 is DefaultMaxBytes.
	MaxBytes int64
	// Root identifies the tree journaled; a Dir journaled for another root is refused.
	Root string
	// Dropped receives the checkpoints the bound removed, once each, after the lock is released.
	Dropped func(Dropped)
}

// Journal is one session's journal. Its methods are safe for concurrent use.
type Journal struct {
	mu     sync.Mutex
	root   *os.Root
	dirF   *os.File // the directory, held with flock for the session (lock_unix.go)
	lockF  *os.File // Windows: the locked session.lock file (lock_windows.go); nil elsewhere
	idx    *os.File
	path   string
	temp   bool
	max    int64
	notify func(Dropped)
	rootID string

	seq, group, cpN uint64
	entries         []*Entry
	cps             []*Checkpoint
	size            int64            // bytes of blobs plus the index as written
	blobs           map[string]int64 // blob name -> size
	refs            map[string]int
	pending         []Dropped
	// gen counts the index files: compaction writes a new one (synced, with every entry kept).
	gen uint64
}

// ErrBusy is the error of opening a directory another session journals into.
var ErrBusy = errors.New("another session is using this journal directory")

// Open opens (or creates) the journal of a session. The caller has checked that the directory
// lies outside the root and every mount; Open makes a missing host-chosen directory 0700, takes
// an exclusive lock on it, and loads the index a previous session of the same root left there.
func Open(o Options) (*Journal, error) {
	j := &Journal{max: o.MaxBytes, notify: o.Dropped, rootID: o.Root, blobs: map[string]int64{}, refs: map[string]int{}}
	if j.max <= 0 {
		j.max = DefaultMaxBytes
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "fsbox-journal-")
		if err != nil {
			return nil, err
		}
		j.path, j.temp = d, true
	} else {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return nil, err
		}
		j.path = o.Dir
	}
	fail := func(err error) (*Journal, error) {
		j.closeFiles()
		if j.temp {
			os.RemoveAll(j.path)
		}
		return nil, err
	}
	var err error
	if j.root, err = os.OpenRoot(j.path); err != nil {
		return fail(err)
	}
	if j.dirF, err = j.root.Open("."); err != nil {
		return fail(err)
	}
	if err := j.lockSession(); err != nil {
		return fail(err)
	}
	if err := j.root.Mkdir(blobDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fail(err)
	}
	if err := j.load(o.Root); err != nil {
		return fail(err)
	}
	j.sweepBlobs()
	if j.idx, err = j.root.OpenFile(indexName, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
		return fail(err)
	}
	if fi, err := j.idx.Stat(); err == nil && fi.Size() == 0 {
		if err := j.appendLocked(record{T: "h", Root: o.Root}); err != nil {
			return fail(err)
		}
	}
	return j, nil
}

// Path returns the journal's directory (for the host; never shown to the model).
func (j *Journal) Path() string { return j.path }

// Dir returns the directory as opened, for the caller's confinement rules.
func (j *Journal) Dir() *os.File { return j.dirF }

// Close releases the directory; a private per-session directory is removed.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closeFiles()
	if j.temp {
		return os.RemoveAll(j.path)
	}
	return nil
}

func (j *Journal) closeFiles() {
	if j.idx != nil {
		j.idx.Close()
		j.idx = nil
	}
	if j.lockF != nil {
		j.lockF.Close()
		j.lockF = nil
	}
	if j.dirF != nil {
		j.dirF.Close()
		j.dirF = nil
	}
	if j.root != nil {
		j.root.Close()
		j.root = nil
	}
}

// record is one line of the index.
type record struct {
	T    string      `json:"t"` // h header, e entry, c checkpoint, x entry void
	Root string      `json:"root,omitempty"`
	E    *Entry      `json:"e,omitempty"`
	C    *Checkpoint `json:"c,omitempty"`
	Seq  uint64      `json:"seq,omitempty"`
}

// load reads the index a previous session left; a torn last line (a crash mid-append) is
// ignored, and so is an entry whose blob never made it to disk.
func (j *Journal) load(root string) error {
	f, err := j.root.Open(indexName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		j.size += fi.Size()
	}
	rd := bufio.NewReaderSize(f, 64<<10)
	var good int64 // bytes of whole lines read
	defer func() {
		// A torn last line (a crash mid-append) is cut off, so the next append starts a line.
		if fi, err := f.Stat(); err == nil && fi.Size() > good {
			if w, err := j.root.OpenFile(indexName, os.O_WRONLY, 0); err == nil {
				w.Truncate(good)
				w.Sync()
				w.Close()
				j.size -= fi.Size() - good
			}
		}
	}()
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			break // EOF: a line without its newline is torn
		}
		var r record
		if json.Unmarshal(line, &r) != nil {
			break
		}
		good += int64(len(line))
		switch r.T {
		case "h":
			if root != "" && r.Root != "" && r.Root != root {
				return fmt.Errorf("the journal in %s belongs to another root directory", j.path)
			}
		case "e":
			if r.E == nil {
				continue
			}
			if b := r.E.Before.Blob; b != "" {
				fi, err := j.root.Stat(filepath.Join(blobDir, b))
				if err != nil {
					r.E.Before = State{Kind: Unrestorable, Hash: r.E.Before.Hash, Why: "its content was lost from the journal"}
				} else {
					j.addBlob(b, fi.Size())
				}
			}
			j.entries = append(j.entries, r.E)
			j.seq = max(j.seq, r.E.Seq)
			j.group = max(j.group, r.E.Group)
		case "x":
			j.removeEntries(func(e *Entry) bool { return e.Seq == r.Seq })
		case "c":
			if r.C != nil {
				j.cps = append(j.cps, r.C)
				if n, err := strconv.ParseUint(r.C.ID[len("cp-"):], 10, 64); err == nil {
					j.cpN = max(j.cpN, n)
				}
				j.seq = max(j.seq, r.C.Seq)
			}
		}
	}
	return nil
}

// sweepBlobs removes the blob files no entry refers to: captured by a session killed before it
// recorded the entry, or half-written.
func (j *Journal) sweepBlobs() {
	d, err := j.root.Open(blobDir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if j.refs[n] == 0 {
			j.root.Remove(filepath.Join(blobDir, n))
		}
	}
}

func (j *Journal) addBlob(name string, size int64) {
	if j.refs[name] == 0 {
		j.blobs[name] = size
		j.size += size
	}
	j.refs[name]++
}

func (j *Journal) releaseBlob(name string) {
	if name == "" {
		return
	}
	j.refs[name]--
	if j.refs[name] <= 0 {
		delete(j.refs, name)
		j.size -= j.blobs[name]
		delete(j.blobs, name)
		if j.root != nil {
			j.root.Remove(filepath.Join(blobDir, name))
		}
	}
}

// appendLocked appends one index line and syncs it.
func (j *Journal) appendLocked(r record) error {
	if err := j.writeLocked(r); err != nil {
		return err
	}
	return datasync(j.idx)
}

// writeLocked appends one index line without syncing it.
func (j *Journal) writeLocked(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := j.idx.Write(b); err != nil {
		return err
	}
	j.size += int64(len(b))
	return nil
}

// Capture reads a before-image of size bytes from r (a file the caller opened and verified)
// into a State of kind File. A file bigger than the bound is Unrestorable, its content not read.
func (j *Journal) Capture(r io.Reader, size int64, mode uint32) (State, error) {
	if size > j.max {
		return State{Kind: Unrestorable, Mode: mode, Size: size,
			Why: fmt.Sprintf("it is larger (%d bytes) than the journal's bound (journal.max_bytes %d)", size, j.max)}, nil
	}
	if size <= inlineMax {
		b, err := io.ReadAll(io.LimitReader(r, inlineMax+1))
		if err != nil {
			return State{}, err
		}
		if len(b) > inlineMax {
			return j.captureBlob(io.MultiReader(bytes.NewReader(b), r), mode)
		}
		return State{Kind: File, Mode: mode, Hash: ShortHash(b), Size: int64(len(b)), Data: b}, nil
	}
	return j.captureBlob(r, mode)
}

// captureBlob streams r into a blob file named by its SHA-256 (so equal contents are stored
// once), syncing it before the entry that refers to it is written.
func (j *Journal) captureBlob(r io.Reader, mode uint32) (State, error) {
	tmpName := filepath.Join(blobDir, fmt.Sprintf(".tmp-%d-%d", os.Getpid(), time.Now().UnixNano()))
	j.mu.Lock()
	root := j.root
	j.mu.Unlock()
	if root == nil {
		return State{}, os.ErrClosed
	}
	f, err := root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return State{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, j.max+1))
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err == nil && n > j.max {
		root.Remove(tmpName)
		return State{Kind: Unrestorable, Mode: mode, Size: n, Why: fmt.Sprintf("it grew larger than the journal's bound (journal.max_bytes %d) while it was read", j.max)}, nil
	}
	if err != nil {
		root.Remove(tmpName)
		return State{}, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	// One file per before-image (its hash and a unique suffix), never shared: a blob dropped with
	// an old checkpoint can then never be one a capture running at the same time just wrote.
	name := fmt.Sprintf("%s-%d-%d", sum, os.Getpid(), time.Now().UnixNano())
	if err := root.Rename(tmpName, filepath.Join(blobDir, name)); err != nil {
		root.Remove(tmpName)
		return State{}, err
	}
	if d, err := root.Open(blobDir); err == nil {
		d.Sync()
		d.Close()
	}
	return State{Kind: File, Mode: mode, Hash: sum[:12], Size: n, Blob: name}, nil
}

// ShortHash is the engine's content hash: the first 12 hex digits of SHA-256.
func ShortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// NewGroup returns a fresh group number, one per call that changes something.
func (j *Journal) NewGroup() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.group++
	return j.group
}

// Record appends an entry (its before-image already captured) and returns its sequence number;
// the entry is on disk before Record returns, so it precedes the change it describes. A blob
// the before-image names is counted from here. The bound is then enforced.
func (j *Journal) Record(e Entry) (uint64, error) { return j.add(e, true) }

// Append writes an entry without syncing it (Sync makes every entry appended so far durable):
// a change recording many entries (a tree) syncs once.
func (j *Journal) Append(e Entry) (uint64, error) { return j.add(e, false) }

// add appends e to the index, synced when sync is set, then enforces the bound and delivers the
// notices of the checkpoints it dropped.
func (j *Journal) add(e Entry, sync bool) (uint64, error) {
	j.mu.Lock()
	if j.idx == nil {
		j.mu.Unlock()
		return 0, os.ErrClosed
	}
	j.seq++
	e.Seq = j.seq
	if e.Before.Blob != "" {
		j.addBlob(e.Before.Blob, e.Before.Size)
	}
	write := j.writeLocked
	if sync {
		write = j.appendLocked
	}
	if err := write(record{T: "e", E: &e}); err != nil {
		j.releaseBlob(e.Before.Blob)
		j.mu.Unlock()
		return 0, err
	}
	j.entries = append(j.entries, &e)
	j.enforceLocked()
	dropped := j.takePending()
	j.mu.Unlock()
	j.deliver(dropped)
	return e.Seq, nil
}

// Sync makes every entry appended so far durable.
func (j *Journal) Sync() error {
	j.mu.Lock()
	idx, gen := j.idx, j.gen
	j.mu.Unlock()
	if idx == nil {
		return os.ErrClosed
	}
	return j.syncIndex(idx, gen)
}

// syncIndex syncs idx, the index as of generation gen.
func (j *Journal) syncIndex(idx *os.File, gen uint64) error {
	err := datasync(idx)
	if err != nil {
		j.mu.Lock()
		if j.gen != gen {
			// The index was rewritten meanwhile, synced, with every entry kept.
			err = nil
		}
		j.mu.Unlock()
	}
	return err
}

// RecordAsync is Record whose sync runs in the background: the entry is written (a process
// killed from here on leaves it in the index) and sync delivers the outcome of making it
// durable, which the caller awaits before the change it describes is committed. The caller's
// own work (writing the new content, syncing it) overlaps the journal's sync.
func (j *Journal) RecordAsync(e Entry) (uint64, <-chan error, error) {
	j.mu.Lock()
	if j.idx == nil {
		j.mu.Unlock()
		return 0, nil, os.ErrClosed
	}
	j.seq++
	e.Seq = j.seq
	if e.Before.Blob != "" {
		j.addBlob(e.Before.Blob, e.Before.Size)
	}
	if err := j.writeLocked(record{T: "e", E: &e}); err != nil {
		j.releaseBlob(e.Before.Blob)
		j.mu.Unlock()
		return 0, nil, err
	}
	j.entries = append(j.entries, &e)
	j.enforceLocked()
	idx, gen := j.idx, j.gen
	dropped := j.takePending()
	j.mu.Unlock()
	j.deliver(dropped)
	sync := make(chan error, 1)
	go func() { sync <- j.syncIndex(idx, gen) }()
	return e.Seq, sync, nil
}

// Void withdraws an entry whose change did not happen (it failed before touching anything).
func (j *Journal) Void(seq uint64) {
	if seq == 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.idx == nil {
		return
	}
	j.removeEntries(func(e *Entry) bool { return e.Seq == seq })
	j.appendLocked(record{T: "x", Seq: seq})
}

func (j *Journal) removeEntries(drop func(*Entry) bool) {
	kept := j.entries[:0]
	for _, e := range j.entries {
		if drop(e) {
			j.releaseBlob(e.Before.Blob)
			continue
		}
		kept = append(kept, e)
	}
	clear(j.entries[len(kept):])
	j.entries = kept
}

// Create adds a checkpoint at the present moment.
func (j *Journal) Create(label string) (Checkpoint, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.idx == nil {
		return Checkpoint{}, os.ErrClosed
	}
	j.cpN++
	cp := &Checkpoint{ID: "cp-" + strconv.FormatUint(j.cpN, 10), Label: label, Seq: j.seq, Created: time.Now().UTC().Truncate(time.Millisecond)}
	if err := j.appendLocked(record{T: "c", C: cp}); err != nil {
		return Checkpoint{}, err
	}
	j.cps = append(j.cps, cp)
	return *cp, nil
}

// Checkpoints returns the checkpoints kept, oldest first, with the number of paths changed
// since each.
func (j *Journal) Checkpoints() ([]Checkpoint, []int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Checkpoint
	var counts []int
	for _, cp := range j.cps {
		out = append(out, *cp)
		counts = append(counts, len(j.sinceLocked(cp.Seq)))
	}
	return out, counts
}

// Lookup returns the checkpoint id names.
func (j *Journal) Lookup(id string) (Checkpoint, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, cp := range j.cps {
		if cp.ID == id {
			return *cp, true
		}
	}
	return Checkpoint{}, false
}

// Change is one path changed since a checkpoint: Target is what it held at the checkpoint (the
// before-image of its first change after it), Last what fsbox's latest change left there and
// LastBefore what that change replaced.
type Change struct {
	Path       string
	Target     State
	Last       State
	LastBefore State
}

// Since returns every path changed after seq, sorted by path.
func (j *Journal) Since(seq uint64) []Change {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.sinceLocked(seq)
}

func (j *Journal) sinceLocked(seq uint64) []Change {
	byPath := map[string]*Change{}
	var order []string
	for _, e := range j.entries {
		if e.Seq <= seq {
			continue
		}
		c := byPath[e.Path]
		if c == nil {
			c = &Change{Path: e.Path, Target: e.Before}
			byPath[e.Path] = c
			order = append(order, e.Path)
		}
		c.Last, c.LastBefore = e.After, e.Before
	}
	sort.Strings(order)
	out := make([]Change, 0, len(order))
	for _, p := range order {
		out = append(out, *byPath[p])
	}
	return out
}

// LastGroup returns the entries of the latest call that neither undid another nor was undone
// (for undo_last_change), oldest first; nil when there is none.
func (j *Journal) LastGroup() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	undone := map[uint64]bool{}
	for _, e := range j.entries {
		if e.Undoes != 0 {
			undone[e.Undoes] = true
			undone[e.Group] = true
		}
	}
	var g uint64
	for i := len(j.entries) - 1; i >= 0; i-- {
		if e := j.entries[i]; !undone[e.Group] {
			g = e.Group
			break
		}
	}
	if g == 0 {
		return nil
	}
	var out []Entry
	for _, e := range j.entries {
		if e.Group == g {
			out = append(out, *e)
		}
	}
	return out
}

// LastAfter returns what fsbox's latest change of path left there, and what it replaced.
func (j *Journal) LastAfter(path string) (after, before State, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.entries) - 1; i >= 0; i-- {
		if e := j.entries[i]; e.Path == path {
			return e.After, e.Before, true
		}
	}
	return State{}, State{}, false
}

// Content returns the content a File state recorded.
func (j *Journal) Content(s State) ([]byte, error) {
	switch {
	case s.Kind != File:
		return nil, fmt.Errorf("not a file")
	case s.Blob == "":
		return s.Data, nil
	}
	j.mu.Lock()
	root := j.root
	j.mu.Unlock()
	if root == nil {
		return nil, os.ErrClosed
	}
	f, err := root.Open(filepath.Join(blobDir, s.Blob))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, s.Size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != s.Size || ShortHash(b) != s.Hash {
		return nil, fmt.Errorf("the journal's copy was altered")
	}
	return b, nil
}

// Size returns the bytes the journal holds (contents and index) and its bound.
func (j *Journal) Size() (size, bound int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.size, j.max
}

// enforceLocked keeps the journal within its bound: while it is over, the oldest checkpoint is
// dropped with every entry up to the next checkpoint (never part of a checkpoint's changes);
// with no checkpoint left, the oldest calls' entries go. The index is then rewritten without
// what was dropped.
func (j *Journal) enforceLocked() {
	if j.size <= j.max {
		return
	}
	// Down to three quarters of the bound, so a journal at its bound does not rewrite its
	// index on every change.
	goal := j.max / 4 * 3
	for j.size > goal && (len(j.cps) > 0 || len(j.entries) > 0) {
		if len(j.cps) > 0 {
			cp := j.cps[0]
			j.cps = j.cps[1:]
			var upto uint64 = ^uint64(0)
			if len(j.cps) > 0 {
				upto = j.cps[0].Seq
			}
			j.removeEntries(func(e *Entry) bool { return e.Seq <= upto })
			j.pending = append(j.pending, Dropped{Checkpoint: *cp,
				Reason: fmt.Sprintf("the journal reached its bound (journal.max_bytes %d)", j.max)})
		} else {
			g := j.entries[0].Group
			j.removeEntries(func(e *Entry) bool { return e.Group == g })
		}
		j.compactLocked()
	}
}

// compactLocked rewrites the index with what is kept: written to a temporary file, synced and
// renamed over the old one, so a crash leaves one or the other.
func (j *Journal) compactLocked() {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.Encode(record{T: "h", Root: j.rootID})
	type item struct {
		seq uint64
		r   record
	}
	var items []item
	for _, e := range j.entries {
		items = append(items, item{e.Seq, record{T: "e", E: e}})
	}
	for _, cp := range j.cps {
		items = append(items, item{cp.Seq, record{T: "c", C: cp}})
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].seq < items[b].seq })
	for _, it := range items {
		enc.Encode(it.r)
	}
	tmp := indexName + ".tmp"
	f, err := j.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	if _, err := f.Write(buf.Bytes()); err != nil || f.Sync() != nil {
		f.Close()
		j.root.Remove(tmp)
		return
	}
	f.Close()
	if err := j.root.Rename(tmp, indexName); err != nil {
		return
	}
	j.dirF.Sync()
	old, _ := j.idx.Stat()
	nf, err := j.root.OpenFile(indexName, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	j.idx.Close()
	j.idx = nf
	j.gen++
	if old != nil {
		j.size += int64(buf.Len()) - old.Size()
	}
}

func (j *Journal) takePending() []Dropped {
	p := j.pending
	j.pending = nil
	return p
}

func (j *Journal) deliver(ds []Dropped) {
	if j.notify == nil {
		return
	}
	for _, d := range ds {
		j.notify(d)
	}
}
