package agentclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// AppendLine appends frame to dst as one line of newline-delimited JSON,
// the line ending included. A frame that spans lines (raw JSON values can
// hold line breaks between tokens) is compacted; one that is not JSON then
// is an error.
func AppendLine(dst, frame []byte) ([]byte, error) {
	if bytes.IndexByte(frame, '\n') < 0 {
		return append(append(dst, frame...), '\n'), nil
	}
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, frame); err != nil {
		return dst, fmt.Errorf("agentclient: a frame with a line break cannot be written as one line: %w", err)
	}
	return append(b.Bytes(), '\n'), nil
}

// LineReader reads frames written one a line (newline-delimited JSON),
// skipping blank lines.
type LineReader struct {
	r     *bufio.Reader
	limit int
}

// NewLineReader returns a reader of the frames on r that keeps at most
// limit bytes of each (0 or less: all of it).
func NewLineReader(r io.Reader, limit int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Next returns the next frame, a new slice, without its line ending
// ("\n" or "\r\n"), and its length in bytes. A line longer than the limit
// is read to its end, and only its first limit bytes are returned, as they
// are: size is then more than len(frame). A last line without a line
// ending is a frame; after it, Next returns io.EOF.
func (l *LineReader) Next() (frame []byte, size int, err error) {
	for {
		frame, size = nil, 0
		for {
			part, err := l.r.ReadSlice('\n')
			ended := err == nil
			if ended {
				part = part[:len(part)-1]
			}
			size += len(part)
			if l.limit <= 0 {
				frame = append(frame, part...)
			} else if room := l.limit - len(frame); room > 0 {
				frame = append(frame, part[:min(room, len(part))]...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && (size == 0 || !errors.Is(err, io.EOF)) {
				return nil, 0, err
			}
			break // the end of a line, or a last line without one
		}
		if size > len(frame) {
			return frame, size, nil
		}
		frame = bytes.TrimSuffix(frame, []byte("\r"))
		if len(bytes.TrimSpace(frame)) > 0 {
			return frame, len(frame), nil
		}
	}
}
