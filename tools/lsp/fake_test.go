package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fakeEnv makes the test binary run as a fake language server; its value
// is the mode: "ok" (an error diagnostic per line containing ERR, a
// warning per WARN), "hang" (never publishes), "crash" (exits on the
// first change), "noversion" (publishes without versions).
const fakeEnv = "TALARIA_FAKE_LSP"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeServer(mode, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// fakeServer speaks LSP with its own framing (not the library's), so the
// tests check the client's framing against an independent one.
func fakeServer(mode string, in io.Reader, out io.Writer) int {
	r := bufio.NewReader(in)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	for {
		n := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return 0
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return 1
		}
		var msg struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params json.RawMessage  `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		switch msg.Method {
		case "initialize":
			// A server request first: the client must answer it.
			send(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "workspace/configuration", "params": map[string]any{"items": []any{map[string]any{}}}})
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}})
		case "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case "exit":
			return 0
		case "textDocument/didOpen", "textDocument/didChange":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[0].Text
			}
			if mode == "hang" {
				continue
			}
			if mode == "crash" && strings.Contains(text, "CRASH") {
				return 3
			}
			diags := []any{}
			for i, l := range strings.Split(text, "\n") {
				sev := 0
				if c := strings.Index(l, "ERR"); c >= 0 {
					sev = 1
				} else if strings.Contains(l, "WARN") {
					sev = 2
				}
				if sev > 0 {
					diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]any{"line": i, "character": 2}, "end": map[string]any{"line": i, "character": 3}},
						"severity": sev, "source": "fake", "message": strings.TrimSpace(l)})
				}
			}
			params := map[string]any{"uri": p.TextDocument.URI, "diagnostics": diags}
			if mode != "noversion" {
				params["version"] = p.TextDocument.Version
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})
		}
	}
}
