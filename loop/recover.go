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
	nudged    bool
	prefills  int
	empties   int
	// policyFallback: a content-policy block already moved this turn to
	// the next backend (tried once per turn).
	policyFallback bool
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
	t.appendScaffold(msg, providers.Message{Role: providers.RoleUser, Content: continuationPrompt})
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

// Empty-response recovery texts (reference/hermes.md §5.4).
const (
	postToolNudge      = "You just executed tool calls but returned an empty response. Please process the tool results above and continue with the task."
	maxThinkingPrefill = 2
)

// housekeeping tools do not produce an answer of their own: when only they
// ran since the model last wrote text, that text can stand as the answer.
func (a *Agent) housekeeping(name string) bool {
	tr, _ := a.opts.Tools.Traits(name)
	return tr.Housekeeping
}

// emptyResponse walks the empty-reply chain in order: prior content after
// housekeeping-only tools, one post-tool nudge, up to two thinking-only
// continuations, up to three plain retries, then the "(empty)" sentinel.
func (t *turn) emptyResponse(msg providers.Message) bool {
	c := &t.continuation
	if prior, ok := t.priorContent(); ok {
		t.final = prior
		t.exit = ExitFallbackPriorContent.Exit()
		t.completed = true
		return true
	}
	if !c.nudged && t.recentToolResult() {
		c.nudged = true
		t.appendScaffold(providers.Message{Role: providers.RoleAssistant, Content: emptySentinel},
			providers.Message{Role: providers.RoleUser, Content: postToolNudge})
		return false
	}
	if msg.Reasoning != "" && c.prefills < maxThinkingPrefill {
		c.prefills++
		msg.FinishReason = "incomplete"
		t.appendScaffold(msg)
		return false
	}
	if c.empties < maxEmptyRetries {
		c.empties++
		return false
	}
	// An empty answer is what the classifier calls a server error (a
	// 500/503 that says the response was empty).
	if t.fallback(nil, providers.ReasonServerError) {
		*c = continuation{pieces: c.pieces, retries: c.retries, truncated: c.truncated, policyFallback: c.policyFallback}
		return false
	}
	t.dropScaffolding()
	t.final = emptySentinel
	t.exit = ExitEmptyResponseExhausted.Exit()
	return true
}

// appendScaffold appends messages that are sent during this turn only.
func (t *turn) appendScaffold(msgs ...providers.Message) {
	for i := range msgs {
		msgs[i].SetFlag(flagScaffold, true)
	}
	t.append(msgs...)
}

// priorContent finds text the model wrote earlier in this turn when only
// housekeeping tools ran after it.
func (t *turn) priorContent() (string, bool) {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	h := t.a.history
	for i := len(h) - 1; i > t.start; i-- {
		m := h[i]
		switch {
		case m.Role == providers.RoleTool && t.a.housekeeping(m.ToolName):
			continue
		case m.Role == providers.RoleAssistant && !m.Flag(flagScaffold):
			for _, c := range m.ToolCalls {
				if !t.a.housekeeping(c.Name) {
					return "", false
				}
			}
			return m.Content, m.Content != ""
		default:
			return "", false
		}
	}
	return "", false
}

// recentToolResult reports a tool result among the last 5 messages.
func (t *turn) recentToolResult() bool {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	h := t.a.history
	for i := len(h) - 1; i >= 0 && i >= len(h)-5 && i >= t.start; i-- {
		if h[i].Role == providers.RoleTool {
			return true
		}
	}
	return false
}

// refund gives back the iteration of a restarted call.
func (t *turn) refund(reason string) {
	t.budget.Refund()
	t.emit(&BudgetRefunded{Reason: reason})
}
