package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
	"talaria/tools/lsp"
)

// toolState is where a tool call is in its life.
type toolState int

const (
	toolPending toolState = iota
	toolRunning
	toolDone
	toolFailed
	toolCancelled
	toolDenied // the approval refused it: it never ran
)

// Output preview sizes: diffs from writers get more room.
const (
	previewLines     = 4
	diffPreviewLines = 12
)

// spinner returns the spinner glyph for an animation frame.
func spinner(frame int) string {
	frames := [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	return frames[frame%len(frames)]
}

// toolCall is one call on a card.
type toolCall struct {
	id, name, args string
	state          toolState
	started        time.Time
	dur            time.Duration
	output         string
	// diff is the unified diff the call applied (write_file, patch).
	diff string
	// diags are the language servers' diagnostics of the files it wrote.
	diags []lsp.Diagnostic
	// live holds the last lines of its live output (tool.output); full
	// keeps that stream, capped, for the pager.
	live lineRing
	full tailBuf
	// body caches the lines under the header once the call has a result.
	body resultCache
	// focused marks the lane the cancel key acts on.
	focused bool
	// awaiting marks the queued call whose approval is on screen.
	awaiting bool
	// user marks the user's own !cmd: its card shows more output.
	user bool
	// guard is the guardrail's note about this call, shown on its card.
	guard string
	// extra holds the hooks that ran for the call and, for execute_code,
	// its inner calls and script (hook_card.go, execcode_card.go).
	extra *callExtra
}

// toolSegment is one segment of a batch: its calls run together
// (parallel) or one after another (sequential).
type toolSegment struct {
	mode  string
	calls []*toolCall
}

// toolBatch is one model response's tool calls, as planned: a lane per
// call, grouped by segment in execution order.
type toolBatch struct {
	segments []*toolSegment
	ver      int
}

func (b *toolBatch) version() int { return b.ver }

// live reports whether a call is running (its spinner and elapsed time
// change every frame).
func (b *toolBatch) live() bool {
	for _, s := range b.segments {
		for _, c := range s.calls {
			if c.state == toolRunning {
				return true
			}
		}
	}
	return false
}

// counts returns the number of calls and of finished calls.
func (b *toolBatch) counts() (total, finished int) {
	for _, s := range b.segments {
		for _, c := range s.calls {
			total++
			if c.state >= toolDone {
				finished++
			}
		}
	}
	return total, finished
}

func (b *toolBatch) render(rc *renderCtx) []string {
	total, _ := b.counts()
	grouped := len(b.segments) > 1 || total > 1
	var out []string
	indent := ""
	if grouped {
		head := fmt.Sprintf("⚙ %d tool calls · %d segment%s", total, len(b.segments), plural(len(b.segments)))
		out = append(out, rc.st.ToolName.Render(head))
		indent = "  "
	}
	for i, s := range b.segments {
		if grouped {
			arrow := "→"
			if s.mode == "parallel" {
				arrow = "⇉"
			}
			out = append(out, indent+rc.st.Segment.Render(fmt.Sprintf("%s segment %d/%d · %s", arrow, i+1, len(b.segments), s.mode)))
		}
		for _, c := range s.calls {
			out = append(out, c.card(rc, indent+indentIf(grouped))...)
		}
	}
	return out
}

func indentIf(b bool) string {
	if b {
		return "  "
	}
	return ""
}

// card renders one call: status glyph, name, argument preview, elapsed
// time, then its last lines of output (live while it runs) or the diff it
// applied.
func (c *toolCall) card(rc *renderCtx, indent string) []string {
	st := rc.st
	glyph, status := "·", "queued"
	gstyle, sstyle := st.Faint, st.Faint
	if c.awaiting && c.state == toolPending {
		status, sstyle = "awaiting approval", st.Warning
	}
	switch c.state {
	case toolRunning:
		glyph, gstyle, sstyle = spinner(rc.frame), st.Accent, st.Muted
		status = fmtDuration(rc.now.Sub(c.started))
	case toolDone:
		glyph, gstyle, sstyle, status = "✓", st.Success, st.Muted, fmtDuration(c.dur)
		if c.dur == 0 && c.started.IsZero() {
			status = "done" // from a resumed history: no timing known
		}
	case toolFailed:
		glyph, gstyle, sstyle, status = "✗", st.Error, st.Error, "failed · "+fmtDuration(c.dur)
		if c.dur == 0 && c.started.IsZero() {
			status = "failed" // from a resumed history: no timing known
		}
	case toolCancelled:
		glyph, gstyle, sstyle, status = "⊘", st.Warning, st.Warning, "cancelled"
		if tools.IsStopReceipt(c.output) {
			status = "stopped by you · " + fmtDuration(c.dur)
		}
	case toolDenied:
		glyph, gstyle, sstyle, status = "⊘", st.Warning, st.Warning, "denied"
	}
	mark := ""
	if c.focused {
		mark = "› "
	}
	room := rc.width - ansi.StringWidth(indent) - ansi.StringWidth(mark) - 2 - ansi.StringWidth(status) - 1
	name := ansi.Truncate(oneLine(c.name), max(1, room), "…")
	args := ansi.Truncate(argPreview(c.name, c.args), max(0, room-ansi.StringWidth(name)-1), "…")
	left := gstyle.Render(glyph) + " " + st.ToolName.Render(name)
	if args != "" {
		left += " " + st.ToolArgs.Render(args)
	}
	if mark != "" {
		left = st.Accent.Render(mark) + left
	}
	gap := max(1, rc.width-ansi.StringWidth(indent)-ansi.StringWidth(left)-ansi.StringWidth(status))
	lines := []string{indent + left + strings.Repeat(" ", gap) + sstyle.Render(status)}
	lines = append(lines, c.extraLines(rc, indent+"  ")...)
	if c.state == toolRunning || (c.state == toolCancelled && c.output == "") {
		return append(lines, c.liveLines(rc, indent+"  ")...)
	}
	return append(append(lines, c.result(rc, indent+"  ")...), c.guardLines(rc, indent+"  ")...)
}

// liveLines renders the last lines of the live output.
func (c *toolCall) liveLines(rc *renderCtx, indent string) []string {
	n := rc.liveLines
	if n <= 0 {
		n = defaultLiveLines
	}
	return c.gutter(rc, indent, c.live.last(n), c.live.total()-min(n, c.live.total()), false)
}

// gutter draws output lines under a lane, after a note on the hidden
// earlier lines when there are any.
func (c *toolCall) gutter(rc *renderCtx, indent string, ls []string, hidden int, diff bool) []string {
	w := max(1, rc.width-ansi.StringWidth(indent)-2)
	bar := rc.st.ToolRule.Render("│ ")
	var out []string
	if hidden > 0 {
		out = append(out, indent+bar+rc.st.Faint.Render(ansi.Truncate(fmt.Sprintf("… %d earlier line%s · ctrl+t full output", hidden, plural(hidden)), w, "…")))
	}
	for _, l := range ls {
		l = ansi.Truncate(strings.ReplaceAll(sanitize(l), "\t", "    "), w, "…")
		out = append(out, indent+bar+outputStyle(rc, l, diff))
	}
	return out
}

// diffPreview renders the first lines of the applied diff, coloured.
func (c *toolCall) diffPreview(rc *renderCtx, indent string) []string {
	all := cardDiffLines(c.diff)
	a, r := tools.DiffStats(c.diff)
	head := []string{fmt.Sprintf("+%d -%d", a, r)}
	if len(all) <= diffPreviewLines {
		return c.gutter(rc, indent, append(head, all...), 0, true)
	}
	out := c.gutter(rc, indent, append(head, all[:diffPreviewLines]...), 0, true)
	more := fmt.Sprintf("… +%d diff lines · ctrl+t full diff", len(all)-diffPreviewLines)
	return append(out, indent+rc.st.ToolRule.Render("│ ")+rc.st.Faint.Render(ansi.Truncate(more, max(1, rc.width-ansi.StringWidth(indent)-2), "…")))
}

// preview renders the output of a finished call: the last lines (the end
// of a test run is what matters), or for a failed call its first lines
// wrapped whole, with a pointer to the pager for the rest.
func (c *toolCall) preview(rc *renderCtx, indent string) []string {
	out := strings.TrimRight(sanitize(toolOutputText(tools.StripAnnotation(c.output))), "\n ")
	if strings.TrimSpace(out) == "" {
		return nil
	}
	w := max(1, rc.width-ansi.StringWidth(indent)-2)
	diff := isWriter(c.name)
	limit := previewLines
	if diff {
		limit = diffPreviewLines
	}
	all := strings.Split(out, "\n")
	if c.state == toolFailed || diff {
		// An error reads from its start; wrap it rather than cut it.
		var wrapped []string
		for _, l := range all {
			wrapped = append(wrapped, wrapKeepIndent(strings.ReplaceAll(l, "\t", "    "), w)...)
		}
		if len(wrapped) <= limit {
			return c.gutter(rc, indent, wrapped, 0, diff)
		}
		lines := c.gutter(rc, indent, wrapped[:limit], 0, diff)
		more := fmt.Sprintf("… +%d lines · ctrl+t shows the rest", len(wrapped)-limit)
		return append(lines, indent+rc.st.ToolRule.Render("│ ")+rc.st.Faint.Render(ansi.Truncate(more, w, "…")))
	}
	if !c.tails() {
		if len(all) <= limit+1 {
			return c.gutter(rc, indent, all, 0, false)
		}
		lines := c.gutter(rc, indent, all[:limit], 0, false)
		more := fmt.Sprintf("… +%d lines · ctrl+t full output", len(all)-limit)
		return append(lines, indent+rc.st.ToolRule.Render("│ ")+rc.st.Faint.Render(ansi.Truncate(more, w, "…")))
	}
	n := rc.liveLines
	if n <= 0 {
		n = defaultLiveLines
	}
	n = max(n, previewLines)
	if c.user {
		n = shellShownLines
	}
	if len(all) <= n+1 {
		return c.gutter(rc, indent, all, 0, false)
	}
	return c.gutter(rc, indent, all[len(all)-n:], len(all)-n, false)
}

// tails reports whether the end of the call's output matters more than
// its start: commands, processes, children and anything that streamed.
func (c *toolCall) tails() bool {
	switch c.name {
	case "terminal", "process", "delegate_task", "!":
		return true
	}
	return c.live.total() > 0
}

// cardDiffLines are a diff's lines with each "--- a/X" "+++ b/Y" header
// pair folded into one "▸ Y" line (or "▸ X → Y" for a move): the card
// names the files once.
func cardDiffLines(diff string) []string {
	all := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	out := make([]string, 0, len(all))
	for i := 0; i < len(all); i++ {
		l := all[i]
		if strings.HasPrefix(l, "--- ") && i+1 < len(all) && strings.HasPrefix(all[i+1], "+++ ") {
			from := strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
			to := strings.TrimPrefix(strings.TrimPrefix(all[i+1], "+++ "), "b/")
			switch {
			case to == "/dev/null":
				out = append(out, "▸ "+from+" (deleted)")
			case from == "/dev/null":
				out = append(out, "▸ "+to+" (new)")
			case from != to:
				out = append(out, "▸ "+from+" → "+to)
			default:
				out = append(out, "▸ "+to)
			}
			i++
			continue
		}
		out = append(out, l)
	}
	return out
}

// outputStyle colours one preview line.
func outputStyle(rc *renderCtx, l string, diff bool) string {
	switch {
	case !diff:
		return rc.st.ToolOutput.Render(l)
	case strings.HasPrefix(l, "@@"):
		return rc.st.DiffHunk.Render(l)
	case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
		return rc.st.DiffAdd.Render(l)
	case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
		return rc.st.DiffDel.Render(l)
	}
	return rc.st.ToolOutput.Render(l)
}

// isWriter reports whether a tool's output is a diff.
func isWriter(name string) bool { return name == "write_file" || name == "patch" }

// previewKeys names the argument that best describes a call of each core
// tool.
func previewKey(name string) []string {
	switch name {
	case "read_file", "write_file", "patch":
		return []string{"path"}
	case "search_files":
		return []string{"pattern", "path"}
	case "terminal", "!":
		return []string{"command"}
	case "process":
		return []string{"action", "id"}
	case "clarify":
		return []string{"question"}
	case "session_search":
		return []string{"query"}
	case "delegate_task":
		return []string{"goal"}
	}
	return nil
}

// argPreview is a one-line summary of a call's JSON arguments.
func argPreview(name, args string) string {
	if name == "execute_code" {
		return scriptSummary(args)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		return oneLine(args)
	}
	if s, ok := targetPreview(name, m); ok {
		return oneLine(s)
	}
	var parts []string
	for _, k := range previewKey(name) {
		if v, ok := m[k]; ok {
			parts = append(parts, scalar(v))
		}
	}
	if len(parts) > 0 {
		return oneLine(strings.Join(parts, " "))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+scalar(m[k]))
	}
	return oneLine(strings.Join(parts, " "))
}

// scalar prints a JSON value briefly.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64, bool, nil:
		return fmt.Sprint(v)
	case []any:
		return fmt.Sprintf("[%d items]", len(v))
	default:
		return "{…}"
	}
}

// oneLine sanitizes s (see sanitize) and collapses its whitespace so a
// value fits on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(sanitize(s)), " ") }

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// fmtDuration prints a duration the way the panes do: 40ms, 2.4s, 12s,
// 3m05s.
func fmtDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
