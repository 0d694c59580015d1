package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/themes"
)

// commandResultMsg carries the result of a command callback back to
// Update; apply runs there, on the UI goroutine. settles marks the result
// of the pending command (see Model.pending): it ends the wait, and what
// was queued meanwhile is sent.
type commandResultMsg struct {
	apply   func(m *Model) tea.Cmd
	settles bool
}

// runCommand executes a slash command.
func (m *Model) runCommand(name, args string) tea.Cmd {
	switch name {
	case "help":
		m.notice(noticeInfo, m.helpText())
	case "quit":
		return m.quit()
	case "stop":
		if !m.turn.busy {
			m.notice(noticeMuted, "no turn is running")
			return nil
		}
		return tea.Batch(m.interrupt(), m.setHint("interrupting…", 2*time.Second))
	case "steer", "queue":
		return m.steerOrQueue(name, args)
	case "cancel":
		return m.cancelCall(args)
	case "usage":
		m.notice(noticeInfo, m.usageText())
	case "status":
		m.notice(noticeInfo, m.statusText())
	case "init":
		return m.initProject()
	case "!":
		return m.runShell(args)
	case "theme":
		m.switchTheme(args)
	case "copy":
		return m.copyAnswer(args)
	case "approvals":
		m.setApprovals(args)
	case "timeline":
		return m.timeline(args)
	case "new", "resume", "sessions", "model", "compress":
		return m.external(name, args)
	case "rewind", "undo", "diff":
		return m.rewindCommand(name, args)
	case "rename", "fork":
		return m.sessionCommand(name, args) // fork_commands.go
	case "skills":
		return m.listSkills()
	case "agents":
		return m.listAgents()
	default:
		if cmd, ok := m.runCustom(name, args); ok {
			return cmd
		}
		m.notice(noticeWarn, unknownCommandText(name))
	}
	return nil
}

// steerOrQueue runs /steer and /queue. Idle, both simply send the text:
// a steer with no turn to go into would otherwise be lost.
func (m *Model) steerOrQueue(name, text string) tea.Cmd {
	if strings.TrimSpace(text) == "" {
		m.notice(noticeWarn, "usage: /"+name+" TEXT")
		return nil
	}
	switch {
	case !m.turn.busy:
		return m.startTurn(text)
	case name == "steer":
		return m.steer(text)
	default:
		return m.enqueue(text)
	}
}

// switchTheme applies /theme NAME, or lists the themes.
func (m *Model) switchTheme(name string) {
	if name == "" {
		m.notice(noticeInfo, fmt.Sprintf("theme: %s · available: %s, %s", m.look.theme.Name, strings.Join(themes.Names(), ", "), themes.Auto))
		return
	}
	if !themes.Valid(name) {
		m.notice(noticeWarn, fmt.Sprintf("unknown theme %q · available: %s, %s", name, strings.Join(themes.Names(), ", "), themes.Auto))
		return
	}
	m.look.name = name
	m.applyTheme()
	if m.look.noColor {
		m.notice(noticeMuted, "NO_COLOR is set: the theme has no colours")
		return
	}
	m.notice(noticeMuted, "theme: "+m.look.theme.Name)
}

// copyAnswer copies the last answer, or the N-th last (/copy N).
func (m *Model) copyAnswer(args string) tea.Cmd {
	n := 1
	if args != "" {
		v, err := strconv.Atoi(args)
		if err != nil || v < 1 {
			m.notice(noticeWarn, "usage: /copy [N] · N counts answers back from the last, from 1")
			return nil
		}
		n = v
	}
	var answers []string
	for _, e := range m.tr.entries {
		if a, ok := e.it.(*assistantItem); ok && strings.TrimSpace(a.text()) != "" {
			answers = append(answers, a.text())
		}
	}
	if len(answers) == 0 {
		m.notice(noticeMuted, "nothing to copy yet")
		return nil
	}
	if n > len(answers) && m.older.before > 0 {
		return m.copyOlder(n-len(answers), n) // an answer not on screen
	}
	if n > len(answers) {
		m.notice(noticeWarn, fmt.Sprintf("/copy %d: there are %d answers", n, len(answers)))
		return nil
	}
	text := answers[len(answers)-n]
	what := "the last answer"
	if n > 1 {
		what = fmt.Sprintf("answer %d back", n)
	}
	return m.copyText(text, fmt.Sprintf("%s (%d characters)", what, len([]rune(text))))
}

// external runs a command that needs the port (Options.Port).
func (m *Model) external(name, args string) tea.Cmd {
	cb, can := m.agent, m.can
	available := map[string]bool{
		"new": can.New, "resume": can.Resume, "sessions": can.Sessions,
		"model": can.Model, "compress": can.Compress,
	}
	if !available[name] {
		m.notice(noticeMuted, "/"+name+" is not available yet")
		return nil
	}
	if name == "sessions" || (name == "resume" && args == "" && can.Sessions) {
		return listSessions(m.ctx, cb, can.Resume)
	}
	if name == "model" && args == "" {
		return m.switchModel(m.ctx, args)
	}
	if !m.mayChangeSession("/" + name) {
		return nil
	}
	m.setPending(name)
	ctx := m.ctx
	switch name {
	case "new":
		return func() tea.Msg { s, err := cb.New(ctx); return sessionResult(s, err) }
	case "resume":
		return func() tea.Msg { s, err := cb.Resume(ctx, args); return sessionResult(s, err) }
	case "model":
		return m.switchModel(ctx, args)
	}
	return func() tea.Msg {
		err := cb.Compress(ctx)
		return commandResultMsg{settles: true, apply: func(m *Model) tea.Cmd { return m.reportErr("/compress", err) }}
	}
}

// mayChangeSession reports whether what (a command, or resuming from the
// picker) may start now: not while a turn runs, nor while another such
// command is still running. It says why not.
func (m *Model) mayChangeSession(what string) bool {
	switch {
	case m.turn.busy:
		m.notice(noticeWarn, refusedBusy(what))
	case m.pending != "":
		m.notice(noticeWarn, refusedPending(what, m.pending))
	default:
		return true
	}
	return false
}

// setPending records that command name runs in the background: until its
// result comes, Enter queues messages instead of starting a turn (see
// startTurn), because the turn would run on the agent the command is
// replacing or compressing.
func (m *Model) setPending(name string) {
	m.pending = name
	m.chromeDirty = true
}

// listSessions fetches the sessions for the picker; when the port cannot
// resume (pick false) the picker could not resume one, so the list is
// printed.
func listSessions(ctx context.Context, cb Port, pick bool) tea.Cmd {
	return func() tea.Msg {
		list, err := cb.Sessions(ctx)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			switch {
			case err != nil:
				return m.reportErr("/sessions", err)
			case pick:
				return m.openPicker(list)
			}
			m.printSessions(list)
			return nil
		}}
	}
}

// switchModel runs /model.
func (m *Model) switchModel(ctx context.Context, spec string) tea.Cmd {
	if spec == "" {
		return m.openModelPicker() // model_picker.go
	}
	cb := m.agent
	return func() tea.Msg {
		p, name, err := cb.Model(ctx, spec)
		return commandResultMsg{settles: true, apply: func(m *Model) tea.Cmd {
			if err != nil {
				return m.reportErr("/model", err)
			}
			m.ses.provider, m.ses.model = p, name
			m.notice(noticeMuted, "model: "+p+"/"+name)
			m.chromeDirty = true
			return nil
		}}
	}
}

// sessionResult switches the screen to a new or resumed session.
func sessionResult(s Session, err error) tea.Msg {
	return commandResultMsg{settles: true, apply: func(m *Model) tea.Cmd {
		if err != nil {
			return m.reportErr("session", err)
		}
		return m.switchSession(s)
	}}
}

// printSessions lists sessions in the transcript.
func (m *Model) printSessions(list []SessionInfo) {
	if len(list) == 0 {
		m.notice(noticeMuted, "no sessions yet")
		return
	}
	var b strings.Builder
	b.WriteString("sessions · /resume ID continues one")
	for _, s := range list {
		fmt.Fprintf(&b, "\n%s  %s  %4d msgs  %s", shortID(s.ID), s.Updated.Format("2006-01-02 15:04"), s.Messages, oneLine(s.Title))
	}
	m.notice(noticeInfo, b.String())
}

// handleCommandResult applies a callback's result; the pending
// command's result also sends what was queued while it ran.
func (m *Model) handleCommandResult(msg commandResultMsg) tea.Cmd {
	var cmd tea.Cmd
	if msg.apply != nil {
		cmd = msg.apply(m)
	}
	if !msg.settles {
		return cmd
	}
	m.pending = ""
	m.chromeDirty = true
	return tea.Batch(cmd, m.sendNext())
}

// reportErr shows a failed command.
func (m *Model) reportErr(what string, err error) tea.Cmd {
	if err != nil {
		kind := noticeError
		if errors.Is(err, loop.ErrNothingToCompress) {
			kind = noticeInfo // an answer, not a failure
		}
		m.notice(kind, what+": "+errText(err))
	}
	return nil
}

// switchSession shows the session the wiring switched to: status line and
// transcript.
// It refuses while a turn runs: the screen would go idle over a turn that
// goes on. Messages queued while the switch was on its way stay queued,
// for the new session.
func (m *Model) switchSession(s Session) tea.Cmd {
	if m.turn.busy {
		m.notice(noticeWarn, "the session was not switched on screen: a turn is running · esc interrupts it, then try again")
		return nil
	}
	m.ses = sessionInfo{provider: or(s.Provider, m.ses.provider), model: or(s.Model, m.ses.model), cwd: m.ses.cwd, id: s.ID, usage: s.Usage}
	m.turn = turnState{queue: m.turn.queue}
	m.beginLive()
	m.live.phase = phaseIdle
	m.tr.reset()
	m.resetOlder(s.Before, s.Title)
	m.loadHistory(s.History)
	if len(s.History) == 0 {
		m.notice(noticeMuted, "new session "+s.ID)
	}
	m.trDirty, m.chromeDirty = true, true
	return nil
}

// or returns a unless it is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// helpText lists the keys and the commands.
func (m *Model) helpText() string {
	var keys [][2]string
	for _, k := range m.keys.help() {
		h := k.Help()
		keys = append(keys, [2]string{h.Key, h.Desc})
	}
	keys = append(keys, composerHelp()...)
	var b strings.Builder
	b.WriteString("keys")
	b.WriteString(helpRows(keys, m.width-4))
	b.WriteString("\ncommands")
	b.WriteString(helpRows(CommandHelp(), m.width-4))
	b.WriteString(m.customHelp(m.width - 4))
	fmt.Fprintf(&b, "\nwhile a turn runs, enter does: %s", or(m.opts.BusyInputMode, BusySteer))
	return b.String()
}

// usageText sums the session's token use.
func (m *Model) usageText() string {
	u := m.ses.usage
	u.Add(m.ses.turnUsage)
	s := fmt.Sprintf("usage · input %s · output %s · cache read %s · cache write %s",
		fmtTokens(u.InputTokens), fmtTokens(u.OutputTokens), fmtTokens(u.CacheReadTokens), fmtTokens(u.CacheWriteTokens))
	if u.ReasoningTokens > 0 {
		s += " · reasoning " + fmtTokens(u.ReasoningTokens)
	}
	if pct, ok := m.contextPercent(); ok {
		s += fmt.Sprintf(" · context %d%% of %s", pct, fmtTokens(m.opts.ContextLength))
	}
	return s
}
