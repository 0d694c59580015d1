package loop

import (
	"encoding/json"
	"fmt"

	"talaria/providers"
)

// Script is what a headless script asked of a session's turns
// (--output-schema, --max-budget-usd); the zero value asks nothing.
type Script struct {
	// ResponseFormat goes on every request: the wire asks for a JSON
	// answer in the schema where it can.
	ResponseFormat *providers.ResponseFormat
	// CheckFinal validates a final text answer and returns it as JSON;
	// an error is sent back to the model once, then ends the turn with
	// invalid_structured_output.
	CheckFinal func(text string) (json.RawMessage, error)
	// CostBudget, when set, is charged with each call's estimated cost;
	// a call that would pass it is not made (budget_usd_exhausted).
	CostBudget *CostBudget
}

// scriptState is one turn's part of Script.
type scriptState struct {
	repaired   bool            // the repair request was sent
	structured json.RawMessage // the validated answer
	invalid    error           // the validation error the turn ended on
	projected  float64         // the refused call's projected cost
}

// repairRequest is the user message sent when the final answer is not
// valid against the schema.
const repairRequest = "[talaria: output check] Your final answer is not valid against the required JSON Schema:\n%s\nAnswer again with only the JSON value, valid against the schema, and no other text."

// charge counts one call's cost against the run's USD budget.
func (t *turn) charge(usd float64, u providers.Usage) {
	if b := t.a.opts.Script.CostBudget; b != nil {
		b.Charge(usd, u.OutputTokens)
	}
}

// costBlocked reports whether the next call would pass the USD budget;
// it then sets the exit reason. The projection is the request's
// calibrated token estimate at the model's input price plus the largest
// output so far at its output price. A model without a known price is
// not projected (the session refuses such a budget at start).
func (t *turn) costBlocked() bool {
	b := t.a.opts.Script.CostBudget
	if b == nil {
		return false
	}
	p, ok := providers.PriceOf(t.model())
	if !ok {
		return false
	}
	in := t.a.ctxs.tracker.Adjust(t.a.estimate(t.request(true)))
	next := b.Project(p, in)
	if b.Allows(next) {
		return false
	}
	t.script.projected = next
	t.exit = ExitBudgetUSDExhausted.Exit()
	return true
}

// checkFinal validates a completed final answer against the schema; it
// reports whether the turn's loop is over. An invalid answer is sent
// back once with the errors; invalid again, the turn ends with
// invalid_structured_output (the answer stays as final_response).
func (t *turn) checkFinal() bool {
	check := t.a.opts.Script.CheckFinal
	if check == nil || !t.completed {
		return true
	}
	out, err := check(t.final)
	if err == nil {
		t.script.structured = out
		return true
	}
	if !t.script.repaired {
		t.script.repaired = true
		t.append(providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf(repairRequest, err)})
		t.flush()
		t.final, t.completed, t.exit = "", false, Exit{}
		return false
	}
	t.script.invalid = err
	t.completed = false
	t.exit = ExitInvalidStructuredOutput.Exit()
	return true
}

// explainScript explains the two exits Script adds.
func (t *turn) explainScript() string {
	if t.exit.Kind == ExitBudgetUSDExhausted {
		b := t.a.opts.Script.CostBudget
		if b == nil {
			b = NewCostBudget(0)
		}
		return fmt.Sprintf("The next model call (about $%.4f at list prices) would pass --max-budget-usd $%.4f ($%.4f spent so far), so it was not made. Raise --max-budget-usd and continue with talaria -c.",
			t.script.projected, b.Max(), b.Spent())
	}
	return fmt.Sprintf("The final answer is not valid against --output-schema, also after one request to fix it: %v", t.script.invalid)
}
