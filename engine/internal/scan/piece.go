package scan

import (
	"strings"
	"unicode/utf8"
)

// Piece collects one piece of one line for read_file's column argument: the characters
// [column, column+budget) of the line at the window's offset, decoded leniently, while the rest of
// the line streams past. It holds at most budget characters, however long the line is, so a
// minified file or a one-line JSON of any size can be read in bounded steps.
type Piece struct {
	Column, Budget int             // set by the caller: where the piece starts, its characters at most
	Seen           int             // characters of the line so far, terminator included
	carry          []byte          // an incomplete UTF-8 sequence at the end of the last chunk
	Text           strings.Builder // the piece, decoded leniently
	TextChars      int             // characters of Text
}

// Feed takes the next bytes of the line.
func (p *Piece) Feed(b []byte) {
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

// End flushes what is left when the line ends: an incomplete sequence is one invalid byte each.
func (p *Piece) End() {
	for _, c := range p.carry {
		p.take(utf8.RuneError, []byte{c})
	}
	p.carry = nil
}

func (p *Piece) take(r rune, raw []byte) {
	if p.Seen >= p.Column && p.TextChars < p.Budget {
		if r == utf8.RuneError && len(raw) == 1 {
			p.Text.WriteRune(utf8.RuneError)
		} else {
			p.Text.Write(raw)
		}
		p.TextChars++
	}
	p.Seen++
}
