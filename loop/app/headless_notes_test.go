package app_test

import (
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestHeadlessDenialSaidOnceOnStderr: calls denied for want of approval
// are announced on stderr once per turn, with how to allow them; stdout
// carries only the answer.
func TestHeadlessDenialSaidOnceOnStderr(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"y.txt","content":"y"}`}),
		pt.Text("I could not write."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "write x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "needs the user's approval"); n != 1 {
		t.Fatalf("the denial note appears %d times:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "--yolo") || !strings.Contains(r.stderr, "approvals: auto-edit") || strings.Contains(r.stderr, "Meanwhile") {
		t.Fatalf("the note does not say how to allow the call:\n%s", r.stderr)
	}
	if strings.TrimSpace(r.stdout) != "I could not write." {
		t.Fatalf("stdout = %q", r.stdout)
	}
}

// TestHeadlessProviderFailureNotOnStdout: a provider failure's text goes
// to stderr with the explanation; stdout stays empty.
func TestHeadlessProviderFailureNotOnStdout(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Error(401, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, nil))
	r := talaria(t, home, cwd, srv, "", "-p", "hi")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Fatalf("stdout carries the failure: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "The provider rejected the API key in OPENAI_API_KEY (HTTP 401)") {
		t.Fatalf("stderr = %q", r.stderr)
	}
}
