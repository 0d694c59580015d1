package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"talaria/tools"

	tea "charm.land/bubbletea/v2"
)

// commandAliases maps the names Claude Code and Codex users type to ours
// (CONTRACT.md, "Command aliases").
func commandAliases() map[string]string {
	return map[string]string{"clear": "new", "compact": "compress", "cost": "usage", "exit": "quit"}
}

// unknownCommandText answers a command that is not one: the closest known
// name (or alias) when one is close enough, else a pointer to /help.
func unknownCommandText(name string) string {
	if s := suggestCommand(name); s != "" {
		return fmt.Sprintf("unknown command /%s · did you mean /%s? · /help lists the commands", name, s)
	}
	return fmt.Sprintf("unknown command /%s · /help lists the commands", name)
}

// suggestCommand returns the known command or alias nearest to name by
// edit distance, when it is within a third of the name's length (at
// least 2), or one that name is a prefix of.
func suggestCommand(name string) string {
	name = strings.ToLower(name)
	var names []string
	for _, c := range commandList() {
		names = append(names, c.name)
	}
	for a := range commandAliases() {
		names = append(names, a)
	}
	sort.Strings(names) // ties go to the alphabetically first
	best, bestD := "", 1<<30
	for _, n := range names {
		d := tools.EditDistance(name, n, -1)
		if strings.HasPrefix(n, name) || strings.HasPrefix(name, n) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(2, len([]rune(name))/3) {
		return best
	}
	return ""
}

// statusText is /status: the session, model, working directory, context
// use and the settings that change what keys do.
func (m *Model) statusText() string {
	var b strings.Builder
	b.WriteString("status")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n  %-10s %s", k, v)
		}
	}
	sess := m.ses.id
	if m.ses.title != "" {
		sess += " · " + m.ses.title
	}
	row("session", or(sess, "(none)"))
	model := m.ses.model
	if m.ses.provider != "" {
		model = m.ses.provider + "/" + model
	}
	row("model", or(model, "(no provider configured)"))
	row("cwd", m.ses.cwd)
	u := m.ses.usage
	u.Add(m.ses.turnUsage)
	row("tokens", fmt.Sprintf("input %s · output %s", fmtTokens(u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens), fmtTokens(u.OutputTokens)))
	if pct, ok := m.contextPercent(); ok {
		row("context", fmt.Sprintf("%d%% of %s", pct, fmtTokens(m.opts.ContextLength)))
	}
	if m.can.Approvals {
		row("approvals", string(m.agent.ApprovalMode())+" (shift+tab cycles)")
	}
	row("sandbox", or(m.opts.Sandbox, "off"))
	row("enter busy", or(m.opts.BusyInputMode, BusySteer)+" (display.busy_input_mode)")
	state := "idle"
	if m.turn.busy {
		state = "a turn is running"
	}
	row("state", state)
	return b.String()
}

// initPrompt is the request /init sends: the model surveys the project
// with its tools and writes AGENTS.md (through the usual write approval),
// as Claude Code's and Codex's /init do.
const initPrompt = "/init: create AGENTS.md in the working directory, a concise guide for coding agents working on this project. " +
	"First survey the project with the read-only tools: README, build and dependency files, the directory layout, test, lint and CI setup. " +
	"Then write AGENTS.md with: what the project is; the exact commands to build, run and test it; the code layout; " +
	"the conventions you can see in the code (style, naming, error handling, tests, commit messages). " +
	"Keep it under about 150 lines and state only what you verified. If AGENTS.md already exists, improve it and keep what is still correct."

// initProject runs /init as a model turn; while one runs it says so
// instead of queueing a second survey.
func (m *Model) initProject() tea.Cmd {
	if m.turn.busy {
		m.notice(noticeWarn, "/init refused: a turn is running · esc interrupts it, then run /init again")
		return nil
	}
	return m.startTurn(initPrompt)
}

// CommandHelp lists the slash commands as (synopsis, description) pairs,
// aliases last, for `talaria --help`.
func CommandHelp() [][2]string {
	var out [][2]string
	for _, c := range commandList() {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		out = append(out, [2]string{name, c.desc})
	}
	aliases := commandAliases()
	names := make([]string, 0, len(aliases))
	for a := range aliases {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		out = append(out, [2]string{"/" + a, "same as /" + aliases[a]})
	}
	return out
}

// refusedBusy says that what (a command) did not run because a turn is
// running, and what the user can do: interrupt, or queue it with Tab to
// run after the turn (the queue runs commands too). Nothing is promised
// that does not happen.
func refusedBusy(what string) string {
	return what + " refused: a turn is running · interrupt it first (esc or /stop), or press tab on it to run it after the turn"
}

// refusedPending says that what did not run because another session
// command has not finished.
func refusedPending(what, pending string) string {
	return what + " refused: /" + pending + " is still running · try again when it ends"
}

// noProviderModelText is /model when no provider is configured yet.
const noProviderModelText = "no provider yet · /model PROVIDER/NAME picks one, e.g. /model openai/gpt-4.1, /model anthropic/claude-sonnet-4-5 or /model ollama/llama3.2 (its key variable must be set: OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) · /sessions browses past sessions"

// cancelCall runs /cancel [ID]: it stops one running tool call (the one
// named, else the focused lane, else the only one running) and lets the
// rest of the batch go on, as the lane's x does.
func (m *Model) cancelCall(id string) tea.Cmd {
	var running []string
	for cid, ref := range m.live.calls {
		if ref.call.state == toolRunning {
			running = append(running, cid)
		}
	}
	sort.Strings(running)
	switch {
	case id != "":
	case len(running) == 0:
		m.notice(noticeMuted, "no tool call is running · /stop interrupts the turn")
		return nil
	case len(running) == 1:
		id = running[0]
	default:
		for _, cid := range running {
			if m.live.calls[cid].call.focused {
				id = cid
			}
		}
		if id == "" {
			m.notice(noticeWarn, "several calls are running: /cancel ID, one of "+strings.Join(running, ", ")+" (or ctrl+↑/↓ then x)")
			return nil
		}
	}
	ref, ok := m.live.calls[id]
	if !ok || ref.call.state != toolRunning {
		m.notice(noticeWarn, "/cancel "+id+": no such call is running")
		return nil
	}
	if !m.can.CancelCall {
		m.notice(noticeWarn, "this agent cannot stop a single call; /stop interrupts the turn")
		return nil
	}
	cc := m.agent
	hint := m.setHint("stopping "+ref.call.name+" ("+id+")…", 2*time.Second)
	return tea.Batch(hint, func() tea.Msg {
		cc.CancelCall(id)
		return nil
	})
}
