package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// Caps on what a server may send in one message. The library's own
// stream allocates whatever Content-Length a server names (up to 2 GiB);
// ours refuses past maxMessageBytes before allocating, and a header past
// maxHeaderBytes, so a confused or hostile server costs a closed
// connection (the server is then restarted, at most MaxRestarts times),
// never talaria's memory.
const (
	maxMessageBytes = 64 << 20
	maxHeaderBytes  = 4 << 10
	maxHeaderLines  = 32
)

// cappedStream is a jsonrpc2.Stream with the LSP base protocol's framing
// (Content-Length headers) and bounded reads; messages are decoded and
// encoded by the library.
type cappedStream struct {
	conn io.ReadWriteCloser
	in   *bufio.Reader
}

// newCappedStream frames messages over conn.
func newCappedStream(conn io.ReadWriteCloser) jsonrpc2.Stream {
	return &cappedStream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10)}
}

// Read implements jsonrpc2.Stream.
func (s *cappedStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	length, total, err := s.header()
	if err != nil {
		return nil, total, err
	}
	data := make([]byte, length)
	if _, err := io.ReadFull(s.in, data); err != nil {
		return nil, total, fmt.Errorf("reading a %d-byte message: %w", length, err)
	}
	total += length
	msg, err := jsonrpc2.DecodeMessage(data)
	return msg, total, err
}

// header reads one message's header block and returns its Content-Length.
func (s *cappedStream) header() (length, total int64, err error) {
	for lines := 0; ; lines++ {
		if lines == maxHeaderLines || total > maxHeaderBytes {
			return 0, total, fmt.Errorf("a message header over %d lines or %d bytes", maxHeaderLines, maxHeaderBytes)
		}
		line, err := s.readLine()
		total += int64(len(line))
		if err != nil {
			return 0, total, fmt.Errorf("reading a message header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, total, fmt.Errorf("invalid header line %q", line)
		}
		if !strings.EqualFold(strings.TrimSpace(name), jsonrpc2.HdrContentLength) {
			continue // Content-Type and unknown headers
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n <= 0 {
			return 0, total, fmt.Errorf("invalid %s %q", jsonrpc2.HdrContentLength, value)
		}
		if n > maxMessageBytes {
			return 0, total, fmt.Errorf("a %d-byte message, over the %d MiB cap", n, maxMessageBytes>>20)
		}
		length = n
	}
	if length == 0 {
		return 0, total, fmt.Errorf("a message without %s", jsonrpc2.HdrContentLength)
	}
	return length, total, nil
}

// readLine reads one header line, at most maxHeaderBytes of it.
func (s *cappedStream) readLine() (string, error) {
	var b strings.Builder
	for {
		frag, err := s.in.ReadSlice('\n')
		b.Write(frag)
		if err == nil {
			return b.String(), nil
		}
		if err != bufio.ErrBufferFull {
			return b.String(), err
		}
		if b.Len() > maxHeaderBytes {
			return b.String(), fmt.Errorf("a header line over %d bytes", maxHeaderBytes)
		}
	}
}

// Write implements jsonrpc2.Stream.
func (s *cappedStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("encoding a message: %w", err)
	}
	frame := make([]byte, 0, len(data)+40)
	frame = fmt.Appendf(frame, "%s: %d%s", jsonrpc2.HdrContentLength, len(data), jsonrpc2.HdrContentSeparator)
	frame = append(frame, data...)
	n, err := s.conn.Write(frame)
	return int64(n), err
}

// Close implements jsonrpc2.Stream.
func (s *cappedStream) Close() error { return s.conn.Close() }
