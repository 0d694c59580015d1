package ollama

import (
	"bytes"
	"context"
	"testing"

	"talaria/providers"
)

// FuzzNativeStream feeds arbitrary /api/chat stream bodies (what a server,
// and through it a model, sends) to the reader: it never panics, a
// response comes back with every result, and a stream read without error
// ended on a "done" line and holds only complete tool calls.
func FuzzNativeStream(f *testing.F) {
	f.Add([]byte(toolStream))
	f.Add([]byte(`{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" + `{"error":"boom"}` + "\n"))
	f.Add([]byte(`{"done":true}`))
	f.Add([]byte("\n\n{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"x\",\"arguments\":null}}]},\"done\":true,\"done_reason\":\"length\"}\n"))
	tr := &chatTransport{ep: providers.Endpoint{Provider: "ollama"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := tr.read(context.Background(), nil, bytes.NewReader(body), nil)
		if resp == nil {
			t.Fatal("no response")
		}
		if err == nil && !bytes.Contains(body, []byte(`"done"`)) {
			t.Fatalf("a stream without done read as complete: %q", body)
		}
		for _, c := range resp.ToolCalls {
			if c.ID == "" || c.Arguments == "" {
				t.Fatalf("call %+v", c)
			}
		}
	})
}
