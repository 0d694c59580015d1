package loop

import (
	"testing"

	"talaria/providers"
)

// TestCostBudgetProjects: the projection is the input at the input price
// plus the largest output so far at the output price; Allows compares
// spent plus that with the budget.
func TestCostBudgetProjects(t *testing.T) {
	b := NewCostBudget(3)
	p := providers.Price{Input: 2, Output: 8}
	if got := b.Project(p, 1000); got != 0.002 {
		t.Fatalf("first projection %v", got)
	}
	b.Charge(2.8, 100_000)
	b.Charge(0, 10) // a smaller answer does not lower the guess
	if got := b.Project(p, 0); got != 0.8 {
		t.Fatalf("projection %v, want 0.8", got)
	}
	if b.Allows(0.8) || !b.Allows(0.2) || b.Spent() != 2.8 || b.Max() != 3 {
		t.Fatalf("allows: spent %v", b.Spent())
	}
}
