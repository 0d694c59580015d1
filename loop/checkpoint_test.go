package loop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// hookCall is one call of the checkpoint hook.
type hookCall struct{ turn, iteration int }

func TestCheckpointBeforeBatchesThatMayChangeFiles(t *testing.T) {
	var calls []hookCall
	f := newFixture(t, func(o *Options) {
		o.Checkpoint = func(_ context.Context, turn, iteration int) (string, error) {
			calls = append(calls, hookCall{turn, iteration})
			return "cp" + string(rune('0'+iteration)), nil
		}
	})
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "r", Name: "read_file", Args: `{"path":"x"}`}, pt.Call{ID: "s", Name: "search_files", Args: `{"pattern":"q"}`}))
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}))
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "t", Name: "terminal", Args: `{"command":"true"}`}))
	f.srv.Push(pt.Text("done"))
	res := f.run(t, "go")
	if !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	if len(calls) != 2 || calls[0] != (hookCall{1, 2}) || calls[1] != (hookCall{1, 3}) {
		t.Fatalf("hook calls: %v (want turn 1 iterations 2 and 3, none for the read-only batch)", calls)
	}
	evs := ofType[*CheckpointCreated](f.rec)
	if len(evs) != 2 || evs[0].Checkpoint != "cp2" || evs[0].Iteration != 2 || evs[0].Turn != 1 || evs[0].Type != TypeCheckpointCreated {
		t.Fatalf("events: %+v", evs)
	}
	// The checkpoint precedes the batch's first tool.
	var order []string
	for _, e := range f.rec.all() {
		switch e.(type) {
		case *CheckpointCreated, *ToolStarted:
			order = append(order, e.Meta().Type)
		}
	}
	if strings.Join(order[:3], ",") != "tool.started,tool.started,checkpoint.created" || order[3] != TypeToolStarted {
		t.Fatalf("order: %v", order)
	}
}

func TestCheckpointFailureDoesNotFailTheTurn(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Checkpoint = func(context.Context, int, int) (string, error) { return "", errors.New("disk full") }
	})
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}))
	f.srv.Push(pt.Text("done"))
	res := f.run(t, "go")
	if !res.Completed || len(res.CleanupErrors) != 1 || !strings.Contains(res.CleanupErrors[0], "disk full") {
		t.Fatalf("result: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "a.txt")); err != nil {
		t.Fatal("the batch did not run after the checkpoint failed")
	}
	if n := len(ofType[*CheckpointCreated](f.rec)); n != 0 {
		t.Fatalf("%d checkpoint events for a failed checkpoint", n)
	}
}

// TestInterruptEndsABlockedCheckpoint: the checkpoint hook waits (as a
// scan stuck on a FIFO would) until the turn's context ends: the first
// interrupt ends the turn, and the batch never runs.
func TestInterruptEndsABlockedCheckpoint(t *testing.T) {
	waiting := make(chan struct{})
	f := newFixture(t, func(o *Options) {
		o.Checkpoint = func(ctx context.Context, _, _ int) (string, error) {
			close(waiting)
			<-ctx.Done()
			return "", ctx.Err()
		}
	})
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}))
	ch := f.runAsync("go")
	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the checkpoint was never taken")
	}
	f.agent.Interrupt()
	res := await(t, ch)
	if res.ExitReason.Kind != ExitInterruptedByUser {
		t.Fatalf("result: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "a.txt")); err == nil {
		t.Fatal("the batch ran after the interrupt")
	}
	if n := len(ofType[*TurnFinished](f.rec)); n != 1 {
		t.Fatalf("%d turn.finished events", n)
	}
}
