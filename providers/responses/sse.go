package responses

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxEventSize bounds one event's data; a larger event is an error rather
// than unbounded memory.
const maxEventSize = 32 << 20

// errEventTooLarge is returned by sseReader.next for an oversized event.
var errEventTooLarge = errors.New("stream event larger than 32 MiB")

// sseReader splits a text/event-stream body into events: "event:" names
// the event, "data:" lines are joined with "\n", a blank line dispatches,
// ":" lines are comments, other fields are ignored, and CRLF line endings
// are accepted. An event still pending when the body ends is dispatched
// too, so a last event whose blank line was cut off is not lost.
type sseReader struct {
	br   *bufio.Reader
	name []byte
	data []byte
	long []byte // a line longer than the buffer, put together
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next event's name and data, valid until the next call.
// It returns io.EOF once the body is used up.
func (r *sseReader) next() (name, data []byte, err error) {
	r.name, r.data = r.name[:0], r.data[:0]
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				return r.name, r.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if hasData {
				return r.name, r.data, nil
			}
			r.name = r.name[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "event":
			r.name = append(r.name[:0], value...)
		case "data":
			if hasData {
				r.data = append(r.data, '\n')
			}
			if len(r.data)+len(value) > maxEventSize {
				return nil, nil, errEventTooLarge
			}
			r.data = append(r.data, value...)
			hasData = true
		}
	}
}

// readLine returns one line without its line ending. A last line without
// one is returned before io.EOF.
func (r *sseReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > maxEventSize {
				return nil, errEventTooLarge
			}
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), nil
}
