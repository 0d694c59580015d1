package acp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop"
	"talaria/loop/app"
	"talaria/tools"
)

// session is one talaria session driven over ACP.
type session struct {
	srv *server
	id  string
	app *app.Session

	mu sync.Mutex
	// running is set while a session/prompt runs; stop cancels its
	// permission requests (session/cancel).
	running bool
	stop    context.CancelFunc
	// spoke is set once the running prompt sent the client anything.
	spoke bool
	// prompted is set at the first session/prompt.
	prompted bool
	calls    map[string]*callState // by tool call id, this prompt's
	order    []string              // call ids in the order they were announced
	// rejected are the "reject always" answers: such calls are denied
	// without asking again for the rest of the session.
	rejected map[string]bool
	asks     int // approvals that matched no announced call
}

func newSession(s *server) *session {
	return &session{srv: s, calls: map[string]*callState{}, rejected: map[string]bool{}}
}

// attach binds the opened app session; events before it are dropped
// (nothing is streamed before session/new answers).
func (s *session) attach(as *app.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.app, s.id = as, as.Record.ID
}

// prompt runs one turn and maps its exit to a stop reason.
func (s *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	input, err := promptInput(blocks)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32600, Message: "a prompt is already running in this session: wait for its response or send session/cancel"}
	}
	pctx, stop := context.WithCancel(ctx)
	first := !s.prompted
	s.running, s.stop, s.spoke, s.prompted = true, stop, false, true
	clear(s.calls)
	s.order = s.order[:0]
	s.mu.Unlock()
	defer func() {
		stop()
		s.mu.Lock()
		s.running, s.stop = false, nil
		s.mu.Unlock()
	}()
	if first {
		s.advertiseCommands()
	}
	res, err := s.app.Agent.RunInput(pctx, s.expand(input))
	if err != nil {
		var big *loop.PromptTooLargeError
		var bad *loop.InputError
		if errors.As(err, &big) || errors.As(err, &bad) {
			return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32600, Message: "talaria: " + err.Error()}
	}
	s.mu.Lock()
	spoke := s.spoke
	s.mu.Unlock()
	reason, ok := stopReason(res.ExitReason)
	if !ok && !spoke {
		msg := res.Explanation
		if msg == "" {
			msg = res.ExitReason.String()
		}
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: "talaria: " + msg, Data: map[string]any{"exitReason": res.ExitReason.String()}}
	}
	return sdk.PromptResponse{StopReason: reason}, nil
}

// stopReason maps a turn's exit onto ACP's stop reasons; ok is false for
// an exit that is an error (it still ends the turn, as end_turn, when
// something was streamed already).
func stopReason(e loop.Exit) (sdk.StopReason, bool) {
	switch e.Kind {
	case loop.ExitTextResponseKind:
		if e.Finish == "length" {
			return sdk.StopReasonMaxTokens, true
		}
		return sdk.StopReasonEndTurn, true
	case loop.ExitMaxIterationsKind, loop.ExitBudgetExhausted, loop.ExitErrorNearMaxKind, loop.ExitGuardrailHalt:
		return sdk.StopReasonMaxTurnRequests, true
	case loop.ExitContentPolicyBlocked:
		return sdk.StopReasonRefusal, true
	case loop.ExitResponseTooLarge:
		return sdk.StopReasonMaxTokens, true
	}
	if e.Interrupted() {
		return sdk.StopReasonCancelled, true
	}
	return sdk.StopReasonEndTurn, false
}

// cancel is session/cancel: pending permission requests end (a denial)
// and the turn is interrupted; the prompt then answers cancelled.
func (s *session) cancel() {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	if s.app != nil {
		s.app.Agent.Interrupt()
	}
}

// close interrupts a running turn, waits (bounded) for it to save, and
// closes the session.
func (s *session) close() {
	s.cancel()
	if s.app == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = s.app.Agent.Wait(ctx)
	s.app.Close()
}

// modeIDs are the approval modes offered as the session's modes.
var modeIDs = []struct {
	mode tools.ApprovalMode
	name string
	desc string
}{
	{tools.ApprovalAsk, "Ask", "ask before edits and commands"},
	{tools.ApprovalAutoEdit, "Auto-edit", "edit files in the working directory without asking; ask before commands"},
	{tools.ApprovalReadOnly, "Read-only", "read and search only; no edits, no commands"},
	{tools.ApprovalYolo, "Yolo", "approve every tool call without asking"},
}

// modes is the session's mode state for session/new and session/load.
func (s *session) modes() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.app.Approvals().Mode())}
	for _, m := range modeIDs {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.mode), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	return st
}

// setMode is session/set_mode.
func (s *session) setMode(id string) error {
	for _, m := range modeIDs {
		if string(m.mode) == id {
			s.app.Approvals().SetMode(m.mode)
			s.srv.update(s.id, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m.mode), SessionUpdate: "current_mode_update"}})
			return nil
		}
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q: use ask, auto-edit, read-only or yolo", id)})
}
