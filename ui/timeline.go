package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/loop/trace"
	"talaria/themes"
)

// timeline runs /timeline [TURN]: the span log comes from the session
// (Port.Timeline) and goes into the transcript as a waterfall, which
// scrolls with it and is redrawn at every width.
func (m *Model) timeline(args string) tea.Cmd {
	if !m.can.Timeline {
		m.notice(noticeMuted, "/timeline is not available yet")
		return nil
	}
	turn := 0
	if a := strings.TrimSpace(args); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			m.notice(noticeWarn, "usage: /timeline [TURN] (a turn number from 1; none: the last turn)")
			return nil
		}
		turn = n
	}
	ctx, cb := m.ctx, m.agent
	return func() tea.Msg {
		l, err := cb.Timeline(ctx, turn)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			if err != nil {
				return m.reportErr("/timeline", err)
			}
			m.tr.push(&timelineItem{log: l})
			m.trDirty = true
			return nil
		}}
	}
}

// timelineItem is one turn's waterfall in the transcript.
type timelineItem struct{ log *trace.Log }

func (t *timelineItem) version() int { return 0 }
func (t *timelineItem) live() bool   { return false }

// Waterfall geometry: a label column, the bars, a duration column.
const (
	tlDurCol   = 8
	tlMinLabel = 24
	tlMaxLabel = 32
)

func (t *timelineItem) render(rc *renderCtx) []string {
	l, st := t.log, rc.st
	label := min(tlMaxLabel, max(tlMinLabel, rc.width/4))
	bars := max(10, rc.width-label-tlDurCol-3)
	head := fmt.Sprintf("⏱ turn %d · %s · %d API attempt(s) · %s", l.Turn, trace.FormatMS(l.DurMS), l.Attempts, l.ExitReason)
	out := []string{st.Accent.Render(ansi.Truncate(head, rc.width, "…"))}
	out = append(out, st.Faint.Render(strings.Repeat(" ", label+2)+axis(l, bars)))
	for _, b := range trace.Layout(l, bars) {
		out = append(out, t.row(b, label, bars, st))
	}
	out = append(out, st.Faint.Render(ansi.Truncate("▒ to first token  █ streaming/tool  ░ wait  ─ phase/iteration/segment  ◆ event", rc.width, "…")))
	return out
}

// row draws one span: its label, its bar on the time axis, its duration.
func (t *timelineItem) row(b trace.Bar, label, width int, st *themes.Styles) string {
	s := b.Span
	glyph := "█"
	switch {
	case trace.Instant(s):
		glyph = "◆"
	case s.Kind == trace.KindRetryWait || s.Kind == trace.KindApproval:
		glyph = "░"
	case s.Kind == trace.KindIteration || s.Kind == trace.KindSegment || s.Kind == trace.KindPhase:
		glyph = "─"
	}
	n := b.To - b.From
	if glyph == "◆" {
		n = 1
	}
	fill := strings.Repeat(glyph, n)
	if s.Kind == trace.KindAttempt && s.TTFTMS > 0 && s.DurMS > 0 && n > 1 {
		// Waiting for the first token, then streaming.
		pre := min(n-1, int(math.Round(s.TTFTMS/s.DurMS*float64(n))))
		fill = strings.Repeat("▒", pre) + strings.Repeat(glyph, n-pre)
	}
	bar := strings.Repeat(" ", b.From) + spanStyle(s, st).Render(fill) + strings.Repeat(" ", max(0, width-b.From-n))
	dur := ""
	if !trace.Instant(s) {
		dur = trace.FormatMS(s.DurMS)
	}
	name := ansi.Truncate(spanLabel(s), label, "…")
	return " " + padRight(name, label) + " " + bar + " " + st.Muted.Render(fmt.Sprintf("%*s", tlDurCol, dur))
}

// spanLabel names a row, indented under its iteration.
func spanLabel(s trace.Span) string {
	switch s.Kind {
	case trace.KindIteration, trace.KindPhase:
		return s.Name
	case trace.KindAttempt:
		// The status before the model, so a narrow label keeps it.
		lbl := fmt.Sprintf("  chat #%d", s.Attempt)
		if s.HTTPStatus != 0 {
			lbl += fmt.Sprintf(" %d", s.HTTPStatus)
		} else if s.Status != "ok" {
			lbl += " " + s.Status
		}
		return lbl + " · " + s.Model
	case trace.KindRetryWait:
		return "  wait " + s.Reason
	case trace.KindSegment:
		mode := "→"
		if s.Parallel {
			mode = "∥"
		}
		return fmt.Sprintf("  segment %d %s", s.Segment, mode)
	case trace.KindTool:
		lbl := "    " + s.Name
		if s.Status != "ok" && s.Status != "" {
			lbl += " " + s.Status
		}
		return lbl
	case trace.KindApproval:
		return "    " + s.Name
	case trace.KindFallback:
		return "  fallback " + s.Reason
	}
	return "  " + s.Name
}

// spanStyle colours a bar by what it is and, for failures and waits, by
// why.
func spanStyle(s trace.Span, st *themes.Styles) lipgloss.Style {
	switch s.Kind {
	case trace.KindIteration, trace.KindPhase:
		return st.Faint
	case trace.KindSegment:
		return st.Segment
	case trace.KindRetryWait:
		return reasonStyle(s.Reason, st)
	case trace.KindApproval:
		return st.Info
	case trace.KindSteer:
		return st.Steer
	case trace.KindCompression:
		return st.Reasoning
	case trace.KindFallback, trace.KindRotation, trace.KindGuardrail:
		return st.Warning
	}
	switch s.Status {
	case "error", "denied":
		if s.Kind == trace.KindAttempt {
			return reasonStyle(s.Reason, st)
		}
		return st.Error
	case "cancelled":
		return st.Muted
	}
	if s.Kind == trace.KindTool {
		return st.ToolName
	}
	return st.Success
}

// reasonStyle: waiting on the provider's limits is a warning; a failure
// that no wait fixes (auth, billing, bad request) an error; the rest
// (overload, server errors, timeouts) information.
func reasonStyle(reason string, st *themes.Styles) lipgloss.Style {
	switch {
	case strings.Contains(reason, "rate_limit"), strings.Contains(reason, "quota"), strings.Contains(reason, "usage_limit"):
		return st.Warning
	case strings.Contains(reason, "auth"), strings.Contains(reason, "billing"), strings.Contains(reason, "format"),
		strings.Contains(reason, "policy"), strings.Contains(reason, "not_found"):
		return st.Error
	}
	return st.Info
}

// axis is the time scale over the bars: tick labels at round steps.
func axis(l *trace.Log, width int) string {
	total := l.DurMS
	for _, s := range l.Spans {
		total = max(total, s.End())
	}
	buf := []rune(strings.Repeat(" ", width))
	if total <= 0 {
		return string(buf)
	}
	step := niceStep(total, max(1, width/8))
	for v := 0.0; v <= total; v += step {
		pos := int(math.Floor(v / total * float64(width)))
		lbl := []rune("┊" + tickLabel(v))
		if v == 0 {
			lbl = []rune("┊0")
		}
		if pos+len(lbl) > width {
			break
		}
		copy(buf[pos:], lbl)
	}
	return string(buf)
}

// niceStep is a 1-2-5 step that puts at most n ticks on total.
func niceStep(total float64, n int) float64 {
	raw := total / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= raw {
			return f * mag
		}
	}
	return 10 * mag
}

// tickLabel is an axis label without trailing zeros (2s, 1.5s, 500ms).
func tickLabel(v float64) string {
	t := trace.FormatMS(v)
	if strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ms") && strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimSuffix(t, "s"), "0")
		t = strings.TrimSuffix(t, ".") + "s"
	}
	return t
}
