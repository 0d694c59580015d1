package loop

import (
	"fmt"

	"talaria/providers"
	"talaria/tools"
)

// finished is the turn.finished event of a result.
func finished(res Result) *TurnFinished {
	return &TurnFinished{ExitReason: res.ExitReason, Completed: res.Completed, FinalResponse: res.FinalResponse,
		APICalls: res.APICalls, Usage: res.Usage, PendingSteer: res.PendingSteer, CleanupErrors: res.CleanupErrors, Explanation: res.Explanation,
		StructuredOutput: res.StructuredOutput}
}

// epilogue finishes the turn. Each step is isolated: a failing step is
// recorded in cleanup_errors and never loses the final answer.
func (t *turn) epilogue() Result {
	if m := t.last(); m != nil {
		t.endRole = string(m.Role)
	}
	t.step("budget summary", t.budgetSummary)
	t.step("drop scaffolding", t.dropScaffolding)
	t.step("close dangling tool calls", t.closeDangling)
	t.step("persist", t.saveEnd)
	if t.exit.IsZero() {
		t.exit = ExitUnknown.Exit()
	}
	res := Result{
		ExitReason:    t.exit,
		Completed:     t.completed,
		FinalResponse: t.final,
		APICalls:      t.apiCalls,
		Usage:         t.usage,
		CleanupErrors: t.cleanup,
		Explanation:   t.explain(),
		Error:         t.lastErr,
		Unsaved:       t.unsaved,
		CostUSD:       t.cost,
		// The validated answer (--output-schema), when there is one.
		StructuredOutput: t.script.structured,
	}
	if t.a.opts.AfterTurn != nil {
		t.step("after turn", func() {
			if err := t.a.opts.AfterTurn(res); err != nil {
				t.addCleanup(err.Error())
			}
		})
		res.CleanupErrors = t.cleanup
	}
	t.step("log", func() { t.a.opts.Log(t.logLine(res)) })
	if res.CleanupErrors == nil {
		res.CleanupErrors = []string{}
	}
	return res
}

// step runs one cleanup step, turning a panic into a cleanup error.
func (t *turn) step(name string, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			t.addCleanup(fmt.Sprintf("%s: %v", name, p))
		}
	}()
	fn()
}

// budgetSummary asks the model, without tools, to summarise when the budget
// ran out before a final answer.
func (t *turn) budgetSummary() {
	if !t.exit.BudgetOut() {
		return
	}
	if t.stopped() {
		t.exit = ExitInterruptedByUser.Exit()
		return
	}
	t.append(providers.Message{Role: providers.RoleUser, Content: summaryRequest})
	for try := 0; try < 2; try++ {
		resp, err := t.call(t.request(false))
		if t.stopped() {
			t.exit = ExitInterruptedDuringAPI.Exit()
			return
		}
		if err != nil {
			t.final = fmt.Sprintf("I reached the maximum iterations (%d) but couldn't summarize. Error: %s", t.a.opts.MaxIterations, firstLine(err.Error()))
			return
		}
		t.addUsage(resp.Usage)
		msg := normalize(resp.Message())
		msg.ToolCalls = nil
		t.emitCompleted(msg, resp.Usage)
		if msg.Content != "" {
			t.append(msg)
			t.final = msg.Content
			return
		}
	}
	t.final = summaryFallback
	t.append(providers.Message{Role: providers.RoleAssistant, Content: summaryFallback})
}

// closeDangling gives every tool call of the last assistant message a
// result, and ends a history that stops on tool results with an assistant
// message, so the saved session never ends on a dangling tool call.
func (t *turn) closeDangling() {
	t.a.mu.Lock()
	h := t.a.history
	answered := map[string]bool{}
	i := len(h) - 1
	for ; i >= t.start && h[i].Role == providers.RoleTool; i-- {
		answered[h[i].ToolCallID] = true
	}
	var add []providers.Message
	if i >= t.start && h[i].Role == providers.RoleAssistant && len(h[i].ToolCalls) > 0 {
		for _, c := range h[i].ToolCalls {
			if !answered[c.ID] {
				receipt := toolResult(c, tools.CancelReceipt(c.Name))
				receipt.ToolStatus = providers.ToolStatusCancelled
				add = append(add, receipt)
			}
		}
	}
	endsOnTool := len(h) > 0 && (h[len(h)-1].Role == providers.RoleTool || len(add) > 0)
	t.a.mu.Unlock()
	if !endsOnTool {
		return
	}
	closing := "(The turn ended before the model answered these tool results: " + t.exit.String() + ".)"
	if t.final != "" {
		closing = t.final
	}
	add = append(add, providers.Message{Role: providers.RoleAssistant, Content: closing})
	t.append(add...)
}

// turnEndSaver is a Store that saves a turn's last messages and its usage
// in one transaction: one commit (two fsyncs) at the end of a turn
// instead of one per record.
type turnEndSaver interface {
	SaveTurnEnd(sessionID string, turn int, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error
}

// saveEnd persists the turn's unsaved messages and its usage.
func (t *turn) saveEnd() {
	ts, ok := t.a.opts.Store.(turnEndSaver)
	if !ok {
		t.flush()
		t.saveUsage()
		return
	}
	pending := t.takePending(0)
	if len(pending) == 0 && t.apiCalls == 0 {
		return
	}
	if err := ts.SaveTurnEnd(t.a.opts.SessionID, t.n, pending, t.apiCalls, t.usage, t.cost); err != nil {
		t.addCleanup(fmt.Sprintf("saving messages and usage: %v", err))
		t.unsaved = t.unsaved || len(pending) > 0
	}
}

// costRecorder is a Store that also keeps an estimated cost.
type costRecorder interface {
	AddUsageCost(sessionID string, apiCalls int, u providers.Usage, costUSD float64) error
}

func (t *turn) saveUsage() {
	st := t.a.opts.Store
	if st == nil || t.apiCalls == 0 {
		return
	}
	var err error
	if cr, ok := st.(costRecorder); ok {
		err = cr.AddUsageCost(t.a.opts.SessionID, t.apiCalls, t.usage, t.cost)
	} else {
		err = st.AddUsage(t.a.opts.SessionID, t.apiCalls, t.usage)
	}
	if err != nil {
		t.addCleanup(fmt.Sprintf("saving usage: %v", err))
	}
}

// explain says why an abnormal turn ended; it is silent for a normal one.
func (t *turn) explain() string {
	switch t.exit.Kind {
	case ExitTextResponseKind:
		if t.completed {
			return ""
		}
		return "The reply was cut by the output length limit; raise model.max_tokens or ask for a shorter answer."
	case ExitInterruptedByUser, ExitInterruptedDuringAPI:
		return "Interrupted by the user; the session is saved and can be continued."
	case ExitBudgetExhausted, ExitMaxIterationsKind:
		return fmt.Sprintf("The iteration budget (%d model calls) ran out; the model was asked to summarise. Raise agent.max_iterations or --max-iterations to allow longer turns.", t.a.opts.MaxIterations)
	case ExitRetriesExhausted:
		if isBilling(t.lastErr) {
			return "The provider refused the request for billing: the quota or credits are exhausted and no other key or fallback could take over. " + errText(t.lastErr)
		}
		return t.providerFailure()
	case ExitPartialStreamRecovery:
		return "The stream broke after text arrived; the delivered text is the answer. Cause: " + errText(t.lastErr)
	case ExitEmptyResponseExhausted:
		return "The model returned no content after several retries."
	case ExitInvalidToolCalls:
		return "The model kept calling tools that do not exist or with unparseable arguments; try another model or rephrase the request."
	case ExitErrorNearMaxKind:
		return "An API error ended the turn close to the iteration limit: " + errText(t.lastErr)
	case ExitFallbackPriorContent:
		return "The model's last reply was empty; the text it wrote before its housekeeping tools stands as the answer."
	case ExitResponseTooLarge:
		return t.explainTooLarge()
	case ExitContentPolicyBlocked:
		return "The provider refused the request under its content policy."
	case ExitContextOverflow:
		return t.overflowExplanation()
	case ExitOllamaContextTooSmall:
		return t.explainRuntime()
	case ExitGuardrailHalt:
		return guardrailHaltExplanation(t.final)
	case ExitBudgetUSDExhausted, ExitInvalidStructuredOutput:
		return t.explainScript()
	case ExitUnknown:
		return unknownExitExplanation
	case ExitPromptBlocked:
		return "A UserPromptSubmit hook dropped the prompt: " + t.blocked
	}
	return "The turn ended without a recognised exit path."
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return firstLine(err.Error())
}

// logLine is the diagnostic line written at every turn end.
func (t *turn) logLine(r Result) string {
	lastRole := t.endRole
	level := "INFO"
	if lastRole == string(providers.RoleTool) && !r.ExitReason.Interrupted() {
		level = "WARN"
	}
	// The model is the one that served the turn's last call: after a
	// fallback, the fallback's.
	return fmt.Sprintf("%s turn end reason=%s model=%s api_calls=%d budget=%d/%d tool_turns=%d last_msg_role=%s response_len=%d session=%s",
		level, r.ExitReason, t.model(), r.APICalls, t.budget.Used(), t.budget.Max(), t.toolTurns, lastRole, len(r.FinalResponse), t.a.opts.SessionID)
}
