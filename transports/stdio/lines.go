package stdio

import (
	"bufio"
	"errors"
	"io"
)

// chunkSize is how much of a line is read at a time.
const chunkSize = 64 << 10

// lineReader splits a stream into lines ending in '\n'. It holds at most
// limit bytes of one line (plus a trailing '\r'): the rest of a longer line
// is read chunk by chunk and discarded, and only its size is kept.
type lineReader struct {
	r     *bufio.Reader
	limit int
	buf   []byte
}

func newLineReader(r io.Reader, limit int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, chunkSize), limit: limit}
}

// next returns the next line without its '\n' and a '\r' before it, and the
// line's size in bytes. A line longer than the limit has size > limit, and
// line holds only its beginning. A last line without '\n' is returned when
// the stream ends; after it, err is io.EOF. A read error in the middle of a
// line drops the line and returns the error. line is valid until the next
// call.
func (lr *lineReader) next() (line []byte, size int, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		if rerr == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += len(chunk)
		if keep := lr.limit + 1 - len(lr.buf); keep > 0 {
			lr.buf = append(lr.buf, chunk[:min(keep, len(chunk))]...)
		}
		switch {
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case rerr == nil, errors.Is(rerr, io.EOF) && size > 0:
		default:
			return nil, 0, rerr
		}
		line = lr.buf
		if n := len(line); n == size && n > 0 && line[n-1] == '\r' {
			line, size = line[:n-1], size-1
		}
		return line, size, nil
	}
}
