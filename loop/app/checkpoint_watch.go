package app

import (
	"fmt"

	"talaria/persist/checkpoint"
)

// checkpointStore opens the session's checkpoint store watching its
// working tree, so that after the first checkpoint each one reads again
// only what file events say changed (the store walks the tree when they
// cannot say: see checkpoint.Watcher). The watcher stops with the
// session (closeCheckpointWatch, from Close), logging how the session's
// checkpoints were taken; log also gets its fallbacks as they happen.
func (s *Session) checkpointStore(log func(string)) *checkpoint.Store {
	cps := checkpoint.Open(s.Home)
	w := cps.Watch(s.Cwd, checkpoint.WatchOptions{Log: log})
	prev := s.stopWatch
	s.stopWatch = func() {
		if prev != nil {
			prev()
		}
		st := w.Stats()
		w.Close()
		if st.Events+st.Walks == 0 {
			return
		}
		line := fmt.Sprintf("checkpoints: %d from file events, %d by walking the tree", st.Events, st.Walks)
		if st.Stopped != "" {
			line += " (events off: " + st.Stopped + ")"
		}
		log(line)
	}
	return cps
}

// closeCheckpointWatch stops the session's checkpoint watcher, if any.
func (s *Session) closeCheckpointWatch() {
	if s.stopWatch != nil {
		s.stopWatch()
		s.stopWatch = nil
	}
}
