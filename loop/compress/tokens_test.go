package compress

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"talaria/providers"
)

func TestEstimateTextCalibration(t *testing.T) {
	if got := EstimateText(""); got != 0 {
		t.Fatalf("empty = %d", got)
	}
	prose := strings.Repeat("the quick brown fox jumps over the lazy dog ", 100)
	if got, chars := EstimateText(prose), len(prose); got < chars/5 || got > chars/3 {
		t.Errorf("English prose: %d tokens for %d chars, want about chars/4", got, chars)
	}
	cjk := strings.Repeat("上下文压缩测试", 100) // 700 characters, 2100 bytes
	if got := EstimateText(cjk); got < 600 || got > 900 {
		t.Errorf("CJK: %d tokens for 700 characters, want about one per character", got)
	}
	ascii := strings.Repeat("abcdefg", 100) // 700 characters
	if EstimateText(cjk) <= 2*EstimateText(ascii) {
		t.Errorf("CJK (%d) should weigh far more than as many ASCII letters (%d)", EstimateText(cjk), EstimateText(ascii))
	}
	js := strings.Repeat(`{"a":[1,2],"b":"c"},`, 50)
	plain := strings.Repeat("a", len(js))
	if EstimateText(js) <= EstimateText(plain) {
		t.Errorf("JSON punctuation (%d) should weigh more than letters (%d)", EstimateText(js), EstimateText(plain))
	}
	if got := EstimateText("🙂🙂"); got != 4 {
		t.Errorf("emoji = %d, want 4", got)
	}
}

func TestEstimateMonotonic(t *testing.T) {
	var msgs []providers.Message
	prev := Estimate(nil, nil)
	for i := range 50 {
		switch i % 3 {
		case 0:
			msgs = append(msgs, user(strings.Repeat("x", i)))
		case 1:
			msgs = append(msgs, asstCalls(call("c"+strings.Repeat("1", i), "read_file", `{"path":"a.go"}`)))
		default:
			msgs = append(msgs, result("c"+strings.Repeat("1", i-1), "read_file", ""))
		}
		got := Estimate(msgs, nil)
		if got <= prev {
			t.Fatalf("adding message %d did not raise the estimate: %d -> %d", i, prev, got)
		}
		prev = got
	}
	for n := 1; n < 200; n++ {
		if EstimateText(strings.Repeat("ab,", n)) < EstimateText(strings.Repeat("ab,", n-1)) {
			t.Fatalf("EstimateText not monotonic at %d", n)
		}
	}
	tools := []providers.ToolSpec{{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	if with := Estimate(msgs, tools); with <= prev+ToolSpecOverhead {
		t.Errorf("tool schemas not counted: %d vs %d", with, prev)
	}
	if Estimate(nil, nil) != 0 {
		t.Error("empty request should estimate 0")
	}
}

func TestMessageTokensReasoning(t *testing.T) {
	m := asst("hi")
	m.Reasoning = words(100)
	base := MessageTokens(&m)
	m.ReasoningReplay = json.RawMessage(`"sig"`)
	if got := MessageTokens(&m); got != base+100 {
		t.Errorf("replayed reasoning: %d, want %d", got, base+100)
	}
}

func TestTrackerConverges(t *testing.T) {
	var tr Tracker
	if tr.Adjust(1000) != 1000 || tr.Ratio() != 1 {
		t.Fatal("a fresh tracker must not adjust")
	}
	tr.Observe(0, 100)
	tr.Observe(100, 0)
	if tr.Samples() != 0 {
		t.Fatal("degenerate observations must be ignored")
	}
	for range 30 {
		tr.Observe(1000, 1300)
	}
	if r := tr.Ratio(); math.Abs(r-1.3) > 0.001 {
		t.Fatalf("ratio %v, want 1.3", r)
	}
	if got := tr.Adjust(10_000); got != 13_000 {
		t.Errorf("Adjust(10000) = %d, want 13000", got)
	}
	// A change in the provider's tokenizer is followed within a few calls.
	for range 10 {
		tr.Observe(1000, 800)
	}
	if r := tr.Ratio(); math.Abs(r-0.8) > 0.02 {
		t.Errorf("ratio %v after a shift, want about 0.8", r)
	}
	tr.Observe(1, 1_000_000) // clamped to 4
	if r := tr.Ratio(); r > 0.8*0.7+4*0.3+0.02 {
		t.Errorf("outlier not clamped: %v", r)
	}
}

func TestPromptTokensAndPercent(t *testing.T) {
	if got := PromptTokens(providers.Usage{InputTokens: 100, CacheReadTokens: 900, CacheWriteTokens: 50, OutputTokens: 7}); got != 1050 {
		t.Errorf("PromptTokens = %d", got)
	}
	if got := Percent(64_000, 128_000); got != 50 {
		t.Errorf("Percent = %v", got)
	}
	if Percent(10, 0) != 0 || Percent(-5, 100) != 0 {
		t.Error("Percent of unknown context or negative use must be 0")
	}
	if Percent(150, 100) != 150 {
		t.Error("Percent may exceed 100 on overflow")
	}
}
