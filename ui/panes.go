package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// gaugeWidth is the width of the budget bar in cells.
const gaugeWidth = 20

// renderPanes draws the live panes above the composer, top to bottom:
// activity, retry, budget, guardrails, pending steers, queued messages and
// the current hint. Each line is cut to the screen width.
//
// On a short terminal the panes take at most a third of the rows: the
// activity line and the hint always show, the others in order while room
// is left.
func (m *Model) renderPanes() string {
	var rest []string
	rest = append(rest, m.retryPane()...)
	if b := m.budgetGauge(); b != "" {
		rest = append(rest, b)
	}
	rest = append(rest, m.guardrailPane()...)
	rest = append(rest, m.pendingPane()...)
	var lines []string
	if a := m.activityLine(); a != "" {
		lines = append(lines, a)
	}
	hint := ""
	if m.ui.hint != "" {
		hint = m.fit(m.look.st.Warning.Render(m.ui.hint))
	}
	room := min(max(2, m.high/3), m.high-1-lineCount(m.composerView)) - len(lines)
	if hint != "" {
		room--
	}
	lines = append(lines, rest[:max(0, min(len(rest), room))]...)
	if hint != "" {
		lines = append(lines, hint)
	}
	return strings.Join(lines[:min(len(lines), max(0, m.high-1-lineCount(m.composerView)))], "\n")
}

// activityLine says what the turn is doing, how long it has run and how
// to stop it; idle, it only tells a scrolled-up reader how to come back.
func (m *Model) activityLine() string {
	st := m.look.st
	more := ""
	if !m.tr.follow {
		more = st.Faint.Render("  ↓ more below · pgdn")
	}
	if !m.turn.busy {
		if m.pending != "" {
			more = st.Muted.Render("/"+m.pending+" is running · messages wait for it") + more
		}
		return m.fit(strings.TrimSpace(more))
	}
	label := "waiting for the model"
	switch m.live.phase {
	case phaseThinking:
		label = "thinking"
	case phaseResponding:
		label = "responding"
	case phaseTools:
		if b := m.live.batch; b != nil {
			total, done := b.counts()
			label = fmt.Sprintf("running tools %d/%d", done, total)
		} else {
			label = "running tools"
		}
	case phaseRetrying:
		label = "retrying"
	}
	elapsed := ""
	if !m.turn.started.IsZero() {
		elapsed = " · " + fmtDuration(m.ui.now.Sub(m.turn.started))
	}
	stop := " · esc to interrupt"
	if m.dialog() != nil {
		// The wait counts from the question, not from the turn's start.
		label, stop = "waiting for your answer", " · ctrl+c interrupts"
		elapsed = " · " + fmtDuration(m.ui.now.Sub(m.modal.shownAt))
	}
	return m.fit(st.Accent.Render(spinner(m.ui.frame)+" "+label) + st.Muted.Render(elapsed+stop) + more)
}

// fit cuts a pane line to the screen width.
func (m *Model) fit(s string) string { return ansi.Truncate(s, max(1, m.width), "…") }

// retryPane shows a scheduled retry with a live countdown.
func (m *Model) retryPane() []string {
	r := m.live.retry
	if r == nil {
		return nil
	}
	st := m.look.st
	left := r.deadline.Sub(m.ui.now)
	when := "retrying now"
	if left > 0 {
		when = "retrying in " + fmtCountdown(left)
	}
	head := fmt.Sprintf("⟳ %s · attempt %d/%d · %s", reasonLabel(r.ev.Reason, r.ev.Status), r.ev.Attempt, r.ev.MaxAttempts, when)
	lines := []string{m.fit(st.Warning.Render(head) + st.Muted.Render(" · esc to cancel"))}
	if msg := oneLine(r.ev.Message); msg != "" {
		lines = append(lines, m.fit("  "+st.Muted.Render(msg)))
	}
	return lines
}

// budgetGauge draws the iteration budget while a turn runs.
func (m *Model) budgetGauge() string {
	b := m.live.budget
	if !m.turn.busy || b.max <= 0 {
		return ""
	}
	st := m.look.st
	filled := min(gaugeWidth, b.used*gaugeWidth/b.max)
	bar := st.GaugeFull.Render(strings.Repeat("█", filled)) + st.GaugeEmpty.Render(strings.Repeat("░", gaugeWidth-filled))
	text := fmt.Sprintf(" %d/%d iterations", b.used, b.max)
	if b.refunds > 0 {
		text += fmt.Sprintf(" · %d refund%s", b.refunds, plural(b.refunds))
	}
	return m.fit(st.Muted.Render("budget ") + bar + st.Muted.Render(text))
}

// guardrailPane lists this turn's guardrail warnings.
func (m *Model) guardrailPane() []string {
	st := m.look.st
	var lines []string
	for _, g := range m.live.guards {
		style := st.Warning
		if g.Action == "halt" || g.Action == "block" {
			style = st.Error
		}
		text := fmt.Sprintf("⚠ guardrail %s · %s · %s ×%d", g.Action, oneLine(g.Tool), g.Code, g.Count)
		if g.Message != "" {
			text += " — " + oneLine(g.Message)
		}
		lines = append(lines, m.fit(style.Render(text)))
	}
	return lines
}

// pendingPane lists steers not yet delivered, those being sent, and
// queued messages.
func (m *Model) pendingPane() []string {
	st := m.look.st
	var lines []string
	for _, s := range m.turn.pendingSteers {
		lines = append(lines, m.fit(st.UserPrompt.Render("↳ steer")+st.Muted.Render(" · after the next tool call: ")+st.Steer.Render(oneLine(s.text))))
	}
	for _, s := range m.turn.sending {
		lines = append(lines, m.fit(st.UserPrompt.Render("↳ steer")+st.Muted.Render(" · sending… ")+st.Steer.Render(oneLine(s.text))))
	}
	for _, q := range m.turn.queue {
		lines = append(lines, m.fit(st.UserPrompt.Render("⏎ queued")+st.Muted.Render(" · next turn: ")+st.Text.Render(oneLine(q))))
	}
	return lines
}

// reasonLabel names a failover reason with its HTTP status.
func reasonLabel(reason string, status int) string {
	if reason == "" {
		reason = "error"
	}
	if status > 0 {
		return fmt.Sprintf("%s (%d)", reason, status)
	}
	return reason
}

// fmtCountdown prints a countdown with tenths below ten seconds.
func fmtCountdown(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmtDuration(d)
}

// fmtTokens prints a token count briefly: 950, 12.3k, 1.2M.
func fmtTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}
