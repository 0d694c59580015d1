package compress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/openaichat"
	"talaria/providers/providertest"
)

func transport(t *testing.T, srv *providertest.Server) providers.Transport {
	t.Helper()
	tr, err := openaichat.New(providers.Endpoint{Provider: "custom", Model: "m", BaseURL: srv.URL(), HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// session is a coding session of n turns, each with a tool group of two
// big outputs, long enough for a 10k context to need compression.
func session(n int) []providers.Message {
	var msgs []providers.Message
	for i := range n {
		a, b := fmt.Sprint("call_", i, "a"), fmt.Sprint("call_", i, "b")
		msgs = append(msgs,
			user(fmt.Sprintf("step %d: fix file%d.go", i, i)),
			asstCalls(call(a, "read_file", fmt.Sprintf(`{"path":"file%d.go"}`, i)), call(b, "terminal", `{"command":"go test ./..."}`)),
			result(a, "read_file", strings.Repeat("func f() {}\n", 150)),
			result(b, "terminal", strings.Repeat("ok pkg 0.1s\n", 100)+"\nexit code: 0"),
			asst(fmt.Sprintf("fixed file%d.go", i)),
		)
	}
	return msgs
}

// requestText joins the contents of a decoded chat-completions request.
func requestText(t *testing.T, req map[string]any) string {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	var b strings.Builder
	for _, m := range msgs {
		c, _ := m.(map[string]any)["content"].(string)
		b.WriteString(c + "\n")
	}
	if b.Len() == 0 {
		t.Fatalf("no message contents in %v", req)
	}
	return b.String()
}

var e2eOpts = Options{ContextLength: 10_000, Now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}

func TestCompressEndToEnd(t *testing.T) {
	srv := providertest.New(t)
	summary := "## Historical Task Snapshot\nstep 29\n## Goal\nfix every file"
	srv.Push(providertest.Text(summary))
	msgs := session(30)
	orig := append([]providers.Message(nil), msgs...)

	out, res, err := Compress(context.Background(), transport(t, srv), "summarizer-model", msgs, "", e2eOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msgs, orig) {
		t.Fatal("the caller's history was modified")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one summary call", len(reqs))
	}
	if _, ok := reqs[0]["tools"]; ok {
		t.Error("the summary request carries tools")
	}
	if reqs[0]["model"] != "summarizer-model" {
		t.Errorf("model %v", reqs[0]["model"])
	}
	raw := requestText(t, reqs[0])
	for _, h := range headings {
		if !strings.Contains(raw, h) {
			t.Errorf("summary request lacks the template heading %q", h)
		}
	}
	_, tr, _ := strings.Cut(raw, "<transcript>")
	tr, _, _ = strings.Cut(tr, "</transcript>")
	if !strings.Contains(tr, "step 3: fix file3.go") || strings.Contains(tr, "step 29: fix file29.go") || strings.Contains(tr, "step 0:") {
		t.Error("the transcript should hold the middle turns only")
	}
	if !strings.Contains(raw, `latest requests were: "step 27: fix file27.go"; "step 28: fix file28.go"; "step 29: fix file29.go"`) {
		t.Error("the focus is derived from the last user turns of the whole history")
	}
	checkPairs(t, out)
	if countSummaries(out) != 1 || res.Summary != summary || res.UsedFallback || res.Noop || res.SummaryFailed {
		t.Fatalf("result %+v", res)
	}
	found := false
	for _, m := range out {
		if m.Flag(FlagSummary) && strings.Contains(m.Content, summary) && strings.HasPrefix(m.Content, SummaryPrefix) {
			found = true
		}
	}
	if !found {
		t.Error("no flagged summary message with the prefix")
	}
	if res.TokensBefore != Estimate(msgs, nil) || res.TokensAfter != Estimate(out, nil) || res.TokensAfter*2 > res.TokensBefore {
		t.Errorf("tokens %d -> %d", res.TokensBefore, res.TokensAfter)
	}
	if out[len(out)-1].Content != "fixed file29.go" || out[0].Content != "step 0: fix file0.go" {
		t.Error("head and tail must be kept verbatim")
	}
	if res.Pruned == 0 {
		t.Error("old tool outputs should have been pruned")
	}

	// A second pass updates the summary instead of starting over.
	srv.Push(providertest.Text("## Goal\nupdated"))
	more := append(out, session(30)[5:]...)
	out2, res2, err := Compress(context.Background(), transport(t, srv), "m", more, "", e2eOpts)
	if err != nil {
		t.Fatal(err)
	}
	raw2 := requestText(t, srv.Requests()[1])
	if !strings.Contains(raw2, "<previous-checkpoint>\n"+summary+"\n</previous-checkpoint>") {
		t.Errorf("the earlier summary was not handed over for updating")
	}
	if countSummaries(out2) != 1 || res2.Summary != "## Goal\nupdated" {
		t.Errorf("second pass: %d summaries, %+v", countSummaries(out2), res2)
	}
	checkPairs(t, out2)
}

func TestCompressFallbackOnFailure(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply providertest.Reply
	}{
		{"server error", providertest.Error(500, `{"error":{"message":"boom","type":"server_error"}}`, nil)},
		{"rate limit", providertest.Error(429, `{"error":{"message":"slow down","type":"rate_limit"}}`, nil)},
		{"empty answer", providertest.Text("")},
	} {
		srv := providertest.New(t)
		srv.Push(c.reply)
		msgs := session(30)
		out, res, err := Compress(context.Background(), transport(t, srv), "m", msgs, "", e2eOpts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !res.UsedFallback || !res.SummaryFailed || res.Noop || !strings.Contains(res.Summary, "mechanical digest") {
			t.Errorf("%s: result %+v", c.name, res)
		}
		checkPairs(t, out)
		if countSummaries(out) != 1 || res.TokensAfter >= res.TokensBefore {
			t.Errorf("%s: fallback not applied", c.name)
		}
	}
}

func TestCompressAbortsOnAuthAndNetwork(t *testing.T) {
	msgs := session(30)
	srv := providertest.New(t)
	srv.Push(providertest.Error(401, `{"error":{"message":"invalid api key","type":"invalid_request_error"}}`, nil))
	out, res, err := Compress(context.Background(), transport(t, srv), "m", msgs, "", e2eOpts)
	if err == nil || !reflect.DeepEqual(out, msgs) || !res.Noop || !res.SummaryFailed {
		t.Fatalf("auth failure must leave the history unchanged: err=%v res=%+v", err, res)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tr, err := openaichat.New(providers.Endpoint{Provider: "custom", Model: "m", BaseURL: "http://" + addr + "/v1", HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	out, res, err = Compress(context.Background(), tr, "m", msgs, "", e2eOpts)
	if err == nil || !reflect.DeepEqual(out, msgs) || !res.Noop {
		t.Fatalf("network failure must leave the history unchanged: err=%v res=%+v", err, res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv2 := providertest.New(t)
	srv2.Push(providertest.Text("never used"))
	out, _, err = Compress(ctx, transport(t, srv2), "m", msgs, "", e2eOpts)
	if !errors.Is(err, context.Canceled) || !reflect.DeepEqual(out, msgs) {
		t.Fatalf("a cancelled context must leave the history unchanged: %v", err)
	}
}

func TestCompressNoopAndSkipSummary(t *testing.T) {
	srv := providertest.New(t)
	tr := transport(t, srv)
	short := []providers.Message{user("hi"), asstCalls(call("c", "terminal", `{"command":"ls"}`)), result("c", "terminal", "a.go\n\nexit code: 0"), asst("one file")}
	out, res, err := Compress(context.Background(), tr, "m", short, "", Options{ContextLength: 128_000})
	if err != nil || !res.Noop || !reflect.DeepEqual(out, short) || len(srv.Requests()) != 0 {
		t.Fatalf("a short history is a no-op without a call: %+v %v", res, err)
	}

	// A long single turn: nothing to summarize before the latest user
	// message, but its older tool outputs are pruned.
	turn := session(30)
	turn = append(turn[:1], turn[1:]...)
	var single []providers.Message
	single = append(single, user("u0"), asst("a1"), user("u2"), user("do it all"))
	for _, m := range turn {
		if m.Role != providers.RoleUser {
			single = append(single, m)
		}
	}
	out, res, err = Compress(context.Background(), tr, "m", single, "", e2eOpts)
	if err != nil || res.Noop || res.Pruned == 0 || res.TokensAfter >= res.TokensBefore || len(srv.Requests()) != 0 {
		t.Fatalf("a long single turn should be pruned without a call: %+v %v", res, err)
	}
	checkPairs(t, out)

	out, res, err = Compress(context.Background(), tr, "m", session(30), "", Options{ContextLength: 10_000, SkipSummary: true})
	if err != nil || !res.UsedFallback || res.SummaryFailed || len(srv.Requests()) != 0 || countSummaries(out) != 1 {
		t.Fatalf("SkipSummary must use the fallback without a call: %+v %v", res, err)
	}
}
