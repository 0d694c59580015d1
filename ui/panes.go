package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

// gaugeWidth is the width of the budget bar in cells.
const gaugeWidth = 20

// paneEnv is what the live panes read of the screen around them: the
// turn's control state, the clock and frame, the hint, and how much room
// the composer leaves.
type paneEnv struct {
	width, high  int
	st           *themes.Styles
	frame        int
	now          time.Time
	hint         string
	composerRows int    // the composer's (or the modal's) height
	follow       bool   // the transcript shows its end
	pending      string // the session command still running, "" when none
	// asking is set while a question waits for its answer, since askedAt.
	asking  bool
	askedAt time.Time
	turn    *turnState
}

// fit cuts a pane line to the screen width.
func (e *paneEnv) fit(s string) string { return ansi.Truncate(s, max(1, e.width), "…") }

// view draws the live panes above the composer, top to bottom: activity,
// retry, budget, guardrails, pending steers, queued messages and the
// current hint. Each line is cut to the screen width.
//
// On a short terminal the panes take at most a third of the rows: the
// activity line and the hint always show, the others in order while room
// is left.
func (l *liveState) view(env *paneEnv) string {
	var rest []string
	rest = append(rest, l.retryPane(env)...)
	if b := l.budgetGauge(env); b != "" {
		rest = append(rest, b)
	}
	rest = append(rest, l.guardrailPane(env)...)
	rest = append(rest, pendingPane(env)...)
	var lines []string
	if a := l.activityLine(env); a != "" {
		lines = append(lines, a)
	}
	hint := ""
	if env.hint != "" {
		hint = env.fit(env.st.Warning.Render(env.hint))
	}
	room := min(max(2, env.high/3), env.high-1-env.composerRows) - len(lines)
	if hint != "" {
		room--
	}
	lines = append(lines, rest[:max(0, min(len(rest), room))]...)
	if hint != "" {
		lines = append(lines, hint)
	}
	return strings.Join(lines[:min(len(lines), max(0, env.high-1-env.composerRows))], "\n")
}

// activityLine says what the turn is doing, how long it has run and how
// to stop it; idle, it only tells a scrolled-up reader how to come back.
func (l *liveState) activityLine(env *paneEnv) string {
	st := env.st
	more := ""
	if !env.follow {
		more = st.Faint.Render("  ↓ more below · pgdn")
	}
	if !env.turn.busy {
		if env.pending != "" {
			more = st.Muted.Render("/"+env.pending+" is running · messages wait for it") + more
		}
		return env.fit(strings.TrimSpace(more))
	}
	label := "waiting for the model"
	switch l.phase {
	case phaseThinking:
		label = "thinking"
	case phaseResponding:
		label = "responding"
	case phaseTools:
		if b := l.batch; b != nil {
			total, done := b.counts()
			label = fmt.Sprintf("running tools %d/%d", done, total)
		} else {
			label = "running tools"
		}
	case phaseRetrying:
		label = "retrying"
	}
	elapsed := ""
	if !env.turn.started.IsZero() {
		elapsed = " · " + fmtDuration(env.now.Sub(env.turn.started))
	}
	stop := " · esc to interrupt"
	if env.asking {
		// The wait counts from the question, not from the turn's start.
		label, stop = "waiting for your answer", " · ctrl+c interrupts"
		elapsed = " · " + fmtDuration(env.now.Sub(env.askedAt))
	}
	return env.fit(st.Accent.Render(spinner(env.frame)+" "+label) + st.Muted.Render(elapsed+stop) + more)
}

// retryPane shows a scheduled retry with a live countdown.
func (l *liveState) retryPane(env *paneEnv) []string {
	r := l.retry
	if r == nil {
		return nil
	}
	st := env.st
	left := r.deadline.Sub(env.now)
	when := "retrying now"
	if left > 0 {
		when = "retrying in " + fmtCountdown(left)
	}
	head := fmt.Sprintf("⟳ %s · attempt %d/%d · %s", reasonLabel(r.ev.Reason, r.ev.Status), r.ev.Attempt, r.ev.MaxAttempts, when)
	lines := []string{env.fit(st.Warning.Render(head) + st.Muted.Render(" · esc to cancel"))}
	if msg := oneLine(r.ev.Message); msg != "" {
		lines = append(lines, env.fit("  "+st.Muted.Render(msg)))
	}
	return lines
}

// budgetGauge draws the iteration budget while a turn runs.
func (l *liveState) budgetGauge(env *paneEnv) string {
	b := l.budget
	if !env.turn.busy || b.max <= 0 {
		return ""
	}
	st := env.st
	filled := min(gaugeWidth, b.used*gaugeWidth/b.max)
	bar := st.GaugeFull.Render(strings.Repeat("█", filled)) + st.GaugeEmpty.Render(strings.Repeat("░", gaugeWidth-filled))
	text := fmt.Sprintf(" %d/%d iterations", b.used, b.max)
	if b.refunds > 0 {
		text += fmt.Sprintf(" · %d refund%s", b.refunds, plural(b.refunds))
	}
	return env.fit(st.Muted.Render("budget ") + bar + st.Muted.Render(text))
}

// guardrailPane lists this turn's guardrail warnings.
func (l *liveState) guardrailPane(env *paneEnv) []string {
	st := env.st
	var lines []string
	for _, g := range l.guards {
		style := st.Warning
		if g.Action == "halt" || g.Action == "block" {
			style = st.Error
		}
		text := fmt.Sprintf("⚠ guardrail %s · %s · %s ×%d", g.Action, oneLine(g.Tool), g.Code, g.Count)
		if g.Message != "" {
			text += " — " + oneLine(g.Message)
		}
		lines = append(lines, env.fit(style.Render(text)))
	}
	return lines
}

// pendingPane lists steers not yet delivered, those being sent, and
// queued messages.
func pendingPane(env *paneEnv) []string {
	st := env.st
	var lines []string
	for _, s := range env.turn.pendingSteers {
		lines = append(lines, env.fit(st.UserPrompt.Render("↳ steer")+st.Muted.Render(" · after the next tool call: ")+st.Steer.Render(oneLine(s.text))))
	}
	for _, s := range env.turn.sending {
		lines = append(lines, env.fit(st.UserPrompt.Render("↳ steer")+st.Muted.Render(" · sending… ")+st.Steer.Render(oneLine(s.text))))
	}
	for _, q := range env.turn.queue {
		lines = append(lines, env.fit(st.UserPrompt.Render("⏎ queued")+st.Muted.Render(" · next turn: ")+st.Text.Render(oneLine(q))))
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
