package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

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
	w := scan.Window{Offset: offset, Limit: limit, Budget: budget, KeepMedia: true}
	if a.Column != nil {
		// One piece of one line: the gutter takes 7 characters, the rest of the budget is the piece.
		w.Limit, w.Piece = 0, &scan.Piece{Column: *a.Column, Budget: max(budget-7, 1)}
	}
	sc, err := scan.Read(c.ctx, f, fi.Size(), w)
	if err != nil {
		return nil, e.scanError(c.tool, r, err)
	}
	res := &schema.ReadFileResult{Path: e.displayOf(r), Size: sc.Size, Offset: offset}
	if e.hashes {
		res.Hash = sc.Hash
	}
	if sc.Binary {
		e.renderBinary(res, sc, label, maxChars)
		c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.Hash})
		return res, nil
	}
	res.TotalLines = sc.Lines
	header := e.readHeader(label, sc.Lines, sc.Hash)
	if sc.Piece != nil {
		switch {
		case offset >= sc.Lines:
			return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Offset %d exceeds file length (%d lines).", offset, sc.Lines)
		case sc.Piece.Column >= sc.Piece.Seen:
			return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Column %d is at or past the end of line %d (%s characters).", sc.Piece.Column, offset+1, text.Thousands(sc.Piece.Seen))
		}
		e.renderPiece(res, sc, header, offset, sc.Piece.Column)
		c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.Hash})
		return res, nil
	}
	var body strings.Builder
	body.WriteString(header)
	switch {
	case sc.Lines == 0:
		body.WriteString("(empty file)\n")
	case offset >= sc.Lines:
		return nil, fserr.Errorf(c.tool, r.rel, schema.KindOffsetOutOfRange, "Offset %d exceeds file length (%d lines).", offset, sc.Lines)
	default:
		renderLines(res, &body, sc, max(maxChars-utf8.RuneCountInString(header)-noticeReserve, 0), offset, limit, capped, content)
	}
	res.Text = body.String()
	c.emit(&schema.FileReadEvent{EventBase: e.base(c, schema.KindFileRead, r.rel), ContentHash: sc.Hash})
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
func renderLines(res *schema.ReadFileResult, body *strings.Builder, sc *scan.Result, budget, offset, limit int, capped, content bool) {
	shown := sc.Shown
	for len(shown) > 0 && sc.Used(shown) > budget {
		shown = shown[:len(shown)-1]
	}
	if len(shown) == 0 {
		first := sc.FirstLen
		if len(sc.Shown) > 0 {
			first = sc.Shown[0].LineChars
		}
		fmt.Fprintf(body, "... (Line %d is %s characters and does not fit the read window. Use offset=%d, column=0 to read it in pieces, or offset=%d to skip it.)\n",
			offset+1, text.Thousands(first), offset, offset+1)
		next := offset + 1
		if next < sc.Lines {
			res.NextOffset = &next
		}
		return
	}
	// The shown lines are back to back in the arena: the text takes them whole, the content
	// without their gutters, each built in one allocation.
	rendered := sc.Arena[shown[0].Off:shown[len(shown)-1].End]
	body.Grow(len(rendered) + 200)
	body.Write(rendered)
	if content {
		var cb strings.Builder
		n := 0
		for _, l := range shown {
			n += l.End - l.Off - l.Gutter
		}
		cb.Grow(n)
		for _, l := range shown {
			cb.Write(sc.Arena[l.Off+l.Gutter : l.End])
		}
		raw := cb.String()
		res.Content = &raw
	}
	if !strings.HasSuffix(body.String(), "\n") {
		body.WriteByte('\n')
	}
	res.LinesShown = len(shown)
	if next := offset + len(shown); next < sc.Lines {
		res.NextOffset = &next
		if capped && len(shown) == limit {
			fmt.Fprintf(body, "... (%d more lines; limit is capped at %d lines. Use offset=%d to continue reading.)\n", sc.Lines-next, limit, next)
		} else {
			fmt.Fprintf(body, "... (%d more lines. Use offset=%d to continue reading.)\n", sc.Lines-next, next)
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

// scanError maps an error of scan: the call's context ending, or an I/O error reading r.
func (e *Engine) scanError(op string, r *resolved, err error) *Error {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return cancelled(op, err)
	}
	return fserr.FromOS(op, r.rel, r.spelling, err)
}

// renderPiece fills read_file's result for a read with column: the header, the piece after the
// line's number, and a notice saying where the line continues or what follows it.
func (e *Engine) renderPiece(res *schema.ReadFileResult, sc *scan.Result, header string, offset, column int) {
	p := sc.Piece
	var body strings.Builder
	piece := p.Text.String()
	fmt.Fprintf(&body, "%6d\t%s", offset+1, piece)
	if !strings.HasSuffix(piece, "\n") {
		body.WriteByte('\n')
	}
	res.Content = &piece
	res.Column = &column
	end := column + p.TextChars
	switch {
	case end < p.Seen:
		res.NextColumn = &end
		fmt.Fprintf(&body, "... (Line %d has %s characters; this shows %s–%s. Use offset=%d, column=%d to continue it.)\n",
			offset+1, text.Thousands(p.Seen), text.Thousands(column+1), text.Thousands(end), offset, end)
	case offset+1 < sc.Lines:
		next := offset + 1
		res.NextOffset = &next
		fmt.Fprintf(&body, "... (End of line %d. %d more lines. Use offset=%d to continue reading.)\n", offset+1, sc.Lines-next, next)
	}
	if p.TextChars > 0 {
		res.LinesShown = 1
	}
	res.Text = header + body.String()
}
