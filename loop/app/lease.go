package app

import (
	"context"
	"errors"
	"os"
	"time"

	"talaria/persist"
	"talaria/tools"
)

// leaseWait is how often a --wait run looks again at a busy session.
const leaseWait = 500 * time.Millisecond

// myLease is this process's lease.
func myLease() persist.Lease {
	start, _ := tools.ProcessStart(os.Getpid())
	return persist.Lease{PID: os.Getpid(), Start: start, Since: time.Now().UTC().Round(0)}
}

// leaseAlive reports whether a lease's process still runs.
func leaseAlive(l persist.Lease) bool { return tools.ProcessAlive(l.PID, l.Start) }

// takeLease makes this process the one writer of the session: a session
// another live talaria runs is refused (a *persist.BusyError), or, with
// wait, waited for until it is free or ctx ends.
func (s *Session) takeLease(ctx context.Context, wait bool) error {
	if s.lease != nil { // a new session, leased as it was created
		return nil
	}
	me := myLease()
	for {
		err := s.Store.AcquireLease(s.Record.ID, me, leaseAlive)
		var busy *persist.BusyError
		if err == nil || !errors.As(err, &busy) || !wait {
			if err == nil {
				s.lease = &me
			}
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(leaseWait):
		}
	}
}

// dropLease releases the session for the next process.
func (s *Session) dropLease() {
	if s.lease != nil {
		_ = s.Store.ReleaseLease(s.Record.ID, *s.lease)
		s.lease = nil
	}
}

// BusySessions returns the leases of the sessions live processes run, for
// `talaria sessions`.
func BusySessions(st *persist.Store) (map[string]persist.Lease, error) {
	return st.Leases(leaseAlive)
}
