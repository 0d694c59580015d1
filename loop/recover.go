package loop

import (
	"strings"

	"talaria/providers"
)

// Continuation limits (reference/hermes.md §5.3).
const (
	maxContinuations   = 4
	defaultOutputCap   = 4096
	continuationPrompt = "[System: your previous reply was truncated by the output length limit. Continue exactly where you left off. Do not restart or repeat prior text. Finish the answer directly.]"
	maxEmptyRetries    = 3
	emptySentinel      = "(empty)"
)

// continuation stitches the pieces of a reply cut by the output limit.
type continuation struct {
	pieces    []string
	retries   int
	truncated int
}

func (c *continuation) text() string { return strings.Join(c.pieces, "") }

// boost raises the output cap for retry n: base·2^n, at least the original
// cap, at most max(32768, original).
func (t *turn) boost(n int) {
	orig := t.a.opts.MaxTokens
	base := orig
	if base <= 0 {
		base = defaultOutputCap
	}
	c := base << n
	ceiling := 32768
	if orig > ceiling {
		ceiling = orig
	}
	if c > ceiling {
		c = ceiling
	}
	if c < orig {
		c = orig
	}
	t.maxTokens = c
}

// continueTruncated keeps a text reply cut by the output limit and asks the
// model to go on, up to maxContinuations times.
func (t *turn) continueTruncated(msg providers.Message, raw string) bool {
	c := &t.continuation
	if c.retries >= maxContinuations {
		t.finishText(msg, raw, providers.FinishLength)
		t.completed = false
		return true
	}
	c.retries++
	c.pieces = append(c.pieces, raw)
	part := msg
	part.SetFlag(flagScaffold, true)
	prompt := providers.Message{Role: providers.RoleUser, Content: continuationPrompt}
	prompt.SetFlag(flagScaffold, true)
	t.append(part, prompt)
	t.boost(c.retries)
	t.refund("continuation")
	return false
}

// truncatedToolCall re-requests a response whose tool call was cut by the
// output limit, with a raised cap; incomplete arguments never run.
func (t *turn) truncatedToolCall() bool {
	c := &t.continuation
	if c.truncated >= maxContinuations {
		t.final = "Response truncated due to output length limit: the tool call was not executed."
		t.exit = ExitTextResponse(providers.FinishLength)
		return true
	}
	c.truncated++
	t.boost(c.truncated)
	t.refund("truncated_tool_call")
	return false
}

// emptyResponse handles a reply with no text and no tool calls: retry a few
// times, then end with the "(empty)" sentinel.
func (t *turn) emptyResponse(msg providers.Message) bool {
	c := &t.continuation
	if c.truncated < maxEmptyRetries && msg.Reasoning == "" {
		c.truncated++
		return false
	}
	t.final = emptySentinel
	t.exit = ExitEmptyResponseExhausted
	return true
}

// refund gives back the iteration of a restarted call.
func (t *turn) refund(reason string) {
	t.budget.Refund()
	t.emit(&BudgetRefunded{Reason: reason})
}
