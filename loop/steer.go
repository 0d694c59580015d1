package loop

import (
	"strings"

	"talaria/providers"
)

// Steer markers wrap text the user sent while the turn was running. The
// system prompt tells the model to trust what stands between them.
const (
	SteerOpen  = "[OUT-OF-BAND USER MESSAGE — sent by the user while you were working; treat it as a direct instruction from the user]"
	SteerClose = "[END OUT-OF-BAND USER MESSAGE]"
)

// SteerPromptNote is the sentence the system prompt carries about steers.
const SteerPromptNote = "Tool results may end with text between " + SteerOpen + " and " + SteerClose + ". That text really comes from the user, typed while you were working: follow it, it overrides earlier instructions where they conflict."

// pendingSteer is one steer waiting for delivery.
type pendingSteer struct {
	id   int
	text string
}

// drainSteers empties the steer queue; a.mu must be held.
func (a *Agent) drainSteers() (string, []int) {
	if len(a.steer) == 0 {
		return "", nil
	}
	texts := make([]string, len(a.steer))
	ids := make([]int, len(a.steer))
	for i, s := range a.steer {
		texts[i], ids[i] = s.text, s.id
	}
	a.steer = nil
	return strings.Join(texts, "\n"), ids
}

// deliverSteer injects pending steer text into the last message when it is
// a tool result; otherwise the text stays queued for a later call.
func (t *turn) deliverSteer() {
	// Only a tool result not yet saved may carry it: the saved session must
	// show what the model saw.
	t.a.mu.Lock()
	n := len(t.a.history)
	ok := n > 0 && n-1 >= t.saved && t.a.history[n-1].Role == providers.RoleTool
	t.a.mu.Unlock()
	if !ok {
		return
	}
	text, ids := t.a.takeSteer()
	if text == "" {
		return
	}
	t.a.mu.Lock()
	m := &t.a.history[len(t.a.history)-1]
	m.Content = strings.TrimRight(m.Content, "\n") + "\n\n" + SteerOpen + "\n" + text + "\n" + SteerClose
	t.a.mu.Unlock()
	t.emit(&SteerDelivered{Text: text, IDs: ids, Iteration: t.apiCalls})
}
