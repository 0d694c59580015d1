package trace

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the log as a table: one row per span, offsets and
// durations in milliseconds from the turn's start.
func WriteTable(w io.Writer, l *Log) error {
	fmt.Fprintf(w, "session %s  turn %d  %s  %d API attempt(s)  %s\n", l.SessionID, l.Turn, FormatMS(l.DurMS), l.Attempts, l.ExitReason)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "START\tDUR\tKIND\tNAME\tSTATUS\tDETAIL")
	for _, s := range l.Spans {
		dur := FormatMS(s.DurMS)
		if Instant(s) {
			dur = "·"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", FormatMS(s.StartMS), dur, s.Kind, s.Name, s.Status, Describe(s))
	}
	return tw.Flush()
}

// Describe is the one-line detail of a span: tokens and time to first
// token for attempts, reason and status for failures and waits.
func Describe(s Span) string {
	var parts []string
	switch s.Kind {
	case KindAttempt:
		parts = append(parts, fmt.Sprintf("#%d %s", s.Attempt, s.Provider))
		if s.TTFTMS > 0 {
			parts = append(parts, "ttft "+FormatMS(s.TTFTMS))
		}
		if s.InputTokens+s.OutputTokens > 0 {
			parts = append(parts, fmt.Sprintf("in %d out %d", s.InputTokens, s.OutputTokens))
		}
		if s.CacheTokens > 0 {
			parts = append(parts, fmt.Sprintf("cache %d", s.CacheTokens))
		}
	case KindTool:
		if s.ID != "" {
			parts = append(parts, s.ID)
		}
	}
	if s.HTTPStatus != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", s.HTTPStatus))
	}
	if s.Reason != "" {
		parts = append(parts, s.Reason)
	}
	if s.Detail != "" {
		parts = append(parts, s.Detail)
	}
	return strings.Join(parts, " ")
}

func instant(kind string) bool {
	switch kind {
	case KindFallback, KindRotation, KindSteer, KindCompression, KindGuardrail, KindCheckpoint:
		return true
	}
	return false
}

// Instant reports a span kind drawn as a point rather than a bar.
func Instant(s Span) bool { return s.DurMS == 0 && instant(s.Kind) }

// FormatMS prints a duration given in milliseconds compactly.
func FormatMS(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.2fms", v)
	case v < 1000:
		return fmt.Sprintf("%.0fms", v)
	case v < 60000:
		return fmt.Sprintf("%.2fs", v/1000)
	}
	m := math.Floor(v / 60000)
	return fmt.Sprintf("%.0fm%02.0fs", m, (v-m*60000)/1000)
}

// Bar is one row of a waterfall laid out on a time axis of a given width:
// the span occupies cells [From, To) (To > From; an instant has To =
// From+1).
type Bar struct {
	Span     Span
	From, To int
}

// Layout places every span of l on an axis of width cells.
func Layout(l *Log, width int) []Bar {
	if width < 1 {
		width = 1
	}
	total := l.DurMS
	for _, s := range l.Spans {
		total = max(total, s.End())
	}
	scale := 0.0
	if total > 0 {
		scale = float64(width) / total
	}
	out := make([]Bar, len(l.Spans))
	for i, s := range l.Spans {
		from := int(math.Floor(s.StartMS * scale))
		to := int(math.Ceil(s.End() * scale))
		from = min(max(from, 0), width-1)
		to = min(max(to, from+1), width)
		out[i] = Bar{Span: s, From: from, To: to}
	}
	return out
}
