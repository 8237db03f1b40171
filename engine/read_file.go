package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// readChunkBytes is the read buffer of the streaming scan; lines longer than this are handled in
// pieces, so no line is ever held whole unless it is shown.
const readChunkBytes = 64 << 10

// noticeReserve is what the max_read_chars budget keeps free for the continuation hint or the
// oversized-line notice (pydantic-ai-harness's 200 characters).
const noticeReserve = 200

// readFile serves read_file: it streams the file once, counting lines (split on "\n"), hashing
// the raw bytes and rendering only the window, so memory stays bounded by max_read_chars
// whatever the file's size or the length of its lines.
func (e *Engine) readFile(c *call, a *schema.ReadFileArgs) (*schema.ReadFileResult, error) {
	return e.readFileWithin(c, a, e.maxReadChars, c.typed())
}

// readFileWithin is readFile with maxChars in place of max_read_chars (read_multiple_files
// gives each file what is left of its output budget). Without content the result's content is
// left out (a text-only caller, Hooks.TextOnly); the text is the same.
func (e *Engine) readFileWithin(c *call, a *schema.ReadFileArgs, maxChars int, content bool) (*schema.ReadFileResult, error) {
	offset, limit, capped, aerr := e.readWindow(c, a)
	if aerr != nil {
		return nil, aerr
	}
	r, _, rerr := e.resolveFor(c.tool, a.Path, accessRead)
	if rerr != nil {
		return nil, rerr
	}
	r, f, fi, oerr := e.openStable(c.tool, r, accessRead)
	if oerr != nil {
		if oerr.Kind == schema.KindNotFound {
			oerr.Msg = "Path not found: " + a.Path // pydantic-ai-harness's words for a lookup that found nothing
		}
		return nil, oerr
	}
	defer f.Close()

	label := readLabel(a.Path, maxChars)
	// The header's line count is only known at the end; budget for the shortest one and trim.
	budget := max(maxChars-utf8.RuneCountInString(e.readHeader(label, 0, "000000000000"))-noticeReserve, 0)
	w := scanWindow{offset: offset, limit: limit, budget: budget, keepMedia: true}
	if a.Column != nil {
		// One piece of one line: the gutter takes 7 characters, the rest of the budget is the piece.
		w.limit, w.piece = 0, &pieceState{column: *a.Column, budget: max(budget-7, 1)}
	}
	sc, err := e.scan(c.ctx, f, fi.Size(), w)
	if err != nil {
		return nil, e.scanError(c.tool, r, err)
	}
	res := &schema.ReadFileResult{Path: e.displayOf(r), Size: sc.size, Offset: offset}
	if e.hashes {
		res.Hash = sc.hash
	}
	if sc.binary {
		e.renderBinary(res, sc, label, maxChars)
		c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.hash})
		return res, nil
	}
	res.TotalLines = sc.lines
	header := e.readHeader(label, sc.lines, sc.hash)
	if sc.piece != nil {
		switch {
		case offset >= sc.lines:
			return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Offset %d exceeds file length (%d lines).", offset, sc.lines)
		case sc.piece.column >= sc.piece.seen:
			return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Column %d is at or past the end of line %d (%s characters).", sc.piece.column, offset+1, text.Thousands(sc.piece.seen))
		}
		e.renderPiece(res, sc, header, offset, sc.piece.column)
		c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.hash})
		return res, nil
	}
	var body strings.Builder
	body.WriteString(header)
	switch {
	case sc.lines == 0:
		body.WriteString("(empty file)\n")
	case offset >= sc.lines:
		return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Offset %d exceeds file length (%d lines).", offset, sc.lines)
	default:
		renderLines(res, &body, sc, max(maxChars-utf8.RuneCountInString(header)-noticeReserve, 0), offset, limit, capped, content)
	}
	res.Text = body.String()
	c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.hash})
	return res, nil
}

// readWindow validates read_file's window: offset (0 by default), limit (max_read_lines by
// default, and capped there: capped reports a larger limit asked for) and column.
func (e *Engine) readWindow(c *call, a *schema.ReadFileArgs) (offset, limit int, capped bool, err *Error) {
	offset, limit = 0, e.maxReadLines
	if a.Offset != nil {
		offset = *a.Offset
	}
	if a.Limit != nil {
		limit = *a.Limit
		if limit > e.maxReadLines {
			limit, capped = e.maxReadLines, true // max_read_lines is a cap, not only a default
		}
	}
	if offset < 0 {
		return 0, 0, false, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "offset must be non-negative.")
	}
	if limit < 1 {
		return 0, 0, false, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "limit must be at least 1.")
	}
	if a.Column != nil && *a.Column < 0 {
		return 0, 0, false, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "column must be non-negative.")
	}
	return offset, limit, capped, nil
}

// renderLines writes the lines of a text file's window that fit budget characters into body
// (after its header) and, with content, res.Content, with the notice of what follows: the next
// offset, or how to read a first line too long for the window in pieces.
func renderLines(res *schema.ReadFileResult, body *strings.Builder, sc *scanResult, budget, offset, limit int, capped, content bool) {
	shown := sc.shown
	for len(shown) > 0 && sc.used(shown) > budget {
		shown = shown[:len(shown)-1]
	}
	if len(shown) == 0 {
		first := sc.firstLen
		if len(sc.shown) > 0 {
			first = sc.shown[0].lineChars
		}
		fmt.Fprintf(body, "... (Line %d is %s characters and does not fit the read window. Use offset=%d, column=0 to read it in pieces, or offset=%d to skip it.)\n",
			offset+1, text.Thousands(first), offset, offset+1)
		next := offset + 1
		if next < sc.lines {
			res.NextOffset = &next
		}
		return
	}
	// The shown lines are back to back in the arena: the text takes them whole, the content
	// without their gutters, each built in one allocation.
	rendered := sc.arena[shown[0].off:shown[len(shown)-1].end]
	body.Grow(len(rendered) + 200)
	body.Write(rendered)
	if content {
		var cb strings.Builder
		n := 0
		for _, l := range shown {
			n += l.end - l.off - l.gutter
		}
		cb.Grow(n)
		for _, l := range shown {
			cb.Write(sc.arena[l.off+l.gutter : l.end])
		}
		raw := cb.String()
		res.Content = &raw
	}
	if !strings.HasSuffix(body.String(), "\n") {
		body.WriteByte('\n')
	}
	res.LinesShown = len(shown)
	if next := offset + len(shown); next < sc.lines {
		res.NextOffset = &next
		if capped && len(shown) == limit {
			fmt.Fprintf(body, "... (%d more lines; limit is capped at %d lines. Use offset=%d to continue reading.)\n", sc.lines-next, limit, next)
		} else {
			fmt.Fprintf(body, "... (%d more lines. Use offset=%d to continue reading.)\n", sc.lines-next, next)
		}
	}
}

// readHeader renders the read_file header line.
func (e *Engine) readHeader(label string, lines int, hash string) string {
	if !e.hashes {
		return fmt.Sprintf("[%s | %d lines]\n", label, lines)
	}
	return fmt.Sprintf("[%s | %d lines | hash:%s]\n", label, lines, hash)
}

// readLabel is the path label of the header: the path as the model passed it, or "..." and its
// last max_read_chars/4 characters when it is longer than that.
func readLabel(p string, maxChars int) string {
	keep := maxChars / 4
	rs := []rune(p)
	if len(rs) <= keep {
		return p
	}
	return "..." + string(rs[len(rs)-keep:])
}

// scanWindow says which lines a scan renders: lines [offset, offset+limit) while their rendered
// characters fit budget. A zero limit renders nothing (file_info).
type scanWindow struct {
	offset, limit, budget int
	keepMedia             bool        // keep the bytes of an image or PDF up to text.MaxMediaBytes (read_file)
	piece                 *pieceState // with read_file's column: collect a piece of the line at offset
}

// renderedLine is one numbered line of the window, rendered into scanResult.arena.
type renderedLine struct {
	off, end  int // its bytes in the arena: number, TAB, line with its terminator, decoded leniently
	gutter    int // bytes before the line: the number and the TAB
	chars     int // code points of the rendered line
	lineChars int // code points of the line alone, terminator included
}

// scanResult is what one pass over a file learned.
type scanResult struct {
	size     int64
	hash     string
	binary   bool
	lines    int
	shown    []renderedLine // the window lines that fit the (estimated) budget
	arena    []byte         // the rendered lines of shown, back to back
	firstLen int            // code points of the window's first line when it did not fit
	media    string         // for an image or PDF, its media type (binary is then true)
	head     []byte         // for a binary file, its first text.HexPreviewBytes bytes
	data     []byte         // for media kept by scanWindow.keepMedia, every byte
	piece    *pieceState    // scanWindow.piece, filled
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

// used returns the characters the lines take.
func (s *scanResult) used(lines []renderedLine) int {
	n := 0
	for _, l := range lines {
		n += l.chars
	}
	return n
}

// scan reads f once from its current offset: it hashes every byte, decides binary from the first
// text.SniffBytes, counts lines and renders the window w. Memory is bounded by w.budget (and
// readChunkBytes), not by the file.
//
// sizeHint (the file's size from fstat) only sizes the read buffer: small files get a small one.
func (e *Engine) scan(ctx context.Context, f io.Reader, sizeHint int64, w scanWindow) (*scanResult, error) {
	h := text.NewHash()
	cr := &countingReader{r: f, h: h}
	res := &scanResult{}
	if w.limit > 0 && sizeHint > 0 {
		// Room for the whole window when the file is small: its bytes plus a gutter per line of
		// about 40 bytes, at most what the budget can show (4 bytes a character).
		res.arena = make([]byte, 0, min(sizeHint+sizeHint/5+64, int64(w.budget)*4+64))
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
		res.binary, res.media = true, media
		res.head = bytes.Clone(sniff[:min(len(sniff), text.HexPreviewBytes)])
		var sink io.Writer = io.Discard
		var data *cappedBuffer
		if media != "" && w.keepMedia && sizeHint <= text.MaxMediaBytes {
			data = &cappedBuffer{limit: text.MaxMediaBytes}
			sink = data
		}
		if _, err := copyCtx(ctx, sink, br); err != nil {
			return nil, err
		}
		if data != nil && !data.over {
			res.data = data.buf.Bytes()
		}
		res.size, res.hash = cr.n, text.ShortHash(h)
		return res, nil
	}
	ls := lineState{w: w, res: res, capBytes: 4*w.budget + utf8.UTFMax}
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
	res.size, res.hash, res.piece = cr.n, text.ShortHash(h), w.piece
	return res, nil
}

// lineState is the per-line state of scan.
type lineState struct {
	w        scanWindow
	res      *scanResult
	capBytes int // bytes of one line kept for rendering; a longer line cannot fit the budget

	idx     int // 0-based index of the current line
	partial bool
	buf     []byte           // the current line's bytes, while it may still be shown
	over    bool             // the current line outgrew capBytes
	count   text.RuneCounter // code points of the current line, when it is the window's first
	closed  bool             // the window is complete (limit reached or a line did not fit)
	usedEst int              // characters of res.shown
}

// inWindow reports whether the current line is still a candidate for the window.
func (ls *lineState) inWindow() bool {
	return !ls.closed && ls.idx >= ls.w.offset && ls.idx < ls.w.offset+ls.w.limit
}

func (ls *lineState) feed(p []byte) {
	ls.partial = true
	if ls.w.piece != nil && ls.idx == ls.w.offset {
		ls.w.piece.feed(p)
	}
	if !ls.inWindow() {
		return
	}
	if ls.idx == ls.w.offset {
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
	if ls.w.piece != nil && ls.idx == ls.w.offset {
		ls.w.piece.end()
	}
	if ls.inWindow() {
		fits := !ls.over
		var rl renderedLine
		mark := len(ls.res.arena)
		if fits {
			ls.res.arena, rl = renderLine(ls.res.arena, ls.idx+1, ls.buf)
			fits = ls.usedEst+rl.chars <= ls.w.budget
		}
		if fits {
			ls.res.shown = append(ls.res.shown, rl)
			ls.usedEst += rl.chars
		} else {
			ls.res.arena = ls.res.arena[:mark]
			ls.closed = true
			if ls.idx == ls.w.offset {
				ls.res.firstLen = ls.count.Total()
			}
		}
	}
	ls.idx++
	ls.res.lines = ls.idx
	ls.partial, ls.buf, ls.over = false, ls.buf[:0], false
	if ls.w.limit == 0 || ls.idx >= ls.w.offset+ls.w.limit {
		ls.buf = nil
	}
}

// renderLine appends one window line to arena as read_file shows it: the 1-based number
// right-aligned in six columns, a TAB, and the line decoded leniently with its terminator. The
// lines of a window share the arena (no allocation per line, which with a per-line string was
// most of a small read's garbage).
func renderLine(arena []byte, number int, line []byte) ([]byte, renderedLine) {
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
	return arena, renderedLine{off: off, end: len(arena), gutter: gutter, chars: gutter + lineChars, lineChars: lineChars}
}

// countingReader hashes and counts what it reads.
type countingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.h.Write(p[:n])
		c.n += int64(n)
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

// scanError maps an error of scan: the call's context ending, or an I/O error reading r.
func (e *Engine) scanError(op string, r *resolved, err error) *Error {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return cancelled(op, err)
	}
	return fserr.FromOS(op, r.rel, r.spelling, err)
}
