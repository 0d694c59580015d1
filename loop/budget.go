// Package loop runs a turn: the prologue, the model/tool loop and the
// epilogue, with the iteration budget, retries, steering, interrupts and the
// events that make all of it visible.
package loop

import "sync"

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
