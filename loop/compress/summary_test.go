package compress

import (
	"strings"
	"testing"
	"time"

	"talaria/providers"
)

var headings = []string{
	"## Historical Task Snapshot", "## Goal", "## Constraints & Preferences", "## Completed Actions",
	"## Active State", "## Historical In-Progress State", "## Blocked", "## Key Decisions",
	"## Resolved Questions", "## Historical Pending User Asks", "## Relevant Files",
	"## Historical Remaining Work", "## Critical Context",
}

func TestSummaryBudget(t *testing.T) {
	for _, c := range []struct{ summarized, ctx, want int }{
		{1000, 128_000, 2000},        // floor
		{30_000, 128_000, 6000},      // 20% of the summarized
		{100_000, 128_000, 6400},     // 5% of the context
		{500_000, 1_000_000, 10_000}, // ceiling
		{100_000, 10_000, 2000},
	} {
		if got := SummaryBudget(c.summarized, c.ctx); got != c.want {
			t.Errorf("SummaryBudget(%d, %d) = %d, want %d", c.summarized, c.ctx, got, c.want)
		}
	}
}

func TestSummaryRequest(t *testing.T) {
	long := strings.Repeat("A", 4000) + strings.Repeat("M", 3000) + strings.Repeat("Z", 1500)
	args := `{"content":"` + strings.Repeat("x", 3000) + `"}`
	middle := []providers.Message{
		user("please fix the build"),
		asstCalls(call("c1", "write_file", args)),
		result("c1", "write_file", long),
		asst("fixed"),
		user("now add tests"),
	}
	now := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	req := SummaryRequest(middle, "", Options{ContextLength: 128_000, MaxTokens: 4096, Now: now})
	if req.Tools != nil || req.Model != "" || req.MaxTokens != 4096 {
		t.Fatalf("request %+v: want no tools, no model, the configured output cap", req)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != providers.RoleSystem || req.Messages[1].Role != providers.RoleUser {
		t.Fatalf("messages %+v", req.Messages)
	}
	sys, body := req.Messages[0].Content, req.Messages[1].Content
	for _, w := range []string{"[REDACTED]", "language the user writes in", "Saturday, 14 March 2026", "not a conversation with you"} {
		if !strings.Contains(sys, w) {
			t.Errorf("instructions lack %q", w)
		}
	}
	last := -1
	for _, h := range headings {
		i := strings.Index(body, h)
		if i <= last {
			t.Errorf("heading %q missing or out of order", h)
		}
		last = i
	}
	if !strings.Contains(body, strings.Repeat("A", 4000)) || strings.Contains(body, strings.Repeat("A", 4001)) ||
		!strings.Contains(body, strings.Repeat("Z", 1500)) || strings.Contains(body, "MZ") || !strings.Contains(body, "chars omitted") {
		t.Error("a long message must be cut to its first 4000 and last 1500 characters")
	}
	if strings.Contains(body, strings.Repeat("x", 1500)) {
		t.Error("tool arguments must be cut to 1500 characters")
	}
	if !strings.Contains(body, "please fix the build") || !strings.Contains(body, "calls write_file(") {
		t.Error("transcript lacks the turns")
	}
	if !strings.Contains(body, "under about 2000 tokens") {
		t.Error("summary budget missing")
	}
	if !strings.Contains(body, `latest requests were: "please fix the build"; "now add tests"`) {
		t.Error("a focus is derived from the last user turns when none is given")
	}
	if strings.Contains(body, "<previous-checkpoint>") {
		t.Error("no previous summary was given")
	}
}

func TestSummaryRequestIterativeAndFocus(t *testing.T) {
	middle := []providers.Message{
		user(summaryContent("## Goal\nship v1")),
		asst("continuing"),
	}
	req := SummaryRequest(middle, "", Options{Focus: "the auth bug"})
	body := req.Messages[1].Content
	if !strings.Contains(body, "<previous-checkpoint>\n## Goal\nship v1\n</previous-checkpoint>") || !strings.Contains(body, "Update it") {
		t.Errorf("the summary found in the middle must be updated, not re-summarized:\n%s", body)
	}
	if strings.Contains(body, summaryMarker) {
		t.Error("the old prefix leaked into the transcript")
	}
	if !strings.Contains(body, "focus on: the auth bug") || strings.Contains(body, "latest requests were") {
		t.Error("an explicit focus replaces the derived one")
	}
	req = SummaryRequest([]providers.Message{asst("x")}, summaryContent("given"), Options{})
	if !strings.Contains(req.Messages[1].Content, "<previous-checkpoint>\ngiven\n</previous-checkpoint>") {
		t.Error("the given previous summary is used, without its prefix")
	}
}

func TestSummaryRequestBoundsTranscript(t *testing.T) {
	var middle []providers.Message
	for range 400 {
		middle = append(middle, user(strings.Repeat("q", 5000)))
	}
	req := SummaryRequest(middle, "", Options{ContextLength: 1_000_000})
	if n := len(req.Messages[1].Content); n > transcriptMaxChars+10_000 {
		t.Errorf("summarizer input is %d chars", n)
	}
	req = SummaryRequest(middle, "", Options{ContextLength: 16_000})
	if n := len(req.Messages[1].Content); n > 3*16_000 {
		t.Errorf("summarizer input of %d chars cannot fit a 16k window", n)
	}
}

func TestFallbackSummary(t *testing.T) {
	var middle []providers.Message
	for i := range 200 {
		middle = append(middle,
			user(strings.Repeat("please do thing ", 50)),
			asstCalls(call("c", "read_file", `{"path":"pkg/file`+strings.Repeat("x", i%7)+`.go"}`)),
			result("c", "read_file", strings.Repeat("r", 500)),
			asst(strings.Repeat("done ", 100)),
		)
	}
	s := FallbackSummary(middle)
	if len(s) > fallbackMaxChars {
		t.Fatalf("fallback is %d chars", len(s))
	}
	if s != FallbackSummary(middle) {
		t.Fatal("fallback is not deterministic")
	}
	if !strings.HasPrefix(s, "## Historical Task Snapshot") || !strings.Contains(s, "older turns omitted") || !strings.Contains(s, "read_file pkg/file") {
		t.Errorf("fallback content:\n%s", s)
	}
	var calls []providers.ToolCall
	for range 40 {
		calls = append(calls, call("c", "terminal", `{"command":"`+strings.Repeat("make ", 30)+`"}`))
	}
	huge := []providers.Message{user(strings.Repeat("ask ", 500)), asstCalls(calls...), asst(strings.Repeat("said ", 500))}
	if d := digestTurn(huge, map[string]bool{}); len(d) > fallbackTurnChars {
		t.Errorf("a turn digest of %d chars", len(d))
	}
	small := FallbackSummary(middle[:4])
	if !strings.Contains(small, "## Relevant Files\n- pkg/file.go") || strings.Contains(small, "omitted") {
		t.Errorf("small fallback:\n%s", small)
	}
	withPrev := fallbackWithPrevious(append([]providers.Message{user(summaryContent(strings.Repeat("p", 9000)))}, middle...), "")
	if len(withPrev) > fallbackMaxChars || !strings.HasPrefix(withPrev, "## Earlier checkpoint") {
		t.Errorf("fallback with a previous summary: %d chars", len(withPrev))
	}
}
