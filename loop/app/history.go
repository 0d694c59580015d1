package app

// inputHistoryShown is how many saved inputs the composer loads.
const inputHistoryShown = 500

// project is the key of the session's per-project data: the git root of
// the working directory, else the directory itself.
func (s *Session) project() string {
	if root := gitRoot(s.Cwd); root != "" {
		return root
	}
	return s.Cwd
}

// InputHistory returns the project's saved composer inputs, oldest first
// (nil without a store, as in the tour, or when it cannot be read: the
// history is a convenience, never a reason not to start).
func (s *Session) InputHistory() []string {
	if s.Store == nil {
		return nil
	}
	h, err := s.Store.InputHistory(s.project(), inputHistoryShown)
	if err != nil {
		s.log("WARN input history: " + err.Error())
		return nil
	}
	return h
}

// SaveInput adds one composer input to the project's history.
func (s *Session) SaveInput(text string) error {
	if s.Store == nil {
		return nil
	}
	return s.Store.AddInput(s.project(), text)
}
