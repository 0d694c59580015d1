package loop

import (
	"encoding/json"
	"strings"
	"testing"
)

// The wire strings are CONTRACT.md's: each kind marshals to exactly its
// text and reads back to the same Exit.
func TestExitWireText(t *testing.T) {
	cases := []struct {
		exit Exit
		want string
	}{
		{ExitTextResponse(""), "text_response(finish_reason=stop)"},
		{ExitTextResponse("length"), "text_response(finish_reason=length)"},
		{ExitMaxIterations(3, 2), "max_iterations_reached(3/2)"},
		{ExitErrorNearMax("server_error"), "error_near_max_iterations(server_error)"},
		{ExitInterruptedByUser.Exit(), "interrupted_by_user"},
		{ExitInterruptedDuringAPI.Exit(), "interrupted_during_api_call"},
		{ExitBudgetExhausted.Exit(), "budget_exhausted"},
		{ExitGuardrailHalt.Exit(), "guardrail_halt"},
		{ExitEmptyResponseExhausted.Exit(), "empty_response_exhausted"},
		{ExitPartialStreamRecovery.Exit(), "partial_stream_recovery"},
		{ExitFallbackPriorContent.Exit(), "fallback_prior_turn_content"},
		{ExitRetriesExhausted.Exit(), "all_retries_exhausted_no_response"},
		{ExitContentPolicyBlocked.Exit(), "content_policy_blocked"},
		{ExitInvalidToolCalls.Exit(), "invalid_tool_calls_exhausted"},
		{ExitUnknown.Exit(), "unknown"},
	}
	for _, c := range cases {
		b, err := c.exit.MarshalText()
		if err != nil || string(b) != c.want {
			t.Errorf("%#v marshals to %q, %v; want %q", c.exit, b, err, c.want)
		}
		var back Exit
		if err := back.UnmarshalText([]byte(c.want)); err != nil || back != c.exit {
			t.Errorf("%q reads back as %#v, %v; want %#v", c.want, back, err, c.exit)
		}
	}
}

// turn.finished carries exit_reason as a JSON string, as before.
func TestTurnFinishedExitReasonJSON(t *testing.T) {
	b, err := json.Marshal(finished(Result{ExitReason: ExitMaxIterations(91, 90)}))
	if err != nil || !strings.Contains(string(b), `"exit_reason":"max_iterations_reached(91/90)"`) {
		t.Fatalf("turn.finished = %s, %v", b, err)
	}
	var ev struct {
		ExitReason Exit `json:"exit_reason"`
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.ExitReason != ExitMaxIterations(91, 90) {
		t.Fatalf("read back %#v, %v", ev.ExitReason, err)
	}
}

// A reason added later (a plain name) reads back; malformed forms are
// refused with the text named.
func TestExitUnmarshalRejects(t *testing.T) {
	var e Exit
	if err := e.UnmarshalText([]byte("context_overflow")); err != nil || e.Kind != "context_overflow" {
		t.Errorf("a new plain reason: %#v, %v", e, err)
	}
	for _, bad := range []string{"", "text_response", "text_response(stop)", "max_iterations_reached(3)",
		"max_iterations_reached(a/b)", "error_near_max_iterations", "guardrail_halt(x)", "text_response(finish_reason=stop"} {
		if err := e.UnmarshalText([]byte(bad)); err == nil || !strings.Contains(err.Error(), "exit reason") {
			t.Errorf("%q: err = %v, want a refusal", bad, err)
		}
	}
}
