package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// customCommands returns the session's custom commands; nil without any.
func (m *Model) customCommands() []CustomCommand {
	if !m.can.Extensions {
		return nil
	}
	return m.agent.CustomCommands()
}

// customDesc is a custom command's description as /help and completion
// show it.
func customDesc(c CustomCommand) string {
	d := oneLine(c.Description)
	if c.Skill {
		d = strings.TrimSpace("(skill) " + d)
	}
	return d
}

// customHelp is /help's section of custom commands, "" when there are
// none.
func (m *Model) customHelp(w int) string {
	cs := m.customCommands()
	if len(cs) == 0 {
		return ""
	}
	rows := make([][2]string, 0, len(cs))
	for _, c := range cs {
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		rows = append(rows, [2]string{name, customDesc(c)})
	}
	return "\ncustom commands · /skills and /agents list skills and subagents with their files" + helpRows(rows, w)
}

// customName returns the name, as the session spells it, of the custom
// command name is (the command line is read case-blind); ok is false when
// there is none.
func (m *Model) customName(name string) (string, bool) {
	for _, c := range m.customCommands() {
		if c.Name == name {
			return c.Name, true
		}
	}
	for _, c := range m.customCommands() {
		if strings.EqualFold(c.Name, name) {
			return c.Name, true
		}
	}
	return "", false
}

// runCustom runs "/NAME args" as a turn when NAME is a custom command or
// skill: the transcript shows what was typed, the model gets the expanded
// text. ok is false for any other name. Expanding may read files (@path),
// so it happens in a command goroutine; while a turn runs (or a command
// that replaces the session), the typed text is queued and expanded when
// its turn comes.
func (m *Model) runCustom(name, args string) (tea.Cmd, bool) {
	name, ok := m.customName(name)
	if !m.can.Extensions || !ok {
		return nil, false
	}
	typed := strings.TrimSpace("/" + name + " " + args)
	if m.turn.busy || m.pending != "" {
		m.turn.queue = append(m.turn.queue, typed)
		m.chromeDirty = true
		return m.setHint("queued: "+typed+" runs after this turn", 3*time.Second), true
	}
	expand := m.agent.ExpandCommand
	return func() tea.Msg {
		text, note, ok := expand(name, args)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			if note != "" {
				m.notice(noticeMuted, note)
			}
			if !ok {
				m.notice(noticeWarn, fmt.Sprintf("/%s is no longer a custom command of this session", name))
				return nil
			}
			if m.turn.busy || m.pending != "" {
				m.turn.queue = append(m.turn.queue, typed)
				m.chromeDirty = true
				return nil
			}
			return m.startTurnAs(typed, text)
		}}
	}, true
}

// startTurnAs is startTurn for a custom command: shown is what the
// transcript shows, text what the agent gets. (Kept beside startTurn's
// steps: busy before the command runs, the echo awaited, the live area
// begun.)
func (m *Model) startTurnAs(shown, text string) tea.Cmd {
	m.addUser(shown, false)
	if m.agent == nil {
		m.notice(noticeError, "No agent is configured, so nothing was sent.")
		return nil
	}
	m.turn.busy, m.turn.awaitingEcho = true, true
	if m.turn.number > 0 {
		m.turn.floor = m.turn.number + 1
	}
	m.turn.started = m.clock()
	m.ui.now = m.turn.started
	m.beginLive()
	m.chromeDirty = true
	return tea.Batch(startTurn(m.ctx, m.agent, m.comp.withAttachments(text)), m.ensureTicking())
}

// listSkills is /skills: each skill with its SKILL.md, and what changed on
// disk since the session began.
func (m *Model) listSkills() tea.Cmd {
	if !m.can.Extensions {
		m.notice(noticeMuted, "/skills is not available here")
		return nil
	}
	get := m.agent.Skills
	return func() tea.Msg {
		list, note := get()
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			m.notice(noticeInfo, extensionList("skills", "no skills · add skills/NAME/SKILL.md under $TALARIA_HOME, .claude/, .agents/ or .talaria/", list, note, m.width-4))
			return nil
		}}
	}
}

// listAgents is /agents: each subagent with its file.
func (m *Model) listAgents() tea.Cmd {
	if !m.can.Extensions {
		m.notice(noticeMuted, "/agents is not available here")
		return nil
	}
	get := m.agent.Agents
	return func() tea.Msg {
		list := get()
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			m.notice(noticeInfo, extensionList("agents · delegate_task runs them (agent: NAME)", "no subagents · add agents/NAME.md under $TALARIA_HOME, .claude/ or .talaria/", list, "", m.width-4))
			return nil
		}}
	}
}

// extensionList renders /skills and /agents.
func extensionList(title, none string, list []ExtensionItem, note string, w int) string {
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString(none)
	} else {
		b.WriteString(title)
		rows := make([][2]string, 0, len(list))
		for _, it := range list {
			rows = append(rows, [2]string{it.Name, oneLine(it.Description) + " · " + it.Path})
		}
		b.WriteString(helpRows(rows, w))
	}
	if note != "" {
		b.WriteString("\n" + note)
	}
	return b.String()
}
