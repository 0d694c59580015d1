package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/tools"
)

// Limits of a !cmd's output: shown on screen, and carried to the model.
const (
	shellShownLines   = 30
	shellContextBytes = 16 << 10
)

// shellAgent is an agent that runs the user's own shell commands (!cmd)
// with the session's approvals; *loop.Agent is one.
type shellAgent interface {
	Shell(ctx context.Context, command string) (tools.Result, error)
}

// runShell runs !cmd: the command goes through the terminal tool's
// approval, its output is shown, and the next message sent carries it to
// the model (as Claude Code's and Codex's ! do). Refused while a turn
// runs: its output would land in the middle of the turn.
func (m *Model) runShell(command string) tea.Cmd {
	sa, ok := m.agent.(shellAgent)
	switch {
	case !ok || m.agent == nil:
		m.notice(noticeWarn, "!"+command+": this session cannot run shell commands")
		return nil
	case m.turn.busy:
		m.notice(noticeWarn, "!"+command+" refused: a turn is running · esc interrupts it, then run it again")
		return nil
	}
	m.notice(noticeInfo, "! "+command)
	ctx := m.ctx
	return func() tea.Msg {
		res, err := sa.Shell(ctx, command)
		return commandResultMsg{apply: func(m *Model) tea.Cmd { return m.shellDone(command, res, err) }}
	}
}

// shellDone shows a !cmd's output and keeps it for the next message.
func (m *Model) shellDone(command string, res tools.Result, err error) tea.Cmd {
	switch {
	case errors.Is(err, loop.ErrBusy):
		m.notice(noticeWarn, "!"+command+" refused: a turn is running")
		return nil
	case err != nil:
		return m.reportErr("!"+command, err)
	}
	out := strings.TrimRight(res.Output, "\n")
	lines := strings.Split(out, "\n")
	shown := out
	if len(lines) > shellShownLines {
		shown = fmt.Sprintf("… %d earlier lines\n", len(lines)-shellShownLines) + strings.Join(lines[len(lines)-shellShownLines:], "\n")
	}
	kind := noticeMuted
	if res.IsError {
		kind = noticeWarn
	}
	m.notice(kind, or(shown, "(no output)"))
	if len(out) > shellContextBytes {
		out = "[… cut]\n" + out[len(out)-shellContextBytes:]
	}
	m.comp.shellOut = append(m.comp.shellOut, fmt.Sprintf("<shell command=%q>\n%s\n</shell>", command, out))
	m.notice(noticeMuted, "the output goes to the model with your next message")
	return nil
}
