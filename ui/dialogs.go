package ui

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/tools"
)

// ErrDialogsClosed is what [Dialogs.Approve] and [Dialogs.Ask] return once
// the screen has gone ([Dialogs.Close]).
var ErrDialogsClosed = errors.New("ui: the screen is closed, nobody can answer")

// Dialogs carries the agent's questions for the user to the screen: tool
// approvals ([Dialogs.Approve], the prompt of tools.NewApprover) and
// clarify questions ([Dialogs.Ask], tools.Env.Ask). Put it in
// [Options].Dialogs; the screen shows one modal at a time, in the order
// the questions arrived.
//
// Approve and Ask are safe to call from any number of goroutines at once.
// Each blocks until the user answers, its context ends (it then returns
// ctx.Err() and the screen closes its modal) or the screen goes away
// ([ErrDialogsClosed]). Nothing is answered before the screen drains the
// request, so a Dialogs without a screen blocks its callers until their
// contexts end.
type Dialogs struct {
	reqs chan *dialogRequest
	done chan struct{}
	once sync.Once
}

// NewDialogs returns an open Dialogs.
func NewDialogs() *Dialogs {
	return &Dialogs{reqs: make(chan *dialogRequest), done: make(chan struct{})}
}

// Approve asks the user whether a tool call may run. Its signature is the
// prompt of tools.NewApprover. The user allows it once (y or Enter), for
// the session (a; not offered when the request has Destructive or
// NoSessionScope set) or denies it (n, with an optional reason; Esc
// denies without one).
func (d *Dialogs) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.ApprovalDecision, error) {
	a, err := d.ask(ctx, &dialogRequest{kind: dialogApproval, approval: req})
	return a.decision, err
}

// Ask puts a clarify question to the user, with up to four suggested
// choices (the user may always type another answer) or, without choices,
// as an open question. Its signature is tools.Env.Ask. It returns the
// chosen or typed answer; "" when the user dismissed the question.
func (d *Dialogs) Ask(ctx context.Context, question string, choices []string) (string, error) {
	a, err := d.ask(ctx, &dialogRequest{kind: dialogClarify, question: question, choices: slices.Clone(choices)})
	return a.text, err
}

// Close makes pending and later calls return [ErrDialogsClosed]. [Run]
// closes the Dialogs of its Options when the program ends. Close is safe to
// call more than once.
func (d *Dialogs) Close() {
	if d != nil {
		d.once.Do(func() { close(d.done) })
	}
}

// ask hands r to the screen and waits for its answer.
func (d *Dialogs) ask(ctx context.Context, r *dialogRequest) (dialogAnswer, error) {
	if d == nil {
		return dialogAnswer{}, ErrDialogsClosed
	}
	if err := ctx.Err(); err != nil {
		return dialogAnswer{}, err
	}
	r.reply = make(chan dialogAnswer, 1)
	r.settled = make(chan struct{})
	defer close(r.settled) // tells the screen to drop the modal, whatever happened
	select {
	case d.reqs <- r:
	case <-ctx.Done():
		return dialogAnswer{}, ctx.Err()
	case <-d.done:
		return dialogAnswer{}, ErrDialogsClosed
	}
	select {
	case a := <-r.reply:
		return a, nil
	case <-ctx.Done():
		select {
		case a := <-r.reply: // answered just as the context ended
			return a, nil
		default:
			return dialogAnswer{}, ctx.Err()
		}
	case <-d.done:
		return dialogAnswer{}, ErrDialogsClosed
	}
}

// dialogKind tells approval requests from clarify questions.
type dialogKind int

const (
	dialogApproval dialogKind = iota
	dialogClarify
	// dialogTrust asks whether to trust the project's own settings
	// (trust_dialog.go); the screen itself asks it, once, at start.
	dialogTrust
)

// dialogRequest is one question waiting for the user. Its fields are set
// before it is sent and only read afterwards; reply (buffered, one answer)
// and settled (closed when the asking call returns) are the only channels
// the two sides share.
type dialogRequest struct {
	kind     dialogKind
	approval tools.ApprovalRequest
	question string
	choices  []string
	reply    chan dialogAnswer
	settled  chan struct{}
	// diff is the change an edit approval would make, once computed.
	diff *diffView
	// trust is what the trust dialog names.
	trust *TrustRequest
}

// dialogAnswer is the user's answer to a request.
type dialogAnswer struct {
	decision tools.ApprovalDecision
	text     string
}

// dialogMsg delivers a request to Update. from is the Dialogs to wait on
// next; nil does not re-arm the wait.
type dialogMsg struct {
	req  *dialogRequest
	from *Dialogs
}

// dialogSettledMsg says the call that asked req has returned.
type dialogSettledMsg struct{ req *dialogRequest }

// waitDialogs blocks for the next request. Update re-arms it after each
// one, so requests arrive in order.
func waitDialogs(d *Dialogs) tea.Cmd {
	if d == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case r := <-d.reqs:
			return dialogMsg{req: r, from: d}
		case <-d.done:
			return nil
		}
	}
}

// watchDialog reports when the call that asked r returns: answered, its
// context ended, or the Dialogs closed.
func watchDialog(r *dialogRequest) tea.Cmd {
	if r.settled == nil {
		return nil // the screen's own question: nobody waits on it
	}
	return func() tea.Msg {
		<-r.settled
		return dialogSettledMsg{req: r}
	}
}

// modalState is what the modals show: the questions waiting (the first is
// on screen) and the session picker, which sits under any question.
type modalState struct {
	queue  []*dialogRequest
	sel    int  // highlighted option of the shown question
	typing bool // its text input is open
	// save makes a "don't ask again" answer also save its rule to the
	// project's .talaria/config.yaml (s toggles it; approvals_remember.go).
	save   bool
	input  editor // the deny reason or the typed answer
	picker *picker
	// searchSeq numbers the picker's full-text searches; only the answer
	// to the latest one is shown.
	searchSeq int

	// shownAt is when the question on screen appeared; it takes no
	// answer before dialogArmDelay has passed (armed).
	shownAt time.Time
	armed   bool

	// Where the cursor goes inside the modal box, set when it is drawn.
	cursorX, cursorY int
	cursorOK         bool
}

// current returns the question on screen, or nil.
func (d *modalState) current() *dialogRequest {
	if len(d.queue) == 0 {
		return nil
	}
	return d.queue[0]
}

// deny is a denial with an optional reason.
func deny(reason string) tools.ApprovalDecision {
	return tools.ApprovalDecision{Allow: false, Scope: tools.ScopeOnce, Reason: reason}
}
