package loop

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"talaria/providers"
)

// ExitKind names how a turn ended. A plain kind's wire text is its value;
// the three kinds with parameters (text_response, max_iterations_reached,
// error_near_max_iterations) add them in parentheses, see [Exit].
type ExitKind string

// Exit kinds, as written in turn.finished.exit_reason. A new plain reason
// is one line here.
const (
	ExitTextResponseKind       ExitKind = "text_response"
	ExitMaxIterationsKind      ExitKind = "max_iterations_reached"
	ExitErrorNearMaxKind       ExitKind = "error_near_max_iterations"
	ExitInterruptedByUser      ExitKind = "interrupted_by_user"
	ExitInterruptedDuringAPI   ExitKind = "interrupted_during_api_call"
	ExitBudgetExhausted        ExitKind = "budget_exhausted"
	ExitGuardrailHalt          ExitKind = "guardrail_halt"
	ExitEmptyResponseExhausted ExitKind = "empty_response_exhausted"
	ExitPartialStreamRecovery  ExitKind = "partial_stream_recovery"
	ExitFallbackPriorContent   ExitKind = "fallback_prior_turn_content"
	ExitRetriesExhausted       ExitKind = "all_retries_exhausted_no_response"
	ExitContentPolicyBlocked   ExitKind = "content_policy_blocked"
	ExitUnknown                ExitKind = "unknown"
	// ExitInvalidToolCalls ends a turn whose model kept sending unknown
	// tools or unparseable arguments (talaria's addition to the list).
	ExitInvalidToolCalls ExitKind = "invalid_tool_calls_exhausted"
	// ExitContextOverflow ends a turn whose request stays over the model's
	// context window after compression (talaria's addition to the list).
	ExitContextOverflow ExitKind = "context_overflow"
	// ExitResponseTooLarge ends a turn whose response passed
	// agent.max_response_bytes (talaria's addition).
	ExitResponseTooLarge ExitKind = "response_too_large"
	// ExitOllamaContextTooSmall ends a turn whose request does not fit the
	// runtime context of its Ollama server, even after compression:
	// nothing was sent (Hermes's exit).
	ExitOllamaContextTooSmall ExitKind = "ollama_runtime_context_too_small"
	// ExitBudgetUSDExhausted ends a turn before a model call that would
	// pass --max-budget-usd (talaria's addition).
	ExitBudgetUSDExhausted ExitKind = "budget_usd_exhausted"
	// ExitInvalidStructuredOutput ends a turn whose final answer stayed
	// invalid against --output-schema after one repair (talaria's
	// addition).
	ExitInvalidStructuredOutput ExitKind = "invalid_structured_output"
)

// Exit is a turn's exit reason. Its text form (MarshalText, String) is
// CONTRACT.md's wire string: "text_response(finish_reason=stop)",
// "max_iterations_reached(3/2)", "error_near_max_iterations(server_error)",
// or a plain kind's name. The zero Exit is no reason yet.
type Exit struct {
	Kind ExitKind
	// Finish is text_response's finish reason.
	Finish string
	// N and M are max_iterations_reached's calls made and max_iterations.
	N, M int
	// Detail is error_near_max_iterations's parameter.
	Detail string
}

// Exit is the plain exit of kind k.
func (k ExitKind) Exit() Exit { return Exit{Kind: k} }

// ExitTextResponse is the one normal exit.
func ExitTextResponse(finish string) Exit {
	if finish == "" {
		finish = providers.FinishStop
	}
	return Exit{Kind: ExitTextResponseKind, Finish: finish}
}

// ExitMaxIterations is the exit when api_calls reached max_iterations.
func ExitMaxIterations(n, m int) Exit { return Exit{Kind: ExitMaxIterationsKind, N: n, M: m} }

// ExitErrorNearMax is the exit for an API error close to the iteration cap.
func ExitErrorNearMax(detail string) Exit { return Exit{Kind: ExitErrorNearMaxKind, Detail: detail} }

// IsZero reports whether no exit reason is set.
func (e Exit) IsZero() bool { return e.Kind == "" }

// Interrupted reports whether the turn was interrupted by the user.
func (e Exit) Interrupted() bool {
	return e.Kind == ExitInterruptedByUser || e.Kind == ExitInterruptedDuringAPI
}

// BudgetOut reports whether the iteration budget ended the loop.
func (e Exit) BudgetOut() bool {
	return e.Kind == ExitBudgetExhausted || e.Kind == ExitMaxIterationsKind
}

// String returns the wire text.
func (e Exit) String() string {
	switch e.Kind {
	case ExitTextResponseKind:
		return fmt.Sprintf("text_response(finish_reason=%s)", e.Finish)
	case ExitMaxIterationsKind:
		return fmt.Sprintf("max_iterations_reached(%d/%d)", e.N, e.M)
	case ExitErrorNearMaxKind:
		return fmt.Sprintf("error_near_max_iterations(%s)", e.Detail)
	}
	return string(e.Kind)
}

// MarshalText writes the wire text, so JSON carries a string.
func (e Exit) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText parses a wire text. A kind without parameters is taken
// as it stands, so reasons added later still read back.
func (e *Exit) UnmarshalText(b []byte) error {
	s := string(b)
	name, arg, hasArg := strings.Cut(s, "(")
	if hasArg {
		var ok bool
		if arg, ok = strings.CutSuffix(arg, ")"); !ok {
			return fmt.Errorf("exit reason %q: unclosed parenthesis", s)
		}
	}
	out := Exit{Kind: ExitKind(name)}
	switch out.Kind {
	case ExitTextResponseKind:
		f, ok := strings.CutPrefix(arg, "finish_reason=")
		if !hasArg || !ok {
			return fmt.Errorf("exit reason %q: want text_response(finish_reason=...)", s)
		}
		out.Finish = f
	case ExitMaxIterationsKind:
		ns, ms, ok := strings.Cut(arg, "/")
		n, err1 := strconv.Atoi(ns)
		m, err2 := strconv.Atoi(ms)
		if !hasArg || !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("exit reason %q: want max_iterations_reached(n/m)", s)
		}
		out.N, out.M = n, m
	case ExitErrorNearMaxKind:
		if !hasArg {
			return fmt.Errorf("exit reason %q: want error_near_max_iterations(...)", s)
		}
		out.Detail = arg
	default:
		if hasArg || name == "" {
			return fmt.Errorf("exit reason %q: unknown form", s)
		}
	}
	*e = out
	return nil
}

// Result is what one turn returns.
type Result struct {
	ExitReason    Exit
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
	// CostUSD is the turn's estimated cost at list prices (0 when the
	// models' prices are unknown).
	CostUSD float64
	// StructuredOutput is the final answer as validated JSON, when the
	// turn asked for one (Script.CheckFinal) and got it.
	StructuredOutput json.RawMessage
}
