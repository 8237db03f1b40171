package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// pieceState collects one piece of one line for read_file's column argument: the characters
// [column, column+budget) of the line at the window's offset, decoded leniently, while the rest of
// the line streams past. It holds at most budget characters, however long the line is, so a
// minified file or a one-line JSON of any size can be read in bounded steps.
type pieceState struct {
	column, budget int
	seen           int    // characters of the line so far, terminator included
	carry          []byte // an incomplete UTF-8 sequence at the end of the last chunk
	piece          strings.Builder
	pieceChars     int
}

// feed takes the next bytes of the line.
func (p *pieceState) feed(b []byte) {
	if len(p.carry) > 0 {
		b = append(p.carry, b...)
		p.carry = nil
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 && !utf8.FullRune(b) {
			p.carry = append([]byte(nil), b...) // wait for the rest of the sequence
			return
		}
		p.take(r, b[:size])
		b = b[size:]
	}
}

// end flushes what is left when the line ends: an incomplete sequence is one invalid byte each.
func (p *pieceState) end() {
	for _, c := range p.carry {
		p.take(utf8.RuneError, []byte{c})
	}
	p.carry = nil
}

func (p *pieceState) take(r rune, raw []byte) {
	if p.seen >= p.column && p.pieceChars < p.budget {
		if r == utf8.RuneError && len(raw) == 1 {
			p.piece.WriteRune(utf8.RuneError)
		} else {
			p.piece.Write(raw)
		}
		p.pieceChars++
	}
	p.seen++
}

// renderPiece fills read_file's result for a read with column: the header, the piece after the
// line's number, and a notice saying where the line continues or what follows it.
func (e *Engine) renderPiece(res *schema.ReadFileResult, sc *scanResult, header string, offset, column int) {
	p := sc.piece
	var body strings.Builder
	piece := p.piece.String()
	fmt.Fprintf(&body, "%6d\t%s", offset+1, piece)
	if !strings.HasSuffix(piece, "\n") {
		body.WriteByte('\n')
	}
	res.Content = &piece
	res.Column = &column
	end := column + p.pieceChars
	switch {
	case end < p.seen:
		res.NextColumn = &end
		fmt.Fprintf(&body, "... (Line %d has %s characters; this shows %s–%s. Use offset=%d, column=%d to continue it.)\n",
			offset+1, text.Thousands(p.seen), text.Thousands(column+1), text.Thousands(end), offset, end)
	case offset+1 < sc.lines:
		next := offset + 1
		res.NextOffset = &next
		fmt.Fprintf(&body, "... (End of line %d. %d more lines. Use offset=%d to continue reading.)\n", offset+1, sc.lines-next, next)
	}
	if p.pieceChars > 0 {
		res.LinesShown = 1
	}
	res.Text = header + body.String()
}
