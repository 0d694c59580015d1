// Package sse reads text/event-stream bodies for the streaming transports:
// a Reader that splits a body into events, and the checks that tell an
// event stream from a plain JSON or HTML answer.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
)

// MaxEventSize bounds one event's data; a larger event is an error rather
// than unbounded memory.
const MaxEventSize = 32 << 20

// ErrEventTooLarge is returned by Reader.Next for an event (or a line)
// larger than MaxEventSize.
var ErrEventTooLarge = errors.New("stream event larger than 32 MiB")

// Reader splits a text/event-stream body into events: "event:" names the
// event, "data:" lines are joined with "\n", a blank line dispatches, ":"
// lines are comments, other fields are ignored, and CRLF line endings are
// accepted. An event still pending when the body ends is dispatched too,
// so a last event whose blank line was cut off is not lost.
type Reader struct {
	br   *bufio.Reader
	name []byte
	data []byte
	long []byte // a line longer than the buffer, put together
	cut  bool   // the last event returned ended with the body, not a blank line
}

// NewReader returns a Reader over r, read through a 64 KiB buffer.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event's name and data, valid until the next call.
// It returns io.EOF once the body is used up.
func (r *Reader) Next() (name, data []byte, err error) {
	r.name, r.data = r.name[:0], r.data[:0]
	r.cut = false
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				r.cut = true
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
			if len(r.data)+len(value) > MaxEventSize {
				return nil, nil, ErrEventTooLarge
			}
			r.data = append(r.data, value...)
			hasData = true
		}
	}
}

// Cut reports whether the event Next returned last was ended by the end of
// the body rather than by a blank line: the stream may have been cut inside
// it.
func (r *Reader) Cut() bool { return r.cut }

// readLine returns one line without its line ending. A last line without
// one is returned before io.EOF.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > MaxEventSize {
				return nil, ErrEventTooLarge
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

// Open wraps the body of res, a 2xx answer, in a 64 KiB buffered reader and
// reports whether it is an event stream: its Content-Type says
// text/event-stream, or its first bytes look like one (LooksLikeStream).
// Otherwise it is a whole document (a JSON answer, an error object, a
// page) for the caller to read from br.
func Open(res *http.Response) (br *bufio.Reader, stream bool) {
	br = bufio.NewReaderSize(res.Body, 64<<10)
	return br, IsEventStream(res.Header.Get("Content-Type")) || LooksLikeStream(br)
}

// IsEventStream reports whether a Content-Type header value names
// text/event-stream (parameters such as charset are allowed).
func IsEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// LooksLikeStream peeks at the first non-blank byte of a body whose
// Content-Type does not say text/event-stream: '{', '[' or '<' start a
// plain JSON or HTML body; anything else is taken for SSE. Leading blank
// bytes are dropped from br.
func LooksLikeStream(br *bufio.Reader) bool {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return true
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.Discard(1)
		case '{', '[', '<':
			return false
		default:
			return true
		}
	}
}
