package ws

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// clientFrame returns a frame as a client writes it: masked with key.
func clientFrame(fin bool, op byte, payload []byte, key [4]byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	f := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n < 1<<16:
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	f = append(f, key[:]...)
	for i, c := range payload {
		f = append(f, c^key[i%4])
	}
	return f
}

// TestInFrames: fed a client's frames in pieces of every size, inFrames
// says the next message may start exactly at the end of each whole
// message (not inside a frame, nor between the frames of a fragmented
// message, even after a control frame among them), and reads the status
// of the peer's close frame.
func TestInFrames(t *testing.T) {
	key := [4]byte{0x12, 0x34, 0x56, 0x78}
	closeBody := func(code uint16) []byte { return binary.BigEndian.AppendUint16(nil, code) }
	for _, tc := range []struct {
		name   string
		frames [][]byte
		// starts says, for each frame, whether a message may start
		// after it.
		starts    []bool
		closeCode uint16
		normal    bool
	}{
		{"small text", [][]byte{clientFrame(true, 1, []byte(`{"a":1}`), key)}, []bool{true}, 0, false},
		{"empty text", [][]byte{clientFrame(true, 1, nil, key)}, []bool{true}, 0, false},
		{"16-bit length", [][]byte{clientFrame(true, 1, bytes.Repeat([]byte("x"), 300), key)}, []bool{true}, 0, false},
		{"64-bit length", [][]byte{clientFrame(true, 2, bytes.Repeat([]byte("y"), 70000), key)}, []bool{true}, 0, false},
		{"fragmented, a pong among the fragments", [][]byte{
			clientFrame(false, 1, []byte("one"), key),
			clientFrame(true, 0xA, []byte("7"), key),
			clientFrame(false, 0, []byte("two"), key),
			clientFrame(true, 0, []byte("three"), key),
			clientFrame(true, 0x9, []byte("ping"), key),
		}, []bool{false, false, false, true, true}, 0, false},
		{"close, normal", [][]byte{clientFrame(true, 1, []byte("m"), key), clientFrame(true, 8, append(closeBody(1000), "bye"...), key)}, []bool{true, true}, 1000, true},
		{"close, going away", [][]byte{clientFrame(true, 8, closeBody(1001), key)}, []bool{true}, 1001, true},
		{"close, error", [][]byte{clientFrame(true, 8, closeBody(1011), key)}, []bool{true}, 1011, false},
		{"close, no status", [][]byte{clientFrame(true, 8, nil, key)}, []bool{true}, 1005, false},
	} {
		var all []byte
		var ends []int
		for _, f := range tc.frames {
			all = append(all, f...)
			ends = append(ends, len(all))
		}
		for _, piece := range []int{1, 2, 3, 5, 7, 16, 100, 4096, len(all)} {
			var f inFrames
			fed, next := 0, 0
			for fed < len(all) {
				n := min(piece, len(all)-fed)
				// Fed up to a frame's end at most, so that each end is seen.
				if next < len(ends) && fed+n > ends[next] {
					n = ends[next] - fed
				}
				f.feed(all[fed : fed+n])
				fed += n
				atEnd := next < len(ends) && fed == ends[next]
				switch {
				case atEnd && f.atMessageStart() != tc.starts[next]:
					t.Fatalf("%s, pieces of %d: after frame %d, atMessageStart %v, want %v", tc.name, piece, next, f.atMessageStart(), tc.starts[next])
				case !atEnd && f.atMessageStart():
					t.Fatalf("%s, pieces of %d: a message may start at byte %d, inside frame %d", tc.name, piece, fed, next)
				}
				if atEnd {
					next++
				}
			}
			if f.closeCode != tc.closeCode || f.closedNormally() != tc.normal {
				t.Errorf("%s, pieces of %d: close status %d (normal %v), want %d (%v)", tc.name, piece, f.closeCode, f.closedNormally(), tc.closeCode, tc.normal)
			}
		}
	}
}
