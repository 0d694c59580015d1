package loop

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"talaria/providers"
)

// Internal message flags. They never leave the process.
const (
	// flagScaffold marks a message that is sent while the turn runs but is
	// dropped at the epilogue and never saved (continuation pieces, nudges).
	flagScaffold = "_scaffold"
)

// summaryRequest is the user message of the budget-exhausted summary call.
const summaryRequest = "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response summarizing what you've found and accomplished so far, without calling any more tools."

// summaryFallback is the final response when the summary call stays empty.
const summaryFallback = "I reached the iteration limit and couldn't generate a summary."

// turn is the state of one running turn. Only the turn goroutine touches its
// fields, except interrupted and cancel.
type turn struct {
	a           *Agent
	n           int
	ctx         context.Context
	cancel      context.CancelFunc
	interrupted atomic.Bool

	budget    *Budget
	apiCalls  int
	toolTurns int
	usage     providers.Usage
	cost      float64 // estimated USD, each call priced at its own model
	exit      Exit
	final     string
	completed bool
	lastErr   error
	cleanup   []string
	start     int // index in history of this turn's user message
	saved     int // history[:saved] is persisted (or deliberately skipped)
	maxTokens int
	sysPrompt string // the system prompt of this turn (runtime lines follow a fallback)
	endRole   string // role of the last message when the loop ended
	malformed int    // consecutive batches holding an invalid tool call
	// blocked is why a UserPromptSubmit hook dropped the prompt;
	// stopContinues counts the times Stop hooks made the turn go on.
	blocked       string
	stopContinues int

	continuation continuation
	script       scriptState

	size    *sizeGuard // the response size of the attempt in flight
	unsaved bool       // a message of this turn could not be saved

	// streamed is the text the attempt in flight has streamed so far:
	// what an interrupt keeps as the partial answer.
	streamed strings.Builder

	images []providers.Image // attached to the user message (input.go)
}

func newTurn(a *Agent, parent context.Context, n int) *turn {
	ctx, cancel := context.WithCancel(parent)
	return &turn{
		a:         a,
		n:         n,
		ctx:       ctx,
		cancel:    cancel,
		budget:    NewBudget(a.opts.MaxIterations),
		saved:     len(a.history),
		maxTokens: a.opts.MaxTokens,
		sysPrompt: a.opts.SystemPrompt,
	}
}

func (t *turn) interrupt() {
	t.interrupted.Store(true)
	t.cancel()
}

// stopped reports whether the turn was interrupted or its context ended.
func (t *turn) stopped() bool {
	return t.interrupted.Load() || t.ctx.Err() != nil
}

func (t *turn) emit(e Event) { t.a.emit(t.n, e) }

// append adds messages to the session history.
func (t *turn) append(msgs ...providers.Message) {
	now := t.a.opts.Now().UnixMilli()
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	for _, m := range msgs {
		if m.Timestamp == 0 {
			m.Timestamp = now
		}
		t.a.history = append(t.a.history, m)
	}
}

// last returns the newest history message, or nil.
func (t *turn) last() *providers.Message {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	if len(t.a.history) == 0 {
		return nil
	}
	return &t.a.history[len(t.a.history)-1]
}

// run is the whole turn: prologue, loop, epilogue.
func (t *turn) run(input string) Result {
	if t.prologue(input) {
		t.loop()
	}
	return t.epilogue()
}

// prologue starts the turn; false when a UserPromptSubmit hook dropped
// the prompt (nothing is added, sent or saved).
func (t *turn) prologue(input string) bool {
	// Fallback is turn-scoped: each turn starts on the primary backend.
	t.a.route.chain.Reset()
	t.a.guard.ResetForTurn()
	t.a.guard.SetTraits(t.a.opts.Tools.Traits)
	t.a.ctxs.governor.BeginTurn()
	if t.a.opts.BeforeTurn != nil {
		t.step("before turn", func() { t.a.opts.BeforeTurn(t.ctx) })
	}
	if f := t.a.opts.TurnSystemPrompt; f != nil {
		if p := f(); p != "" {
			t.sysPrompt = p
		}
	}
	input = strings.ToValidUTF8(input, "\uFFFD")
	t.emit(&TurnStarted{Input: input})
	t.a.mu.Lock()
	t.start = len(t.a.history)
	t.a.mu.Unlock()
	content, ok := t.promptHooks(input)
	if !ok {
		return false
	}
	t.append(userMessage(content, t.images))
	// The user message is committed before any model call.
	t.flush()
	return true
}

func (t *turn) loop() {
	max := t.a.opts.MaxIterations
	// The budget bounds the loop: a refunded iteration (a restart) gives a
	// call back, as Hermes's api_call_count − 1 does.
	for t.budget.Remaining() > 0 {
		if t.stopped() {
			t.exit = ExitInterruptedByUser.Exit()
			return
		}
		if t.costBlocked() {
			return
		}
		t.budget.Consume()
		t.apiCalls++
		t.deliverSteer()
		t.flush()
		t.emit(&IterationStarted{Iteration: t.apiCalls, BudgetUsed: t.budget.Used(), BudgetMax: t.budget.Max()})
		req := t.request(true)
		if t.preflight(req) {
			req = t.request(true)
		}
		var fits bool
		if req, fits = t.runtimeFits(req); !fits {
			return
		}
		resp, err := t.call(req)
		if err != nil {
			if t.compressOnOverflow(err) {
				continue
			}
			t.callFailed(resp, err)
			return
		}
		t.observeUsage(resp.Usage)
		if t.handleResponse(resp) {
			return
		}
	}
	switch {
	case !t.exit.IsZero():
	case t.stopped():
		t.exit = ExitInterruptedByUser.Exit()
	case t.apiCalls > max:
		// Refunds let more calls run than max_iterations; say how many.
		t.exit = ExitMaxIterations(t.apiCalls, max)
	default:
		t.exit = ExitBudgetExhausted.Exit()
	}
}

// handleResponse takes one model response; it reports true when the turn's
// loop is over.
func (t *turn) handleResponse(resp *providers.Response) bool {
	t.addUsage(resp.Usage)
	msg := normalize(resp.Message())
	t.emitCompleted(msg, resp.Usage)
	if len(msg.ToolCalls) > 0 {
		if resp.FinishReason == providers.FinishLength {
			return t.truncatedToolCall()
		}
		t.append(msg)
		t.flush() // the calls are on disk before any of them runs
		if t.runTools(msg.ToolCalls) {
			return true
		}
		return t.checkMalformed(msg.ToolCalls)
	}
	if resp.FinishReason == providers.FinishContentFilter {
		if t.policyFallback(nil) {
			t.refund("content_filter_fallback")
			return false
		}
		return t.contentFiltered(msg)
	}
	if resp.FinishReason == providers.FinishLength && msg.Content != "" {
		return t.continueTruncated(msg, resp.Content)
	}
	if msg.Content == "" && t.continuation.text() == "" {
		return t.emptyResponse(msg)
	}
	t.finishText(msg, resp.Content, resp.FinishReason)
	// A Stop hook may make the turn go on; else a final answer is checked
	// against --output-schema.
	return !t.stopHooks() && t.checkFinal()
}

// addUsage counts one call's usage and prices it at the model that
// served it (the fallback's, after a fallback).
func (t *turn) addUsage(u providers.Usage) {
	t.usage.Add(u)
	c, _ := providers.EstimateCost(t.model(), u)
	t.cost += c
	t.charge(c, u)
}

// model is the model of the current backend (the fallback's, after a
// fallback), or the configured one when the backend names none.
func (t *turn) model() string {
	if m := t.a.route.backend().Model; m != "" {
		return m
	}
	return t.a.opts.Model
}

// finishText records the final text answer, stitching the raw pieces of a
// continued reply before trimming.
func (t *turn) finishText(msg providers.Message, raw, finish string) {
	if prefix := t.continuation.text(); prefix != "" {
		msg.Content = strings.TrimSpace(prefix + raw)
		t.dropScaffolding()
	}
	t.append(msg)
	t.final = msg.Content
	t.exit = ExitTextResponse(finish)
	t.completed = true
}

func (t *turn) emitCompleted(msg providers.Message, u providers.Usage) {
	calls := make([]ToolCallInfo, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		calls[i] = ToolCallInfo{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	t.emit(&MessageCompleted{Content: msg.Content, Reasoning: msg.Reasoning, ToolCalls: calls, FinishReason: msg.FinishReason, Usage: u})
}

// request builds the next model request from the system prompt and the
// history (scaffolding flags are Message.Internal, which no wire sends).
// Its message list is the agent's requestView: the caller may rewrite the
// system message (fallback does) but nothing else of it.
func (t *turn) request(withTools bool) providers.Request {
	t.a.mu.Lock()
	msgs := t.a.reqs.sync(t.a.history, t.sysPrompt) // see requestView for the invariants
	t.a.mu.Unlock()
	req := providers.Request{Model: t.model(), Messages: msgs, MaxTokens: t.maxTokens, AppendOnly: true, // copy-on-write: requestView
		ResponseFormat: t.a.opts.Script.ResponseFormat}
	if withTools {
		req.Tools = t.a.toolSpecs()
	}
	return req
}

// flush persists history[saved:], skipping scaffolding, in one
// transaction. A store failure is recorded and the turn goes on: the
// answer matters more than the record.
func (t *turn) flush() { t.flushBut(0) }

// flushBut is flush holding back the newest hold messages.
func (t *turn) flushBut(hold int) {
	st := t.a.opts.Store
	pending := t.takePending(hold)
	if st == nil || len(pending) == 0 {
		return
	}
	if err := st.AppendMessages(t.a.opts.SessionID, t.n, pending...); err != nil {
		t.addCleanup(fmt.Sprintf("saving messages: %v", err))
		t.unsaved = true
	}
}

// takePending returns history[saved:] without scaffolding, less the newest
// hold messages, and counts it as saved.
func (t *turn) takePending(hold int) []providers.Message {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	end := max(len(t.a.history)-hold, t.saved)
	pending := make([]providers.Message, 0, end-t.saved)
	for _, m := range t.a.history[t.saved:end] {
		if !m.Flag(flagScaffold) {
			pending = append(pending, m)
		}
	}
	t.saved = end
	return pending
}

func (t *turn) addCleanup(s string) {
	for _, c := range t.cleanup {
		if c == s {
			return
		}
	}
	t.cleanup = append(t.cleanup, s)
}

// dropScaffolding removes this turn's unsaved scaffolding messages.
func (t *turn) dropScaffolding() {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	kept := t.a.history[:t.start]
	saved := t.start
	for i, m := range t.a.history[t.start:] {
		if m.Flag(flagScaffold) {
			continue
		}
		kept = append(kept, m)
		if t.start+i < t.saved {
			saved++
		}
	}
	t.saved = saved
	if len(kept) < len(t.a.history) {
		t.a.reqs.changed() // messages moved down over the dropped ones
	}
	t.a.history = kept
}
