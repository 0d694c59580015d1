package bedrock

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// AWS event-stream framing, as used by converse-stream
// (Content-Type application/vnd.amazon.eventstream). Each message is
//
//	prelude:  total length (uint32 BE) | headers length (uint32 BE) |
//	          prelude CRC32 (IEEE, over the first 8 bytes)
//	headers:  repeated name length (uint8) | name | value type (uint8) | value
//	payload:  total - headers - 16 bytes
//	trailer:  message CRC32 (IEEE, over everything before it)
//
// Header value types: 0 true, 1 false, 2 byte, 3 int16, 4 int32, 5 int64,
// 6 byte array and 7 string (uint16 BE length + bytes), 8 timestamp
// (int64 ms), 9 UUID (16 bytes). All integers are big-endian.

// Frame size limits: a message is at least the prelude and the trailer, and
// at most 16 MiB (the service's own limit); headers at most 128 KiB.
const (
	preludeLen    = 12
	minFrameLen   = preludeLen + 4
	maxFrameLen   = 16 << 20
	maxHeadersLen = 128 << 10
)

// Header value type codes.
const (
	hvTrue = iota
	hvFalse
	hvByte
	hvInt16
	hvInt32
	hvInt64
	hvBytes
	hvString
	hvTimestamp
	hvUUID
)

// errFrame is wrapped by every framing error (bad lengths, CRC mismatch,
// malformed headers).
var errFrame = errors.New("malformed event-stream frame")

// frame is one decoded event-stream message: the headers this transport
// reads, and the payload (valid until the next call to next).
type frame struct {
	messageType   string // ":message-type": event, exception or error
	eventType     string // ":event-type"
	exceptionType string // ":exception-type"
	errorCode     string // ":error-code"
	errorMessage  string // ":error-message"
	payload       []byte
}

// eventReader reads frames from a body, reusing one buffer.
type eventReader struct {
	r   *bufio.Reader
	buf []byte
}

func newEventReader(r io.Reader) *eventReader {
	return &eventReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// next reads one frame. It returns io.EOF at a clean end between frames,
// and an error wrapping io.ErrUnexpectedEOF for a body cut inside one.
func (er *eventReader) next() (frame, error) {
	var f frame
	var prelude [preludeLen]byte
	if _, err := io.ReadFull(er.r, prelude[:]); err != nil {
		return f, err // io.EOF only when no byte of a new frame came
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	hlen := binary.BigEndian.Uint32(prelude[4:8])
	if got, want := crc32.ChecksumIEEE(prelude[:8]), binary.BigEndian.Uint32(prelude[8:12]); got != want {
		return f, fmt.Errorf("%w: prelude CRC %08x, computed %08x", errFrame, want, got)
	}
	if total < minFrameLen || total > maxFrameLen || hlen > maxHeadersLen || hlen > total-minFrameLen {
		return f, fmt.Errorf("%w: total length %d, headers length %d", errFrame, total, hlen)
	}
	if cap(er.buf) < int(total) {
		er.buf = make([]byte, total)
	}
	msg := er.buf[:total]
	copy(msg, prelude[:])
	if _, err := io.ReadFull(er.r, msg[preludeLen:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return f, err
	}
	crcAt := total - 4
	if got, want := crc32.ChecksumIEEE(msg[:crcAt]), binary.BigEndian.Uint32(msg[crcAt:]); got != want {
		return f, fmt.Errorf("%w: message CRC %08x, computed %08x", errFrame, want, got)
	}
	if err := f.parseHeaders(msg[preludeLen : preludeLen+hlen]); err != nil {
		return f, err
	}
	f.payload = msg[preludeLen+hlen : crcAt]
	return f, nil
}

// parseHeaders walks the header block, keeping the string headers that
// frame has fields for and skipping every other value by its size.
func (f *frame) parseHeaders(h []byte) error {
	for len(h) > 0 {
		nlen := int(h[0])
		if nlen == 0 || len(h) < 1+nlen+1 {
			return fmt.Errorf("%w: header name cut", errFrame)
		}
		name := h[1 : 1+nlen]
		typ := h[1+nlen]
		h = h[2+nlen:]
		var size int
		switch typ {
		case hvTrue, hvFalse:
			size = 0
		case hvByte:
			size = 1
		case hvInt16:
			size = 2
		case hvInt32:
			size = 4
		case hvInt64, hvTimestamp:
			size = 8
		case hvUUID:
			size = 16
		case hvBytes, hvString:
			if len(h) < 2 {
				return fmt.Errorf("%w: header %q length cut", errFrame, name)
			}
			n := int(binary.BigEndian.Uint16(h))
			if len(h) < 2+n {
				return fmt.Errorf("%w: header %q value cut", errFrame, name)
			}
			if typ == hvString {
				f.setHeader(name, h[2:2+n])
			}
			h = h[2+n:]
			continue
		default:
			return fmt.Errorf("%w: header %q has unknown value type %d", errFrame, name, typ)
		}
		if len(h) < size {
			return fmt.Errorf("%w: header %q value cut", errFrame, name)
		}
		h = h[size:]
	}
	return nil
}

func (f *frame) setHeader(name, value []byte) {
	switch string(name) {
	case ":message-type":
		f.messageType = intern(value)
	case ":event-type":
		f.eventType = intern(value)
	case ":exception-type":
		f.exceptionType = string(value)
	case ":error-code":
		f.errorCode = string(value)
	case ":error-message":
		f.errorMessage = string(value)
	}
}

// intern returns the well-known message and event type names without
// allocating (one frame each per streamed token otherwise).
func intern(b []byte) string {
	switch string(b) {
	case "event":
		return "event"
	case "contentBlockDelta":
		return "contentBlockDelta"
	case "contentBlockStart":
		return "contentBlockStart"
	case "contentBlockStop":
		return "contentBlockStop"
	}
	return string(b)
}
