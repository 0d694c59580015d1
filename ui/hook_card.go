package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
)

// Hook lines on a card.
const (
	// hookMessageLines is how many lines of a hook's message a card
	// shows; the rest is counted (ctrl+t shows it).
	hookMessageLines = 2
	// maxCardHooks bounds the hooks a call keeps (several hooks per event,
	// Pre and Post): the latest ones.
	maxCardHooks = 16
)

// hookRun is one hook.completed, as a card shows it.
type hookRun struct {
	event, command, decision, message string
	exit                              int
	dur                               time.Duration
	failed                            bool
}

// onHookCompleted puts a hook's run on the card of the call it ran for,
// or, for the turn's events (UserPromptSubmit, Stop, ...) and a call not
// on screen, in the transcript.
func (m *Model) onHookCompleted(e *loop.HookCompleted) {
	h := hookRun{event: e.Event, command: e.Command, decision: e.Decision, message: e.Message,
		exit: e.ExitCode, dur: msDuration(e.DurationMS), failed: e.Failed}
	ref, ok := m.live.calls[e.ToolCallID]
	if !ok && e.ToolCallID != "" {
		// An inner call of a script is not on screen before it starts,
		// and PreToolUse runs before that: it nests under its script now.
		if i := strings.LastIndexByte(e.ToolCallID, '.'); i > 0 {
			if p, known := m.live.calls[e.ToolCallID[:i]]; known && p.call.name == "execute_code" {
				ref, ok = m.callFor(e.ToolCallID, e.Tool, "", p.call.id), true
			}
		}
	}
	if ok && e.ToolCallID != "" {
		x := ref.call.ensureExtra()
		x.hooks = append(x.hooks, h)
		if len(x.hooks) > maxCardHooks {
			x.hooks = x.hooks[len(x.hooks)-maxCardHooks:]
		}
		ref.batch.ver++
		m.trDirty = true
		return
	}
	m.tr.push(&hookItem{run: h, tool: e.Tool})
	m.trDirty = true
}

// label is the hook's outcome in a word or two.
func (h hookRun) label() string {
	switch {
	case h.decision == "timeout":
		return "timed out"
	case h.failed && h.exit > 0:
		return fmt.Sprintf("failed · exit %d", h.exit)
	case h.failed:
		return "failed"
	case h.decision != "":
		return h.decision
	}
	return "ok"
}

// blocking reports a hook that stopped or redirected something.
func (h hookRun) blocking() bool {
	switch h.decision {
	case "block", "deny", "stop", "ask":
		return true
	}
	return false
}

// lines draws the hook: "⚑ PreToolUse hook CMD · block · 12ms", then the
// first lines of what it said, collapsed.
func (h hookRun) lines(rc *renderCtx, indent, tool string) []string {
	st := rc.st
	style := st.Muted
	switch {
	case h.failed:
		style = st.Error
	case h.blocking():
		style = st.Warning
	}
	w := max(1, rc.width-ansi.StringWidth(indent))
	status := h.label() + " · " + fmtDuration(h.dur)
	what := "⚑ " + h.event + " hook"
	if tool != "" {
		what += " (" + oneLine(tool) + ")"
	}
	room := max(1, w-ansi.StringWidth(what)-ansi.StringWidth(status)-2)
	cmd := ansi.Truncate(oneLine(h.command), room, "…")
	head := style.Render(what) + " " + st.ToolArgs.Render(cmd)
	gap := max(1, w-ansi.StringWidth(head)-ansi.StringWidth(status))
	out := []string{indent + head + strings.Repeat(" ", gap) + style.Render(status)}
	msg := strings.TrimSpace(sanitize(h.message))
	if msg == "" || (!h.failed && !h.blocking()) {
		return out
	}
	bar := st.ToolRule.Render("│ ")
	mw := max(1, w-4)
	var ls []string
	for _, l := range strings.Split(msg, "\n") {
		ls = append(ls, wrapKeepIndent(strings.ReplaceAll(l, "\t", "    "), mw)...)
	}
	for i, l := range ls {
		if i == hookMessageLines && len(ls) > hookMessageLines+1 {
			out = append(out, indent+"  "+bar+st.Faint.Render(ansi.Truncate(fmt.Sprintf("… +%d lines · ctrl+t shows the rest", len(ls)-i), mw, "…")))
			break
		}
		out = append(out, indent+"  "+bar+st.ToolOutput.Render(ansi.Truncate(l, mw, "…")))
	}
	return out
}

// hookLines draws the hooks that ran for the call.
func (c *toolCall) hookLines(rc *renderCtx, indent string) []string {
	var out []string
	for _, h := range c.extra.hooks {
		out = append(out, h.lines(rc, indent, "")...)
	}
	return out
}

// hookItem is a hook of the turn (UserPromptSubmit, Stop, SessionStart,
// ...) or of a call not on screen, as a transcript line.
type hookItem struct {
	run  hookRun
	tool string
}

func (h *hookItem) version() int { return 0 }
func (h *hookItem) live() bool   { return false }

func (h *hookItem) render(rc *renderCtx) []string { return h.run.lines(rc, "", h.tool) }

// pagerLines adds the hook's run and everything it said.
func (h hookRun) pagerLines(add func(lineKind, string), tool string) {
	head := "⚑ " + h.event + " hook"
	if tool != "" {
		head += " (" + tool + ")"
	}
	add(kindHead, head+" · "+h.command+" · "+h.label()+" · "+fmtDuration(h.dur))
	if msg := strings.TrimSpace(h.message); msg != "" {
		add(kindText, msg)
	}
}
