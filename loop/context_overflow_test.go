package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/loop/compress"
	"talaria/providers"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// overflow4000 is the provider's own words for a window far below the
// local estimate (an unknown model is taken at 32,768 tokens).
const overflow4000 = `{"error":{"message":"This model's maximum context length is 4000 tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`

// requestTokens estimates a captured request as the loop would.
func requestTokens(t *testing.T, srv *pt.Server, i int) int {
	t.Helper()
	n := 0
	for _, m := range messages(t, srv, i) {
		s, _ := m["content"].(string)
		n += compress.MessageOverhead + compress.EstimateText(s)
	}
	return n
}

func TestOverflowAfterPreflightFitsTheStatedWindow(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.History = longHistory(12) // ≈ 12k tokens: under the local threshold
		o.Compression = true
		o.Tools = tools.NewRegistry()
	})
	f.srv.Push(
		pt.Error(400, fmt.Sprintf(overflow4000, 13120), nil),
		pt.Text("## Historical Task Snapshot\nThe user asked twelve questions about lorem ipsum."),
		pt.Text("Answer within the window."),
	)
	res := f.run(t, "one more question")
	if !res.Completed || res.FinalResponse != "Answer within the window." {
		t.Fatalf("result: %+v", res)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want overflow, summary, retry", n)
	}
	if got := requestTokens(t, f.srv, 2); got >= 4000 {
		t.Fatalf("the retried request is %d tokens, over the stated 4000", got)
	}
	retried := messages(t, f.srv, 2)
	if last := retried[len(retried)-1]; last["content"] != "one more question" {
		t.Fatalf("latest user message lost: %v", last)
	}
	if r := ofType[*BudgetRefunded](f.rec); len(r) != 1 || r[0].Reason != "compression" {
		t.Fatalf("refunds: %+v", r)
	}
	// The stated window is remembered for the session.
	if n := f.agent.contextLength(); n != 4000 {
		t.Fatalf("context length after the error: %d", n)
	}
}

func TestOverflowThatCannotFitEndsWithContextOverflow(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Tools = tools.NewRegistry() })
	f.srv.Push(pt.Error(400, fmt.Sprintf(overflow4000, 9000), nil))
	res := f.run(t, strings.Repeat("a very long pasted log line ", 1200))
	if res.ExitReason.Kind != ExitContextOverflow || res.Completed {
		t.Fatalf("result: %+v", res)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Fatalf("%d requests: an overflow that compression cannot fix must not be resent", n)
	}
	for _, want := range []string{"context window", "4000 tokens", "/compress", "/new"} {
		if !strings.Contains(res.Explanation, want) || !strings.Contains(res.FinalResponse+res.Explanation, want) {
			t.Errorf("explanation %q lacks %q", res.Explanation, want)
		}
	}
}

func TestOverflowRetriesAtMostThreeTimesPerTurn(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.History = longHistory(12)
		o.Tools = tools.NewRegistry()
	})
	// The server's tokenizer keeps disagreeing: every request overflows,
	// the summary calls included (they fall back to the local digest).
	for i := 0; i < 12; i++ {
		f.srv.Push(pt.Error(400, fmt.Sprintf(overflow4000, 4100), nil))
	}
	res := f.run(t, "one more question")
	if res.ExitReason.Kind != ExitContextOverflow {
		t.Fatalf("result: %+v", res)
	}
	if r := ofType[*BudgetRefunded](f.rec); len(r) > maxOverflowRetries {
		t.Fatalf("%d refunded retries", len(r))
	}
	if n := len(f.srv.Requests()); n > 1+2*maxOverflowRetries {
		t.Fatalf("%d requests for one turn", n)
	}
}

// bigFile writes a file whose read_file output is about 100,000 characters.
func bigFile(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "line %04d of the big file: ordinary text\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFreshToolResultIsNotPrunedBeforeTheModelSeesIt(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir)
	// Size the window so that the request after the read passes the
	// compression threshold (85% of the window) but still fits.
	est := compress.EstimateText(readOutput(t, dir)) + 600
	window := int(float64(est) / 0.92)
	f := newFixture(t, func(o *Options) {
		o.Compression = true
		o.Tools = tools.NewRegistry(tools.ReadFileTool{})
		o.ToolEnv.Cwd = dir
		o.Chain = providers.NewFallbackChain(providers.Backend{Provider: "custom", Model: "test-model", ContextLength: window}, nil)
	})
	// No usage chunk: the providertest usage figures would calibrate the
	// estimate far down.
	call := pt.ToolCallChunks("tool_calls", pt.Call{Name: "read_file", Args: `{"path":"big.txt","limit":2000}`})
	f.srv.Push(pt.Reply{Chunks: call[:len(call)-1]}, pt.Text("read it all"))
	if res := f.run(t, "read big.txt"); !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	// The preflight ran over the threshold: the request after the read
	// was estimated above it.
	if est, th := f.agent.ctxs.lastEst, f.agent.threshold(); est < th {
		t.Fatalf("estimate %d under the threshold %d: the test does not exercise pruning", est, th)
	}
	msgs := messages(t, f.srv, 1)
	last := msgs[len(msgs)-1]
	content, _ := last["content"].(string)
	if last["role"] != "tool" || !strings.Contains(content, "line 2000 of the big file") || len(content) < 90_000 {
		t.Fatalf("the fresh read_file result was pruned: %q…", content[:min(len(content), 200)])
	}
}

func TestResultTooBigForTheWindowIsCutWithOffset(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir)
	f := newFixture(t, func(o *Options) {
		o.Tools = tools.NewRegistry(tools.ReadFileTool{})
		o.ToolEnv.Cwd = dir
	})
	// No usage chunk and no stated request size: the estimate stays
	// uncalibrated, so the test can measure the request with it.
	call := pt.ToolCallChunks("tool_calls", pt.Call{Name: "read_file", Args: `{"path":"big.txt","limit":2000}`})
	f.srv.Push(
		pt.Reply{Chunks: call[:len(call)-1]},
		pt.Error(400, `{"error":{"message":"This model's maximum context length is 4000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}`, nil),
		pt.Text("read the start"),
	)
	if res := f.run(t, "read big.txt"); !res.Completed || res.FinalResponse != "read the start" {
		t.Fatalf("result: %+v", res)
	}
	if got := requestTokens(t, f.srv, 2); got >= 4000 {
		for _, m := range messages(t, f.srv, 2) {
			c, _ := m["content"].(string)
			t.Logf("%v %d %q", m["role"], len(c), c[:min(len(c), 80)])
		}
		t.Fatalf("retried request is %d tokens", got)
	}
	msgs := messages(t, f.srv, 2)
	content, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(content, "1|line 0001") || !strings.Contains(content, "Output cut to fit the model's context window") ||
		!strings.Contains(content, `read_file path="big.txt" offset=`) {
		t.Fatalf("cut result: …%s", content[max(len(content)-400, 0):])
	}
}

// readOutput is what read_file returns for big.txt.
func readOutput(t *testing.T, dir string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, "big.txt"))
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		fmt.Fprintf(&b, "%d|%s\n", i+1, l)
	}
	return b.String()
}

// The case of the issue: the preflight already compressed, and the
// provider still refuses with a window far below the local one.
func TestOverflowRightAfterAPreflightPass(t *testing.T) {
	// A window the history just passes the threshold of (85% of it).
	window := int(float64(compress.Estimate(longHistory(12), nil)) * 1.05)
	f := newFixture(t, func(o *Options) {
		o.History = longHistory(12)
		o.Compression = true
		o.Tools = tools.NewRegistry()
		o.Chain = providers.NewFallbackChain(providers.Backend{Provider: "custom", Model: "test-model", ContextLength: window}, nil)
	})
	f.srv.Push(
		pt.Text("## Historical Task Snapshot\nThe user asked questions 0 to 9."), // preflight summary
		pt.Error(400, fmt.Sprintf(overflow4000, 5200), nil),
		pt.Text("## Historical Task Snapshot\nThe user asked twelve questions."), // fit summary
		pt.Text("Answer within the window."),
	)
	res := f.run(t, "one more question")
	if !res.Completed || res.FinalResponse != "Answer within the window." {
		t.Fatalf("result: %+v", res)
	}
	if c := ofType[*Compression](f.rec); len(c) != 2 {
		t.Fatalf("compressions: %d, want the preflight and the fit", len(c))
	}
	if got := requestTokens(t, f.srv, 3); got >= 4000 {
		t.Fatalf("the retried request is %d tokens", got)
	}
}
