package loop

import (
	"context"
	"fmt"
	"unicode/utf8"

	"talaria/providers"
)

// MaxPromptBytes is the largest user message a turn accepts (4 MiB). A
// bigger one is refused before anything is saved or sent: content that
// large belongs in a file the model reads.
const MaxPromptBytes = 4 << 20

// PromptTooLargeError is a user message over MaxPromptBytes.
type PromptTooLargeError struct {
	// Size is the message's length in bytes; 0 when it was not read to
	// the end.
	Size int
}

// Error says the size, the limit and what to do instead.
func (e *PromptTooLargeError) Error() string {
	size := "is " + byteSize(e.Size) + ","
	if e.Size == 0 {
		size = "is"
	}
	return fmt.Sprintf("the prompt %s over the %s limit for one message; nothing was sent: save the content to a file and ask the model to read it",
		size, byteSize(MaxPromptBytes))
}

// checkPrompt refuses a prompt over MaxPromptBytes.
func checkPrompt(input string) error {
	if len(input) > MaxPromptBytes {
		return &PromptTooLargeError{Size: len(input)}
	}
	return nil
}

// MaxToolCalls is the most tool calls one response may carry (1,024, far
// past any real batch). A response with more is cut as it streams, like
// one past agent.max_response_bytes, and none of its calls runs: without
// the cap a model could send calls without end, each one small.
const MaxToolCalls = 1024

// responseTooLarge is an attempt cut because its response passed
// agent.max_response_bytes, or MaxToolCalls when calls is set.
type responseTooLarge struct {
	limit int
	calls bool
}

func (e *responseTooLarge) Error() string {
	if e.calls {
		return fmt.Sprintf("the response passed %d tool calls, the most one response may carry; reading stopped", MaxToolCalls)
	}
	return fmt.Sprintf("the response passed agent.max_response_bytes (%s of text, reasoning and tool arguments); reading stopped", byteSize(e.limit))
}

// sizeGuard counts the bytes and the tool calls of one attempt's response
// and cuts the attempt once they pass the limit or MaxToolCalls.
type sizeGuard struct {
	limit   int
	n       int
	calls   int
	over    bool
	tooMany bool
	cancel  context.CancelFunc
}

// add counts a delta.
func (g *sizeGuard) add(d providers.Delta) {
	if g == nil {
		return
	}
	if d.Kind == providers.DeltaToolCall {
		g.calls++
		if g.calls > MaxToolCalls && !g.over {
			g.over, g.tooMany = true, true
			g.cancel()
		}
	}
	if g.limit <= 0 {
		return
	}
	g.n += len(d.Text)
	if g.n > g.limit && !g.over {
		g.over = true
		g.cancel()
	}
}

// admit counts delta d, like add, and returns the part of it that may be
// shown (streamed to the screen and the JSON Lines events): all of it
// under the limit, for the delta that passes it the part up to the limit
// (cut on a character boundary), nothing once the attempt is cut — a
// transport may still hand over what it had buffered before the cancel
// reached it. ok is false when nothing of d is to be shown.
func (g *sizeGuard) admit(d providers.Delta) (shown providers.Delta, ok bool) {
	if g == nil {
		return d, true
	}
	wasOver, before := g.over, g.n
	g.add(d)
	switch {
	case wasOver:
		return d, false
	case !g.over:
		return d, true
	case g.tooMany || g.limit <= 0:
		return d, false
	}
	room := g.limit - before
	if room <= 0 {
		return d, false
	}
	d.Text = cutBytes(d.Text, room)
	return d, d.Text != ""
}

// check reports the attempt's result as too large: cut while streaming,
// or, for tool arguments (which transports assemble without streaming
// them) and calls a wire never announced, counted on the complete
// response.
func (g *sizeGuard) check(resp *providers.Response, err error) error {
	if g == nil {
		return err
	}
	if g.tooMany || (err == nil && resp != nil && len(resp.ToolCalls) > MaxToolCalls) {
		return &responseTooLarge{calls: true}
	}
	if g.limit <= 0 {
		return err
	}
	if !g.over && err == nil && responseBytes(resp) <= g.limit {
		return nil
	}
	if !g.over && err != nil {
		return err
	}
	return &responseTooLarge{limit: g.limit}
}

func responseBytes(r *providers.Response) int {
	if r == nil {
		return 0
	}
	n := len(r.Content) + len(r.Reasoning)
	for _, c := range r.ToolCalls {
		n += len(c.Arguments)
	}
	return n
}

// responseTooLargeExit ends the turn on a response cut at the cap: the
// text that arrived (the attempt's streamed text, else the partial
// response's), up to the cap, is kept as the answer, without any tool call.
func (t *turn) responseTooLargeExit(resp *providers.Response) {
	text := t.streamed.String()
	if text == "" && resp != nil {
		text = resp.Content
	}
	text = cutBytes(text, t.a.opts.MaxResponseBytes)
	msg := normalize(providers.Message{Role: providers.RoleAssistant, Content: text})
	msg.FinishReason = providers.FinishLength
	if msg.Content != "" {
		t.append(msg)
	}
	t.final = msg.Content
	t.exit = ExitResponseTooLarge.Exit()
}

// cutBytes cuts s to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// explainTooLarge is the explanation of ExitResponseTooLarge.
func (t *turn) explainTooLarge() string {
	if big, ok := t.lastErr.(*responseTooLarge); ok && big.calls {
		return fmt.Sprintf("The response carried more than %d tool calls, the most talaria accepts in one response, so reading stopped and none of them ran; the text that arrived is kept. Ask for the work in smaller steps, or try another model.", MaxToolCalls)
	}
	return fmt.Sprintf("The response passed the %s limit of agent.max_response_bytes, so reading stopped; the text that arrived is kept. Raise agent.max_response_bytes in config.yaml to accept longer responses.",
		byteSize(t.a.opts.MaxResponseBytes))
}

// byteSize writes n bytes as B, KiB or MiB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
