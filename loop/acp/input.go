package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop/config"
)

// maxLine caps one incoming JSON-RPC message; the SDK's reader stops the
// connection on a longer one, so a longer line is answered with a parse
// error and skipped here instead.
const maxLine = 8 << 20

// lockedWriter serializes whole messages on stdout: the SDK writes each
// message with one Write, and so does filterInput's error answer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filterInput passes r's lines that are JSON on to the SDK and answers
// the others (not JSON, or over maxLine) with a JSON-RPC parse error, so
// that a bad line is an error the client sees and the connection goes on
// (the SDK alone would only log it).
func filterInput(r io.Reader, out io.Writer, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			switch {
			case tooLong:
				parseError(out, log, fmt.Sprintf("message over %d bytes", maxLine))
			case len(bytes.TrimSpace(line)) == 0:
			case !json.Valid(line):
				parseError(out, log, "the line is not one JSON value")
			default:
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its newline; tooLong reports a line
// over maxLine, whose rest is consumed and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxLine {
				tooLong, line = true, nil
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

func parseError(out io.Writer, log *slog.Logger, why string) {
	msg := map[string]any{"jsonrpc": "2.0", "id": nil, "error": sdk.NewParseError(map[string]any{"error": why})}
	b, _ := json.Marshal(msg)
	if _, err := out.Write(append(b, '\n')); err != nil {
		log.Warn("parse error not sent", "err", err)
	}
}

// mcpServers turns the client's MCP servers into talaria's config form.
// SSE servers are refused (mcpCapabilities.sse is not advertised), and so
// are HTTP headers, which talaria's MCP client does not send.
func mcpServers(in []sdk.McpServer) (map[string]config.MCPServer, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]config.MCPServer, len(in))
	for i, s := range in {
		var name string
		var c config.MCPServer
		switch {
		case s.Stdio != nil:
			name, c.Command, c.Args = s.Stdio.Name, s.Stdio.Command, s.Stdio.Args
			if len(s.Stdio.Env) > 0 {
				c.Env = make(map[string]string, len(s.Stdio.Env))
				for _, e := range s.Stdio.Env {
					c.Env[e.Name] = e.Value
				}
			}
			if c.Command == "" {
				return nil, fmt.Errorf("mcpServers[%d] (%s): command is empty", i, name)
			}
		case s.Http != nil:
			name, c.URL = s.Http.Name, s.Http.Url
			if len(s.Http.Headers) > 0 {
				return nil, fmt.Errorf("mcpServers[%d] (%s): HTTP headers are not supported by talaria's MCP client", i, name)
			}
		default:
			return nil, fmt.Errorf("mcpServers[%d]: only stdio and http MCP servers are supported", i)
		}
		if name == "" {
			return nil, fmt.Errorf("mcpServers[%d]: name is empty", i)
		}
		out[name] = c
	}
	return out, nil
}
