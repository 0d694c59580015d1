package tools

// rules returns the permission rules in force now (Rules, or what
// SetRules put there last), read under the approver's lock.
func (a *Approver) rules() Rules {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Rules
}

// SetRules replaces the configured permission rules from the next Check
// on: what trusting a project does mid-session (its allow and ask rules
// join the user's). The session's remembered rules stay. Safe while
// calls are being checked.
func (a *Approver) SetRules(r Rules) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Rules = r
}
