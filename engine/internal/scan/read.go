package scan

import (
	"bufio"
	"bytes"
	"context"
	"hash"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/text"
)

// readChunkBytes is the read buffer of the streaming scan; lines longer than this are handled in
// pieces, so no line is ever held whole unless it is shown.
const readChunkBytes = 64 << 10

// Window says which lines a scan renders: lines [offset, offset+limit) while their rendered
// characters fit budget. A zero limit renders nothing (file_info).
type Window struct {
	Offset, Limit, Budget int
	KeepMedia             bool   // keep the bytes of an image or PDF up to text.MaxMediaBytes (read_file)
	Piece                 *Piece // with read_file's column: collect a piece of the line at offset
}

// Line is one numbered line of the window, rendered into Result.Arena.
type Line struct {
	Off, End  int // its bytes in the arena: number, TAB, line with its terminator, decoded leniently
	Gutter    int // bytes before the line: the number and the TAB
	Chars     int // code points of the rendered line
	LineChars int // code points of the line alone, terminator included
}

// Result is what one pass over a file learned.
type Result struct {
	Size     int64
	Hash     string
	Binary   bool
	Lines    int
	Shown    []Line // the window lines that fit the (estimated) budget
	Arena    []byte // the rendered lines of shown, back to back
	FirstLen int    // code points of the window's first line when it did not fit
	Media    string // for an image or PDF, its media type (binary is then true)
	Head     []byte // for a binary file, its first text.HexPreviewBytes bytes
	Data     []byte // for media kept by Window.KeepMedia, every byte
	Piece    *Piece // Window.Piece, filled
}

// cappedBuffer keeps what is written to it up to limit bytes; past that it drops everything and
// says so, so a file that grew while it was read is never half-kept.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if !c.over && c.buf.Len()+len(p) > c.limit {
		c.over = true
		c.buf = bytes.Buffer{}
	}
	if !c.over {
		c.buf.Write(p)
	}
	return len(p), nil
}

// Used returns the characters the lines take.
func (s *Result) Used(lines []Line) int {
	n := 0
	for _, l := range lines {
		n += l.Chars
	}
	return n
}

// Read reads f once from its current offset: it hashes every byte, decides binary from the first
// text.SniffBytes, counts lines and renders the window w. Memory is bounded by w.Budget (and
// readChunkBytes), not by the file.
//
// sizeHint (the file's size from fstat) only sizes the read buffer: small files get a small one.
func Read(ctx context.Context, f io.Reader, sizeHint int64, w Window) (*Result, error) {
	h := text.NewHash()
	cr := &CountingReader{R: f, H: h}
	res := &Result{}
	if w.Limit > 0 && sizeHint > 0 {
		// Room for the whole window when the file is small: its bytes plus a gutter per line of
		// about 40 bytes, at most what the budget can show (4 bytes a character).
		res.Arena = make([]byte, 0, min(sizeHint+sizeHint/5+64, int64(w.Budget)*4+64))
	}
	bufSize := int64(readChunkBytes)
	if sizeHint >= 0 && sizeHint < bufSize {
		bufSize = max(sizeHint+1, text.SniffBytes)
	}
	br := bufio.NewReaderSize(cr, int(bufSize))
	sniff, err := br.Peek(text.SniffBytes)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if media := text.SniffMedia(sniff); media != "" || text.HasNUL(sniff) {
		res.Binary, res.Media = true, media
		res.Head = bytes.Clone(sniff[:min(len(sniff), text.HexPreviewBytes)])
		var sink io.Writer = io.Discard
		var data *cappedBuffer
		if media != "" && w.KeepMedia && sizeHint <= text.MaxMediaBytes {
			data = &cappedBuffer{limit: text.MaxMediaBytes}
			sink = data
		}
		if _, err := copyCtx(ctx, sink, br); err != nil {
			return nil, err
		}
		if data != nil && !data.over {
			res.Data = data.buf.Bytes()
		}
		res.Size, res.Hash = cr.N, text.ShortHash(h)
		return res, nil
	}
	ls := lineState{w: w, res: res, capBytes: 4*w.Budget + utf8.UTFMax}
	for chunks := 0; ; chunks++ {
		if chunks%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		piece, err := br.ReadSlice('\n')
		if len(piece) > 0 {
			ls.feed(piece)
			if piece[len(piece)-1] == '\n' {
				ls.endLine()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return nil, err
		}
	}
	if ls.partial {
		ls.endLine()
	}
	res.Size, res.Hash, res.Piece = cr.N, text.ShortHash(h), w.Piece
	return res, nil
}

// lineState is the per-line state of Read.
type lineState struct {
	w        Window
	res      *Result
	capBytes int // bytes of one line kept for rendering; a longer line cannot fit the budget

	idx     int // 0-based index of the current line
	partial bool
	buf     []byte           // the current line's bytes, while it may still be shown
	over    bool             // the current line outgrew capBytes
	count   text.RuneCounter // code points of the current line, when it is the window's first
	closed  bool             // the window is complete (limit reached or a line did not fit)
	usedEst int              // characters of res.Shown
}

// inWindow reports whether the current line is still a candidate for the window.
func (ls *lineState) inWindow() bool {
	return !ls.closed && ls.idx >= ls.w.Offset && ls.idx < ls.w.Offset+ls.w.Limit
}

func (ls *lineState) feed(p []byte) {
	ls.partial = true
	if ls.w.Piece != nil && ls.idx == ls.w.Offset {
		ls.w.Piece.Feed(p)
	}
	if !ls.inWindow() {
		return
	}
	if ls.idx == ls.w.Offset {
		ls.count.Write(p)
	}
	if ls.over {
		return
	}
	if len(ls.buf)+len(p) > ls.capBytes {
		ls.over, ls.buf = true, nil
		return
	}
	ls.buf = append(ls.buf, p...)
}

func (ls *lineState) endLine() {
	if ls.w.Piece != nil && ls.idx == ls.w.Offset {
		ls.w.Piece.End()
	}
	if ls.inWindow() {
		fits := !ls.over
		var rl Line
		mark := len(ls.res.Arena)
		if fits {
			ls.res.Arena, rl = renderLine(ls.res.Arena, ls.idx+1, ls.buf)
			fits = ls.usedEst+rl.Chars <= ls.w.Budget
		}
		if fits {
			ls.res.Shown = append(ls.res.Shown, rl)
			ls.usedEst += rl.Chars
		} else {
			ls.res.Arena = ls.res.Arena[:mark]
			ls.closed = true
			if ls.idx == ls.w.Offset {
				ls.res.FirstLen = ls.count.Total()
			}
		}
	}
	ls.idx++
	ls.res.Lines = ls.idx
	ls.partial, ls.buf, ls.over = false, ls.buf[:0], false
	if ls.w.Limit == 0 || ls.idx >= ls.w.Offset+ls.w.Limit {
		ls.buf = nil
	}
}

// renderLine appends one window line to arena as read_file shows it: the 1-based number
// right-aligned in six columns, a TAB, and the line decoded leniently with its terminator. The
// lines of a window share the arena (no allocation per line, which with a per-line string was
// most of a small read's garbage).
func renderLine(arena []byte, number int, line []byte) ([]byte, Line) {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(number), 10)
	shown := line
	if !utf8.Valid(line) {
		shown = []byte(text.DecodeLenient(line))
	}
	off := len(arena)
	pad := max(6-len(digits), 0)
	for range pad {
		arena = append(arena, ' ')
	}
	arena = append(arena, digits...)
	arena = append(arena, '\t')
	arena = append(arena, shown...)
	lineChars := utf8.RuneCount(shown)
	gutter := pad + len(digits) + 1
	return arena, Line{Off: off, End: len(arena), Gutter: gutter, Chars: gutter + lineChars, LineChars: lineChars}
}

// CountingReader hashes and counts what it reads.
type CountingReader struct {
	R io.Reader
	H hash.Hash
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	if n > 0 {
		c.H.Write(p[:n])
		c.N += int64(n)
	}
	return n, err
}

// copyCtx copies src to dst in chunks, stopping when ctx ends.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, readChunkBytes)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
