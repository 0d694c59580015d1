package loop

import (
	"fmt"
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

// Steer queues text to inject into the running turn before its next model
// call and returns the steer's id, which steer.queued and steer.delivered
// carry (0 when text is blank or refused: see TrySteer). Safe from any
// goroutine. When idle the text waits for the next turn.
func (a *Agent) Steer(text string) int {
	id, _ := a.TrySteer(text)
	return id
}

// TrySteer is Steer that also says why a steer was refused: the pending
// steer text, which is delivered as part of one message, is capped like a
// prompt (MaxPromptBytes). A steer that would take it past the cap is
// refused whole, with a *SteerTooLargeError and a steer.refused event;
// the steers already pending stay.
func (a *Agent) TrySteer(text string) (int, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, nil
	}
	a.mu.Lock()
	pending := a.pendingSteerBytes()
	if after := pending + len(text) + min(pending, 1); after > MaxPromptBytes {
		t := a.cur
		a.mu.Unlock()
		err := &SteerTooLargeError{Size: len(text), Pending: pending}
		ev := &SteerRefused{Header: Header{Type: TypeSteerRefused}, Bytes: len(text), PendingBytes: pending, LimitBytes: MaxPromptBytes, Message: err.Error()}
		if t != nil {
			t.emit(ev)
		} else {
			a.emit(0, ev)
		}
		return 0, err
	}
	a.steerSeq++
	id := a.steerSeq
	a.steer = append(a.steer, pendingSteer{id: id, text: text})
	t := a.cur
	a.mu.Unlock()
	if t != nil {
		t.emit(&SteerQueued{ID: id, Text: text})
	}
	return id, nil
}

// pendingSteerBytes is the length of the text drainSteers would deliver
// now; a.mu must be held.
func (a *Agent) pendingSteerBytes() int {
	n := 0
	for i, s := range a.steer {
		n += len(s.text)
		if i > 0 {
			n++ // the newline joining them
		}
	}
	return n
}

// SteerTooLargeError is a steer refused because the pending steer text
// would exceed MaxPromptBytes.
type SteerTooLargeError struct {
	// Size is the refused steer's length, Pending that of the steer text
	// already waiting, in bytes.
	Size, Pending int
}

// Error says the sizes, the limit and that the steer was not queued.
func (e *SteerTooLargeError) Error() string {
	return fmt.Sprintf("steer refused: %s of steer text is already waiting and this one is %s, over the %s limit for one message; it was not queued (wait for the pending steers to be delivered, or save the content to a file and ask the model to read it)",
		byteSize(e.Pending), byteSize(e.Size), byteSize(MaxPromptBytes))
}

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
	t.a.reqs.changed()
	t.a.mu.Unlock()
	t.emit(&SteerDelivered{Text: text, IDs: ids, Iteration: t.apiCalls})
}
