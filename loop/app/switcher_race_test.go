package app

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/loop"
	pt "talaria/providers/providertest"
)

// TestTurnsNeverStartOnAClosedSession starts turns from one goroutine as
// fast as they end while another runs /new, /resume and a conversation
// /rewind: a change is refused while a turn runs, a turn is refused
// while a change works, and no turn ever runs on a session a change
// closed (its history would grow after the close). Run it with -race and
// -count: before the switch was one critical section, a probe started a
// turn on a session New had just closed in 28 of 40 tries.
func TestTurnsNeverStartOnAClosedSession(t *testing.T) {
	w, ev, srv := switcherFixture(t)
	replies := make([]pt.Reply, 400)
	for i := range replies {
		replies[i] = pt.Text("ok")
	}
	srv.Push(replies...)
	first := w.Current().Record.ID

	stop := make(chan struct{})
	var started, refused int
	began := make(chan struct{}, 1) // a turn began since the last change
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := w.Start(context.Background(), "hi")
			switch {
			case err == nil:
				started++
				select {
				case began <- struct{}{}:
				default:
				}
				select {
				case <-ev.fin:
				case <-time.After(30 * time.Second):
					t.Error("turn.finished did not come")
					return
				}
			case errors.Is(err, ErrChanging), errors.Is(err, loop.ErrBusy):
				refused++
				runtime.Gosched()
			default:
				t.Errorf("Start: %v", err)
				return
			}
		}
	})

	type closed struct {
		s       *Session
		history int
	}
	var gone []closed
	// A change is tried again while a turn runs, so that it lands just as
	// one turn ends and the starter starts the next: the window the
	// check-then-act lost.
	change := func(name string, f func() error) {
		deadline := time.Now().Add(20 * time.Second)
		for {
			before := w.Current()
			err := f()
			if err == errTurnRunning && time.Now().Before(deadline) {
				runtime.Gosched()
				continue
			}
			if err != nil && !isNoTurns(err) {
				t.Errorf("%s: %v", name, err)
			}
			if now := w.Current(); now != before {
				if before.Agent.Busy() {
					t.Errorf("%s closed a session running a turn", name)
				}
				gone = append(gone, closed{before, len(before.Agent.History())})
			}
			break
		}
		// The next change comes once the next turn began.
		select {
		case <-began:
		case <-time.After(10 * time.Second):
			t.Errorf("no turn began after %s", name)
		}
	}
	for range 4 {
		change("New", func() error { _, err := w.New(); return err })
		change("Resume", func() error { _, err := w.Resume(first); return err })
		change("Rewind", func() error {
			_, err := w.Rewind(context.Background(), RewindRequest{ToTurn: 1, Conversation: true})
			return err
		})
	}
	close(stop)
	wg.Wait()
	for _, c := range gone {
		if n := len(c.s.Agent.History()); n != c.history || c.s.Agent.Busy() {
			t.Errorf("session %s ran a turn after it was closed: history %d → %d", c.s.Record.ID, c.history, n)
		}
	}
	t.Logf("%d turns started, %d refused, %d sessions closed", started, refused, len(gone))
}

// isNoTurns is Rewind's refusal of a session without a turn yet.
func isNoTurns(err error) bool {
	return err != nil && strings.Contains(err.Error(), "has no turns to rewind")
}
