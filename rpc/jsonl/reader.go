package jsonl

import (
	"bufio"
	"bytes"
	"io"
)

// readBufferBytes is the size of the bufio.Reader in front of the input: the unit in which an
// oversize line is skipped without being kept.
const readBufferBytes = 64 << 10

// keepBufferBytes is the largest line buffer kept for reuse; a bigger one (left by a large
// message) is released at the next line, so one big write does not pin 16 MiB.
const keepBufferBytes = 1 << 20

// Reader splits its input into lines of at most a fixed number of bytes. It is not safe for
// concurrent use: one read loop owns it.
type Reader struct {
	r   *bufio.Reader
	max int
	buf []byte // reused between lines; the line returned by Next aliases it
	err error  // sticky read error, returned once the last partial line has been delivered
}

// NewReader returns a Reader of r for lines of at most max bytes, not counting their "\n" or
// "\r\n". max must be positive.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, readBufferBytes), max: max}
}

// Max returns the longest line the Reader returns.
func (lr *Reader) Max() int { return lr.max }

// Next returns the next line without its "\n" or "\r\n"; the line aliases a buffer the next call
// reuses. If the line is longer than the limit, it is skipped to its end without being buffered,
// and Next returns tooLong. A last line without a terminator is returned like any other; the read
// error (io.EOF at the end) comes on the call after.
func (lr *Reader) Next() (line []byte, tooLong bool, err error) {
	if lr.err != nil {
		return nil, false, lr.err
	}
	if cap(lr.buf) > keepBufferBytes {
		lr.buf = nil
	}
	buf := lr.buf[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		complete := err == nil
		if complete {
			frag = frag[:len(frag)-1]
		}
		// Keep one byte beyond the limit so that a "\r" just past it can still be stripped.
		if !tooLong && len(buf)+len(frag) > lr.max+1 {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			buf = append(buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !complete {
			lr.err = err
			if len(buf) == 0 && !tooLong {
				return nil, false, err
			}
		}
		lr.buf = buf
		buf = bytes.TrimSuffix(buf, []byte{'\r'})
		if len(buf) > lr.max {
			return nil, true, nil
		}
		return buf, tooLong, nil
	}
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// Trim strips a leading UTF-8 byte order mark from a line Next returned and reports whether
// anything but spaces, tabs and carriage returns is left: a blank line is skipped, not answered.
func Trim(line []byte) ([]byte, bool) {
	line = bytes.TrimPrefix(line, utf8BOM)
	return line, len(bytes.Trim(line, " \t\r")) > 0
}
