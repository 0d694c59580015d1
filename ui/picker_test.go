package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/providers"
)

// pickerSessions is what the fake Sessions callback lists.
func pickerSessions() []SessionInfo {
	return []SessionInfo{
		{ID: "0a1b2c3d4e5f", Title: "fix the trailing comma bug in parser.go", Updated: t0, Messages: 14},
		{ID: "77aa88bb99cc", Title: "Write the CHANGELOG for 0.2", Updated: t0.Add(-26 * time.Hour), Messages: 6},
		{ID: "deadbeef0001", Title: "refactor: split the Parser into lexer and parser", Updated: t0.Add(-72 * time.Hour), Messages: 120},
		{ID: "c0ffee000002", Title: "", Updated: t0.Add(-100 * time.Hour), Messages: 1},
	}
}

// resumeRecorder is a Resume callback that remembers the ids it got.
type resumeRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *resumeRecorder) resume(_ context.Context, id string) (Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	return Session{ID: id, History: []providers.Message{{Role: providers.RoleUser, Content: "question of " + id}}}, nil
}

func (r *resumeRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// pickerHarness is a harness whose /sessions lists list.
func pickerHarness(t *testing.T, list []SessionInfo) (*harness, *resumeRecorder) {
	rec := &resumeRecorder{}
	h := newHarness(t, func(o *Options) {
		fake(o).OnSessions = func(context.Context) ([]SessionInfo, error) { return list, nil }
		fake(o).OnResume = rec.resume
	})
	return h, rec
}

func TestGoldenPicker(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h, _ := pickerHarness(t, pickerSessions())
			h.size(w, 24)
			h.command("/sessions")
			h.key("down")
			golden(t, h.m.View().Content)
		})
	}
}

func TestPickerFilterMoveResume(t *testing.T) {
	h, rec := pickerHarness(t, pickerSessions())
	h.command("/sessions")
	if h.m.modal.picker == nil {
		t.Fatal("/sessions did not open the picker")
	}
	contains(t, h.screen(), "Resume a session · 4 of 4", "(current) fix the trailing", "(untitled)")
	h.typeText("PARSER")
	contains(t, h.screen(), "· 2 of 4", "fix the trailing comma", "refactor: split")
	if strings.Contains(h.screen(), "CHANGELOG") {
		t.Error("filter kept a session that does not match")
	}
	h.key("down")
	h.key("down") // clamped at the last match
	h.settle(keyMsg("enter"))
	if got := rec.got(); len(got) != 1 || got[0] != "deadbeef0001" {
		t.Fatalf("Resume got %q", got)
	}
	if h.m.modal.picker != nil {
		t.Error("picker still open after resuming")
	}
	contains(t, h.screen(), "› question of deadbeef0001")
	if h.m.ses.id != "deadbeef0001" {
		t.Errorf("session id = %q", h.m.ses.id)
	}
}

func TestPickerFilterByIDAndBackspace(t *testing.T) {
	h, rec := pickerHarness(t, pickerSessions())
	h.command("/resume")
	h.typeText("c0ff")
	contains(t, h.screen(), "· 1 of 4", "c0ffee00")
	h.typeText("x")
	contains(t, h.screen(), "· 0 of 4", "no session matches")
	h.key("enter") // nothing to resume
	h.key("backspace")
	h.settle(keyMsg("enter"))
	if got := rec.got(); len(got) != 1 || got[0] != "c0ffee000002" {
		t.Fatalf("Resume got %q", got)
	}
}

func TestPickerPagesAndEsc(t *testing.T) {
	var list []SessionInfo
	for i := range 25 {
		list = append(list, SessionInfo{ID: fmt.Sprintf("%02d0000000000", i), Title: fmt.Sprintf("session %d", i), Updated: t0, Messages: i})
	}
	h, rec := pickerHarness(t, list)
	h.size(80, 24)
	h.command("/sessions")
	rows := h.m.pickerRows()
	h.key("pgdown")
	if p := h.m.modal.picker; p.sel != rows {
		t.Errorf("pgdown: sel %d, want %d", p.sel, rows)
	}
	contains(t, h.screen(), fmt.Sprintf("session %d ", rows))
	h.key("pgdown")
	h.key("pgdown")
	if p := h.m.modal.picker; p.sel != 24 {
		t.Errorf("pgdown at the end: sel %d", p.sel)
	}
	contains(t, h.screen(), "session 24")
	if strings.Contains(h.screen(), "session 0 ") {
		t.Error("the first row is still visible at the end")
	}
	h.key("pgup")
	h.key("up")
	if p := h.m.modal.picker; p.sel != 24-rows-1 {
		t.Errorf("pgup, up: sel %d, want %d", p.sel, 24-rows-1)
	}
	h.key("esc")
	if h.m.modalOpen() || len(rec.got()) != 0 {
		t.Errorf("esc: picker open %v, resumed %q", h.m.modalOpen(), rec.got())
	}
	contains(t, h.screen(), "Ask anything")
}

func TestPickerWhileBusyWaits(t *testing.T) {
	h, rec := pickerHarness(t, pickerSessions())
	h.startBusy()
	h.command("/sessions")
	h.key("enter")
	if len(rec.got()) != 0 || h.m.modal.picker == nil {
		t.Fatalf("resumed during a turn: %q", rec.got())
	}
	contains(t, h.screen(), "resuming is refused while a turn runs")
	h.command("/resume")
	wantCalls(t, h, "run:first")
}

func TestSessionsFallbacks(t *testing.T) {
	// Without Resume the picker could not resume: the list is printed.
	h := newHarness(t, func(o *Options) {
		fake(o).OnSessions = func(context.Context) ([]SessionInfo, error) { return pickerSessions()[:1], nil }
	})
	h.command("/sessions")
	if h.m.modalOpen() {
		t.Error("picker opened without a Resume callback")
	}
	contains(t, h.screen(), "0a1b2c3d  2026-03-01 12:00    14 msgs  fix the trailing comma")

	// Without Sessions, /resume resumes the most recent session.
	rec := &resumeRecorder{}
	h = newHarness(t, func(o *Options) { fake(o).OnResume = rec.resume })
	h.command("/resume")
	if got := rec.got(); len(got) != 1 || got[0] != "" {
		t.Errorf("Resume got %q", got)
	}

	// An empty list says so.
	h, _ = pickerHarness(t, nil)
	h.command("/sessions")
	if h.m.modalOpen() {
		t.Error("picker opened on an empty list")
	}
	contains(t, h.screen(), "no sessions yet")
}

func TestDialogOverPicker(t *testing.T) {
	d := NewDialogs()
	h, rec := pickerHarness(t, pickerSessions())
	h.m.opts.Dialogs = d
	h.command("/sessions")
	res := approveAsync(callCtx(t), d, patchReq)
	h.showNext(d)
	contains(t, h.screen(), "Allow patch?")
	h.key("y")
	if got := result(t, res); !got.d.Allow {
		t.Errorf("got %+v", got.d)
	}
	contains(t, h.screen(), "Resume a session")
	h.key("esc")
	if h.m.modalOpen() || len(rec.got()) != 0 {
		t.Error("esc did not close the picker")
	}
}

func TestCtrlCClosesPicker(t *testing.T) {
	h, _ := pickerHarness(t, pickerSessions())
	h.command("/sessions")
	h.key("ctrl+c")
	if h.m.modalOpen() {
		t.Error("ctrl+c left the picker open")
	}
	contains(t, h.screen(), "ctrl+c again to quit")
	wantCalls(t, h)
	if !hasQuit(h.key("ctrl+c")) {
		t.Error("a second ctrl+c did not quit")
	}
}
