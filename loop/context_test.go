package loop

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"talaria/persist"
	"talaria/providers"
	pt "talaria/providers/providertest"
)

func longHistory(n int) []providers.Message {
	var h []providers.Message
	for i := 0; i < n; i++ {
		h = append(h,
			providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("question %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 40))},
			providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("answer %d: %s", i, strings.Repeat("consectetur adipiscing elit ", 40))})
	}
	return h
}

func TestOverflowCompressesAndRetriesWithRefund(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.History = longHistory(20); o.Compression = true })
	f.srv.Push(
		pt.Error(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, nil),
		pt.Text("## Historical Task Snapshot\nThe user asked many questions."),
		pt.Text("Answer after compression."),
	)
	res := f.run(t, "one more question")
	if !res.Completed || res.FinalResponse != "Answer after compression." {
		t.Fatalf("result: %+v", res)
	}
	if c := ofType[*Compression](f.rec); len(c) != 1 || c[0].TokensAfter >= c[0].TokensBefore {
		t.Fatalf("compression events: %+v", c)
	}
	refunds := ofType[*BudgetRefunded](f.rec)
	if len(refunds) != 1 || refunds[0].Reason != "compression" {
		t.Fatalf("refunds: %+v", refunds)
	}
	if len(ofType[*FallbackActivated](f.rec)) != 0 {
		t.Fatal("overflow must compress, not fall back")
	}
	reqs := f.srv.Requests()
	if reqs[1]["tools"] != nil {
		t.Fatal("the summary call must carry no tools")
	}
	retried := messages(t, f.srv, 2)
	if len(retried) >= len(messages(t, f.srv, 0)) {
		t.Fatalf("retried request not smaller: %d vs %d messages", len(retried), len(messages(t, f.srv, 0)))
	}
	if last := retried[len(retried)-1]; last["content"] != "one more question" {
		t.Fatalf("latest user message lost: %v", last)
	}
}

func TestPreflightCompressionPastThreshold(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.History = longHistory(30)
		o.Compression = true
		o.Chain = providers.NewFallbackChain(providers.Backend{Provider: "custom", Model: "test-model", ContextLength: 8192}, nil)
	})
	f.srv.Push(pt.Text("summary of the older turns"), pt.Text("still answering"))
	res := f.run(t, "continue")
	if !res.Completed || res.FinalResponse != "still answering" {
		t.Fatalf("result: %+v", res)
	}
	if len(ofType[*Compression](f.rec)) != 1 {
		t.Fatalf("no preflight compression: %v", f.rec.types())
	}
	sys := messages(t, f.srv, 1)[0]
	if sys["role"] != "system" || sys["content"] != f.agent.opts.SystemPrompt {
		t.Fatal("the system prompt must survive compression byte for byte")
	}
}

func TestSystemPromptByteStableAcrossTurns(t *testing.T) {
	f := newFixture(t, nil)
	for i := 0; i < 10; i++ {
		f.srv.Push(pt.Text(fmt.Sprintf("answer %d", i)))
		f.run(t, fmt.Sprintf("question %d", i))
	}
	raw := f.srv.RawRequests()
	first := systemOf(t, raw[0])
	for i, r := range raw {
		if got := systemOf(t, r); got != first {
			t.Fatalf("request %d system prompt differs:\n%q\n%q", i, got, first)
		}
	}
}

// systemOf cuts the raw bytes of the first message out of a request body.
func systemOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `"messages":[`)
	j := strings.Index(body[i:], `},{`)
	if i < 0 || j < 0 {
		t.Fatalf("no messages in %s", body)
	}
	return body[i : i+j]
}

func TestManualCompress(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.History = longHistory(20) })
	f.srv.Push(pt.Text("summary of everything so far"))
	if err := f.agent.Compress(t.Context(), "the API design"); err != nil {
		t.Fatal(err)
	}
	if len(ofType[*Compression](f.rec)) != 1 || len(f.agent.History()) >= 40 {
		t.Fatalf("no compression: %d messages", len(f.agent.History()))
	}
	if !strings.Contains(f.srv.RawRequests()[0], "the API design") {
		t.Fatal("focus not passed to the summarizer")
	}
	f.srv.Push(pt.Text("answer"))
	if res := f.run(t, "next"); !res.Completed {
		t.Fatalf("turn after compress: %+v", res)
	}
}

// TestManualCompressNoopSaysWhy: /compress on a short history makes no
// model call and says why there is nothing to compress.
func TestManualCompressNoopSaysWhy(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.History = longHistory(3) })
	err := f.agent.Compress(t.Context(), "")
	if err == nil || !strings.Contains(err.Error(), "nothing to compress yet: the whole history (6 messages") ||
		!strings.Contains(err.Error(), "/compress needs older turns") {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.srv.RawRequests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}

// numberedStore is the persist store as the loop's Store: messages are
// saved with their turn number (the wiring's sessionStore does the same,
// masked).
type numberedStore struct{ *persist.Store }

func (s numberedStore) AppendMessages(id string, turn int, msgs ...providers.Message) error {
	return s.Store.AppendTurnMessages(id, turn, msgs...)
}

func TestCompactionSnapshotResumes(t *testing.T) {
	st, err := persist.Open(filepath.Join(t.TempDir(), "state.db"), persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &persist.Session{Cwd: "/x"}
	if err := st.CreateSession(rec); err != nil {
		t.Fatal(err)
	}
	hist := longHistory(20)
	if err := st.AppendMessages(rec.ID, hist...); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *Options) { o.History = hist; o.Store = numberedStore{st}; o.SessionID = rec.ID })
	f.srv.Push(pt.Text("summary of the first twenty exchanges"), pt.Text("fresh answer"))
	if err := f.agent.Compress(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	f.run(t, "after compression")
	resumed, err := st.ResumeMessages(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != len(f.agent.History()) {
		t.Fatalf("resume gives %d messages, the agent holds %d", len(resumed), len(f.agent.History()))
	}
	if full, _ := st.Messages(rec.ID); len(full) != len(hist)+2 {
		t.Fatalf("the full log must stay: %d", len(full))
	}
}
