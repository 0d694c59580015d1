package loop

import (
	"fmt"
	"strings"

	"talaria/providers"
)

// Exit reasons, as written in turn.finished.exit_reason.
const (
	ExitInterruptedByUser      = "interrupted_by_user"
	ExitInterruptedDuringAPI   = "interrupted_during_api_call"
	ExitBudgetExhausted        = "budget_exhausted"
	ExitGuardrailHalt          = "guardrail_halt"
	ExitEmptyResponseExhausted = "empty_response_exhausted"
	ExitPartialStreamRecovery  = "partial_stream_recovery"
	ExitFallbackPriorContent   = "fallback_prior_turn_content"
	ExitRetriesExhausted       = "all_retries_exhausted_no_response"
	ExitContentPolicyBlocked   = "content_policy_blocked"
	ExitUnknown                = "unknown"
	// ExitInvalidToolCalls ends a turn whose model kept sending unknown
	// tools or unparseable arguments (talaria's addition to the list).
	ExitInvalidToolCalls = "invalid_tool_calls_exhausted"
	// ExitResponseTooLarge ends a turn whose response passed
	// agent.max_response_bytes (talaria's addition).
	ExitResponseTooLarge = "response_too_large"
)

// ExitTextResponse is the one normal exit.
func ExitTextResponse(finish string) string {
	if finish == "" {
		finish = providers.FinishStop
	}
	return fmt.Sprintf("text_response(finish_reason=%s)", finish)
}

// ExitMaxIterations is the exit when api_calls reached max_iterations.
func ExitMaxIterations(n, m int) string {
	return fmt.Sprintf("max_iterations_reached(%d/%d)", n, m)
}

// ExitErrorNearMax is the exit for an API error close to the iteration cap.
func ExitErrorNearMax(detail string) string {
	return fmt.Sprintf("error_near_max_iterations(%s)", detail)
}

// IsInterrupted reports whether an exit reason is one of the interrupts.
func IsInterrupted(reason string) bool {
	return strings.HasPrefix(reason, "interrupted_")
}

// Result is what one turn returns.
type Result struct {
	ExitReason    string
	Completed     bool
	FinalResponse string
	APICalls      int
	Usage         providers.Usage
	PendingSteer  string
	CleanupErrors []string
	Explanation   string
	// Error is the last API error of an abnormal exit, if any.
	Error error
	// Unsaved is true when a message of the turn could not be saved (the
	// store failed); CleanupErrors says why.
	Unsaved bool
}
