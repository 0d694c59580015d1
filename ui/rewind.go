package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// escEscWindow is how soon a second Esc on an empty composer must follow
// the first to open the rewind list.
const escEscWindow = 800 * time.Millisecond

// rewindStage is what the rewind modal shows.
type rewindStage int

const (
	stageList  rewindStage = iota // the user messages, newest first
	stageMode                     // code, conversation or both
	stageForce                    // files changed outside talaria: overwrite?
)

// rewindMode is one choice of stageMode.
type rewindMode struct {
	label      string
	code, conv bool
}

// rewindModes returns the choices of stageMode, in order.
func rewindModes() []rewindMode {
	return []rewindMode{
		{"Code and conversation", true, true},
		{"Conversation only", false, true},
		{"Code only", true, false},
	}
}

// rewindModal is the open rewind list.
type rewindModal struct {
	points []RewindPoint
	sel    int
	top    int
	stage  rewindStage
	mode   int // highlighted choice of stageMode / stageForce
	// req and refused are the rewind that met files changed outside
	// talaria (stageForce).
	req     RewindRequest
	refused []string
}

// rewindState is the screen's rewind state: the open list or diff, and
// when Esc was last pressed on an empty composer.
type rewindState struct {
	modal   *rewindModal
	diff    *treeDiffView
	lastEsc time.Time
}

// open reports whether the rewind list or the diff takes the keys.
func (r *rewindState) open() bool { return r.modal != nil || r.diff != nil }

// rewindCommand runs /rewind [TURN], /undo and /diff.
func (m *Model) rewindCommand(name, args string) tea.Cmd {
	cb := m.agent
	if (name == "diff" && !m.can.Diff) || (name != "diff" && !m.can.Rewind) {
		m.notice(noticeMuted, "/"+name+" is not available yet")
		return nil
	}
	ctx := m.ctx
	if name == "diff" {
		return func() tea.Msg {
			d, err := cb.Diff(ctx)
			return commandResultMsg{apply: func(m *Model) tea.Cmd {
				if err != nil {
					return m.reportErr("/diff", err)
				}
				if d == "" {
					m.notice(noticeMuted, "this session has not changed the working tree")
					return nil
				}
				m.openDiff(d)
				return nil
			}}
		}
	}
	switch {
	case m.turn.busy:
		m.notice(noticeWarn, "/"+name+" cannot run while a turn is running: interrupt it first (esc or /stop), then /"+name)
		return nil
	case m.pending != "":
		m.notice(noticeWarn, refusedPending("/"+name, m.pending))
		return nil
	}
	turn := 0
	if name == "rewind" && args != "" {
		if _, err := fmt.Sscanf(args, "%d", &turn); err != nil || turn < 1 {
			m.notice(noticeWarn, "usage: /rewind [TURN]")
			return nil
		}
	}
	return func() tea.Msg {
		pts, err := cb.RewindPoints(ctx)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			switch {
			case err != nil:
				return m.reportErr("/"+name, err)
			case len(pts) == 0:
				m.notice(noticeMuted, "nothing to rewind yet")
				return nil
			case name == "undo":
				return m.runRewind(RewindRequest{Turn: pts[0].Turn, Code: true, Conversation: true}, pts[0].Input)
			}
			m.openRewind(pts, turn)
			return nil
		}}
	}
}

// openRewind shows the rewind list; with turn set, that turn's choices.
func (m *Model) openRewind(pts []RewindPoint, turn int) {
	r := &rewindModal{points: pts}
	if turn > 0 {
		for i, p := range pts {
			if p.Turn == turn {
				r.sel, r.stage = i, stageMode
			}
		}
		if r.stage != stageMode {
			m.notice(noticeWarn, fmt.Sprintf("/rewind: there is no turn %d to rewind", turn))
			return
		}
	}
	m.rw.modal = r
	m.chromeDirty = true
}

// closeRewind closes the rewind list and the diff.
func (m *Model) closeRewind() {
	m.rw.modal, m.rw.diff = nil, nil
	m.chromeDirty = true
}

// handleEscKey is Esc outside modals: twice on an empty composer while
// idle opens the rewind list; otherwise what Esc always does.
func (m *Model) handleEscKey() tea.Cmd {
	if !m.escRewinds() {
		m.rw.lastEsc = time.Time{}
		return m.handleEsc()
	}
	now := m.clock()
	if !m.rw.lastEsc.IsZero() && now.Sub(m.rw.lastEsc) <= escEscWindow {
		m.rw.lastEsc = time.Time{}
		return m.rewindCommand("rewind", "")
	}
	m.rw.lastEsc = now
	return tea.Batch(m.handleEsc(), m.setHint("esc again to rewind", escEscWindow))
}

// handleEscEsc is Esc Esc read as one key: the rewind list when idle on
// an empty composer, else one Esc.
func (m *Model) handleEscEsc() tea.Cmd {
	if m.escRewinds() {
		m.rw.lastEsc = time.Time{}
		return m.rewindCommand("rewind", "")
	}
	return m.handleEscKey()
}

// escRewinds reports whether Esc Esc opens the rewind list now: idle,
// on an empty composer without the popup, with rewind points to list.
func (m *Model) escRewinds() bool {
	return !m.turn.busy && m.pending == "" && !m.popupOpen() && m.comp.value() == "" &&
		m.can.Rewind
}

// rewindKey handles a key while the rewind list or the diff is open.
func (m *Model) rewindKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.rw.diff != nil {
		return m.treeDiffKey(msg)
	}
	r := m.rw.modal
	m.chromeDirty = true
	k := msg.String()
	switch r.stage {
	case stageList:
		return m.rewindListKey(r, k)
	case stageMode:
		modes := rewindModes()
		return m.rewindChoiceKey(r, k, len(modes), func(i int) tea.Cmd {
			p := r.points[r.sel]
			return m.runRewind(RewindRequest{Turn: p.Turn, Code: modes[i].code, Conversation: modes[i].conv}, p.Input)
		})
	}
	return m.rewindChoiceKey(r, k, 2, func(i int) tea.Cmd {
		if i == 1 {
			m.closeRewind()
			m.notice(noticeMuted, "kept the files changed outside talaria")
			return nil
		}
		req := r.req
		req.Conversation, req.Force = false, true
		return m.runRewind(req, "")
	})
}

// rewindListKey moves in the list; Enter offers the choices.
func (m *Model) rewindListKey(r *rewindModal, k string) tea.Cmd {
	rows := m.rewindRows()
	switch k {
	case "esc":
		m.closeRewind()
	case "up", "ctrl+p", "k":
		r.sel = max(0, r.sel-1)
	case "down", "ctrl+n", "j":
		r.sel = min(len(r.points)-1, r.sel+1)
	case "pgup":
		r.sel = max(0, r.sel-rows)
	case "pgdown":
		r.sel = min(len(r.points)-1, r.sel+rows)
	case "enter":
		r.stage, r.mode = stageMode, 0
	}
	return nil
}

// rewindChoiceKey moves among n choices; Enter or a digit picks one, Esc
// goes back to the list (or closes, from stageForce).
func (m *Model) rewindChoiceKey(r *rewindModal, k string, n int, pick func(int) tea.Cmd) tea.Cmd {
	switch k {
	case "esc":
		if r.stage == stageForce {
			return pick(1)
		}
		r.stage = stageList
	case "up", "ctrl+p", "k":
		r.mode = (r.mode - 1 + n) % n
	case "down", "ctrl+n", "j":
		r.mode = (r.mode + 1) % n
	case "enter":
		return pick(r.mode)
	default:
		if len(k) == 1 && k[0] >= '1' && int(k[0]-'1') < n {
			return pick(int(k[0] - '1'))
		}
		if r.stage == stageForce && (k == "y" || k == "n") {
			return pick(map[string]int{"y": 0, "n": 1}[k])
		}
	}
	return nil
}

// runRewind asks the wiring to rewind; input goes back in the composer.
func (m *Model) runRewind(req RewindRequest, input string) tea.Cmd {
	m.closeRewind()
	m.setPending("rewind")
	cb, ctx := m.agent, m.ctx
	return func() tea.Msg {
		res, err := cb.Rewind(ctx, req)
		return commandResultMsg{settles: true, apply: func(m *Model) tea.Cmd { return m.rewindDone(req, input, res, err) }}
	}
}

// rewindDone shows what a rewind did: the shortened session, what was
// restored, and the files changed outside talaria, offering to
// overwrite them.
func (m *Model) rewindDone(req RewindRequest, input string, res RewindResult, err error) tea.Cmd {
	if err != nil {
		return m.reportErr("rewind", err)
	}
	var cmd tea.Cmd
	if res.Session != nil {
		cmd = m.switchSession(*res.Session)
	}
	if input != "" {
		m.comp.setText(input)
		m.inputDirty = true
	}
	var what []string
	if req.Conversation {
		what = append(what, "conversation")
	}
	if req.Code {
		what = append(what, fmt.Sprintf("%d file%s restored", res.Restored, plural(res.Restored)))
	}
	text := fmt.Sprintf("rewound to before turn %d: %s", req.Turn, strings.Join(what, " · "))
	if res.Note != "" {
		text += " · " + res.Note
	}
	if len(res.Untracked) > 0 {
		text += "\nnot restored (over 10 MiB): " + strings.Join(res.Untracked, ", ")
	}
	m.notice(noticeInfo, text)
	if len(res.Refused) > 0 {
		m.rw.modal = &rewindModal{stage: stageForce, req: req, refused: res.Refused}
		m.chromeDirty = true
	}
	return cmd
}
