package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
)

// BenchmarkFirstChunkACP is the time from sending session/prompt to the
// first agent_message_chunk, against the scripted provider (the session
// is open already). Compare BenchmarkFirstChunkHeadless.
func BenchmarkFirstChunkACP(b *testing.B) {
	home, cwd := b.TempDir(), b.TempDir()
	srv := pt.New(b)
	a := startACPBench(b, home, cwd, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		srv.Push(pt.Text("first words of the answer"))
		a.client.take()
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("hi")})
			done <- err
		}()
		a.client.waitFor(b, func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
		total += time.Since(start)
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-chunk")
}

// startACPBench is startACP for a benchmark.
func startACPBench(b *testing.B, home, cwd string, srv *pt.Server) *acpAgent {
	cmd := exec.Command(binary, "acp")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	a := &acpAgent{client: newACPClient(), stdin: stdin, cmd: cmd}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	a.conn = sdk.NewClientSideConnection(a.client, stdin, stdout)
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), acpWait)
	defer cancel()
	if _, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		b.Fatal(err)
	}
	return a
}

// BenchmarkFirstChunkHeadless is the same turn headless (-p --json): the
// time from the turn.started event to the first message.delta.
func BenchmarkFirstChunkHeadless(b *testing.B) {
	home, cwd := b.TempDir(), b.TempDir()
	srv := pt.New(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		srv.Push(pt.Text("first words of the answer"))
		cmd := exec.Command(binary, "-p", "hi", "--json")
		cmd.Env = env(home, srv)
		cmd.Dir = cwd
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var started time.Time
		for sc.Scan() {
			var e struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(sc.Bytes(), &e)
			if e.Type == "turn.started" {
				started = time.Now()
			}
			if e.Type == "message.delta" && !started.IsZero() {
				total += time.Since(started)
				break
			}
		}
		for sc.Scan() {
		}
		_ = cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-chunk")
}
