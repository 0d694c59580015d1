package compress

import (
	"fmt"

	"talaria/providers"
)

// NoopReason says why compressing msgs with opts would change nothing,
// and what a compression would need: compression keeps the head (the
// first messages) and a recent tail verbatim and summarises what lies
// between, so a history that fits in those two parts has nothing to
// summarise however many turns it has. It is meant for a plan that is a
// no-op; for one that is not it says so.
func NoopReason(msgs []providers.Message, opts Options) string {
	o := opts.withDefaults()
	if len(msgs) == 0 {
		return "the conversation is empty"
	}
	p := PlanCompression(msgs, o)
	if !p.Noop {
		return fmt.Sprintf("%d messages could be summarised", len(p.Middle))
	}
	budget := o.TailBudget()
	floor := max(tailFloorMin, min(o.ProtectLastN, tailFloorCap))
	threshold := Threshold(o.ContextLength, o.MaxTokens, o.Threshold)
	tailToks := 0
	for _, i := range p.Tail {
		tailToks += MessageTokens(&msgs[i])
	}
	why := fmt.Sprintf("the whole history (%d messages, ~%s tokens) is kept verbatim: the first %d messages plus the recent tail (up to ~%s tokens, at least %d messages, always from the latest request on)",
		len(msgs), human(p.TokensBefore), len(p.Head), human(budget), floor)
	need := fmt.Sprintf("/compress needs older turns beyond that tail, about %s more tokens of conversation", human(max(1, budget-tailToks+1)))
	if tailToks > budget {
		// The tail reaches back to the latest request, past its budget.
		need = "the latest request and everything after it stay verbatim, so /compress needs an earlier turn to summarise"
	}
	return fmt.Sprintf("%s; %s. Automatic compression starts at ~%s tokens of the %s window.",
		why, need, human(threshold), human(Window(o.ContextLength, o.MaxTokens)))
}

// human writes a token count as 950, 12.8k or 1.2M.
func human(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
