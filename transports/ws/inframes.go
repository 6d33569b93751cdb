package ws

import "encoding/binary"

// inFrames follows the frames a promptConn hands the WebSocket library,
// byte by byte as they are handed on, so that the connection knows when
// the library has taken every frame it was given whole and is about to
// read the next message's first header (the only place a reader may stop
// and park, park.go), and whether the peer said it closed normally.
type inFrames struct {
	hdr  [14]byte // the current frame's header, nh bytes of it seen
	nh   uint8
	op   byte // the current frame's opcode, once its header is whole
	mask [4]byte
	// closeCode is the status of the close frame the peer sent: 0 before
	// one, 1005 (no status) when it carried none.
	closeCode uint16
	inMsg     bool // a data message has begun and its last frame has not come
	// data is set when a data frame begins; whoever asks clears it.
	data   bool
	remain int64 // the current frame's payload bytes not yet handed on
	pos    int64 // the current frame's payload bytes handed on
}

// WebSocket opcodes and close statuses (RFC 6455 sections 5.2 and 7.4).
const (
	opClose         = 0x8
	statusNormal    = 1000
	statusGoingAway = 1001
	statusNoStatus  = 1005
)

// atMessageStart reports whether every frame handed on so far was whole
// and no data message is part-way: what comes next is a frame header
// outside any message.
func (f *inFrames) atMessageStart() bool {
	return f.nh == 0 && f.remain == 0 && !f.inMsg
}

// closedNormally reports whether the peer sent a close frame saying it
// closed normally or went away.
func (f *inFrames) closedNormally() bool {
	return f.closeCode == statusNormal || f.closeCode == statusGoingAway
}

// feed follows p, the next bytes handed on.
func (f *inFrames) feed(p []byte) {
	for len(p) > 0 {
		if f.nh == 0 && f.remain > 0 {
			k := min(int64(len(p)), f.remain)
			if f.op == opClose && f.pos < 2 {
				f.closeStatus(p[:k])
			}
			f.remain -= k
			f.pos += k
			p = p[k:]
			continue
		}
		f.hdr[f.nh] = p[0]
		f.nh++
		p = p[1:]
		if n, ok := headerLen(f.hdr[:f.nh]); ok && n == int(f.nh) {
			f.frameBegins()
		}
	}
}

// headerLen returns the length of the frame header h begins, and whether
// h holds enough of it to tell.
func headerLen(h []byte) (int, bool) {
	if len(h) < 2 {
		return 0, false
	}
	n := 2
	switch h[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if h[1]&0x80 != 0 {
		n += 4
	}
	return n, true
}

// frameBegins takes the header just completed in f.hdr.
func (f *inFrames) frameBegins() {
	h := f.hdr[:f.nh]
	fin, op := h[0]&0x80 != 0, h[0]&0x0f
	n, at := int64(h[1]&0x7f), 2
	switch n {
	case 126:
		n, at = int64(binary.BigEndian.Uint16(h[2:])), 4
	case 127:
		n, at = int64(binary.BigEndian.Uint64(h[2:])&(1<<63-1)), 10
	}
	f.mask = [4]byte{}
	if h[1]&0x80 != 0 {
		copy(f.mask[:], h[at:at+4])
	}
	f.op, f.remain, f.pos, f.nh = op, n, 0, 0
	if op < opClose { // a data frame, or a data message's continuation
		f.inMsg, f.data = !fin, true
	}
	if op == opClose && n < 2 {
		f.closeCode = statusNoStatus
	}
	if op == opPong {
		tellPinger(f, nil) // ping.go
	}
}

// closeStatus takes p, the next payload bytes of a close frame from
// f.pos, while its status is not yet whole.
func (f *inFrames) closeStatus(p []byte) {
	for i := 0; i < len(p) && f.pos+int64(i) < 2; i++ {
		at := f.pos + int64(i)
		b := uint16(p[i] ^ f.mask[at%4])
		if at == 0 {
			f.closeCode = b << 8
		} else {
			f.closeCode |= b
		}
	}
}
