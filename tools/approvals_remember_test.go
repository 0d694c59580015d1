package tools

import (
	"context"
	"sync"
	"testing"
)

// TestSetRulesWhileChecking: trusting a project swaps the rules while
// calls are checked (go test -race finds an unguarded read); the new
// deny rule holds from the next Check on.
func TestSetRulesWhileChecking(t *testing.T) {
	a := NewApprover(ApprovalYolo, nil)
	deny, err := ParsePermissions(nil, nil, []string{"Bash(rm:*)"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				a.Check(context.Background(), "terminal", `{"command":"rm -f x"}`)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			a.SetRules(deny)
			a.SetRules(Rules{})
		}
	})
	wg.Wait()
	a.SetRules(deny)
	if ok, _ := a.Check(context.Background(), "terminal", `{"command":"rm -f x"}`); ok {
		t.Fatal("the deny rule set last did not apply")
	}
}
