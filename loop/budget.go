// Package loop runs a turn: the prologue, the model/tool loop and the
// epilogue, with the iteration budget, retries, steering, interrupts and the
// events that make all of it visible.
package loop

import (
	"sync"

	"talaria/providers"
)

// Budget is a thread-safe iteration budget: one unit per model call, with
// refunds for calls that did not count.
type Budget struct {
	mu       sync.Mutex
	max      int
	used     int
	refunded int
}

// NewBudget returns a budget of max iterations.
func NewBudget(max int) *Budget {
	return &Budget{max: max}
}

// Consume takes one unit; it reports false when none is left.
func (b *Budget) Consume() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used >= b.max {
		return false
	}
	b.used++
	return true
}

// Refund gives one unit back (never below zero used).
func (b *Budget) Refund() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 {
		b.used--
		b.refunded++
	}
}

// Used is the number of units consumed and not refunded.
func (b *Budget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Remaining is the number of units left.
func (b *Budget) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max - b.used
}

// Max is the budget's size.
func (b *Budget) Max() int { return b.max }

// Refunds is how many units were given back.
func (b *Budget) Refunds() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refunded
}

// CostBudget is a thread-safe budget in US dollars (--max-budget-usd),
// shared by the turns of a run: each call's estimated cost is charged to
// it, and a call whose projected cost would pass it is not made.
type CostBudget struct {
	mu    sync.Mutex
	max   float64
	spent float64
	// maxOut is the most output tokens one call has returned: the
	// projection's guess of the next call's output.
	maxOut int
}

// NewCostBudget returns a budget of max dollars.
func NewCostBudget(max float64) *CostBudget { return &CostBudget{max: max} }

// Charge adds one call's cost (usd) and its output tokens.
func (b *CostBudget) Charge(usd float64, outputTokens int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += usd
	b.maxOut = max(b.maxOut, outputTokens)
}

// Project is what the next call is expected to cost at price p: its
// input (inputTokens, the calibrated estimate of the request) and as much
// output as the largest answer so far.
func (b *CostBudget) Project(p providers.Price, inputTokens int) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return (float64(inputTokens)*p.Input + float64(b.maxOut)*p.Output) / 1e6
}

// Allows reports whether a call projected to cost next dollars stays
// within the budget.
func (b *CostBudget) Allows(next float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent+next <= b.max
}

// Spent is what was charged so far.
func (b *CostBudget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Max is the budget's size in dollars.
func (b *CostBudget) Max() float64 { return b.max }
