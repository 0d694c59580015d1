package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
	"talaria/tools"
)

// Most lines the optional parts of a dialog take.
const (
	summaryLines  = 3
	argLines      = 6
	questionLines = 8
)

// boxPart is a run of lines in a modal box. When the screen is short,
// parts lose lines from their end in order of rank (1 first, 0 never),
// down to keep lines; a box still too tall is cut from the top.
type boxPart struct {
	lines []string
	rank  int
	keep  int
	input bool // the text input: the cursor goes here
	inset int  // columns before the input's text (its prompt)
}

// fitParts joins the parts into at most room lines. It returns the lines
// and the row of the input part (-1 when there is none or it was cut).
func fitParts(room int, parts []boxPart) ([]string, int) {
	room = max(1, room)
	total, top := 0, 0
	for _, p := range parts {
		total += len(p.lines)
		top = max(top, p.rank)
	}
	for rank := 1; rank <= top && total > room; rank++ {
		for i := range parts {
			p := &parts[i]
			if p.rank != rank {
				continue
			}
			if cut := min(total-room, len(p.lines)-p.keep); cut > 0 {
				p.lines = p.lines[:len(p.lines)-cut]
				total -= cut
			}
		}
	}
	var lines []string
	row := -1
	for _, p := range parts {
		if p.input && len(p.lines) > 0 {
			row = len(lines)
		}
		lines = append(lines, p.lines...)
	}
	if over := len(lines) - room; over > 0 {
		lines = lines[over:]
		row -= over
		if row < 0 {
			row = -1
		}
	}
	return lines, row
}

// box fits the parts to the screen, frames them and records where the
// cursor of ed goes when the input part shows.
func (d *modalState) box(env *boxEnv, style lipgloss.Style, parts []boxPart, ed *editor) string {
	lines, row := fitParts(env.high-3, parts) // status line and two borders
	if row >= 0 {
		inset := 0
		for _, p := range parts {
			if p.input {
				inset = p.inset
			}
		}
		x, y := ed.cursor()
		d.cursorX, d.cursorY, d.cursorOK = 2+inset+x, 1+row+y, true
	}
	return style.Width(env.width).Render(strings.Join(lines, "\n"))
}

// approvalStyle frames a destructive command in the error colour.
func approvalStyle(env *boxEnv, r *dialogRequest) lipgloss.Style {
	st := env.st.Composer
	if c := env.theme.Error; r.approval.Destructive && c != nil {
		st = st.BorderForeground(c)
	}
	return st
}

// boxEnv is what a modal box reads of the screen around it.
type boxEnv struct {
	width, high int
	st          *themes.Styles
	theme       *themes.Theme
}

// approvalParts lays out an approval (one with a diff: see diffParts): the tool, what the call does, the
// destructive warning, the arguments, then the choices or the reason
// input. A command is always shown whole (see commandPart); an argument
// is left out only when the summary shows it whole. Everything the model
// wrote is sanitized first.
func (d *modalState) approvalParts(env *boxEnv, r *dialogRequest) []boxPart {
	st, w := *env.st, env.innerWidth()
	req := r.approval
	summary, why := splitDestructive(req)
	summary, why = sanitize(summary), sanitize(why)
	title := st.Strong.Render("Allow ") + st.ToolName.Render(oneLine(req.Tool)) + st.Strong.Render("?") + d.waitingNote(env)
	text, named := commandSummary(req, summary)
	wrapped := wrapText(summary, w)
	whole := !named && len(wrapped) <= summaryLines && !strings.HasSuffix(summary, "…")
	shown := ""
	if whole {
		shown = summary // an argument it shows whole need not be repeated
	}
	var skip []string
	if _, has := commandArg(req.Args); has {
		skip = []string{"command"} // shown on its own, whole
	}
	args := approvalArgs(env, req, shown, w, skip...)
	end := d.approvalEnd(env, r, w)
	// The command gets the room the title, the warning, the choices or
	// the input, the arguments, a blank line and the key hints leave.
	room := env.high - 3 - 1 - partLines(end, 0) - len(args) - 2 // status line and two borders
	if req.Destructive {
		room--
	}
	parts := []boxPart{{lines: []string{ansi.Truncate(title, w, "…")}}}
	if named {
		parts = append(parts, commandPart(env, text, w, room, false))
	} else {
		parts = append(parts, boxPart{lines: styled(st.Text, capLines(wrapped, summaryLines, w)), rank: 3, keep: 1})
		if cmd, has := commandArg(req.Args); has && !(whole && inSummary(summary, cmd)) {
			parts = append(parts, commandPart(env, "command: "+cmd, w, room-1, true))
		}
	}
	if req.Destructive {
		parts = append(parts, boxPart{lines: []string{st.Error.Render(ansi.Truncate("⚠ destructive: "+why, w, "…"))}})
	}
	parts = append(parts, boxPart{lines: args, rank: 1}, boxPart{lines: []string{""}, rank: 2})
	return append(parts, end...)
}

// approvalEnd is the end of an approval box: the choices, or the reason
// input, and the key hints.
func (d *modalState) approvalEnd(env *boxEnv, r *dialogRequest, w int) []boxPart {
	st := *env.st
	if d.typing {
		return []boxPart{
			{lines: []string{st.Text.Render(ansi.Truncate("Tell the model why not (optional):", w, "…"))}, rank: 4},
			inputPart(env, d.input, "› ", "optional reason"),
			d.footer(env, "enter send · esc deny without a reason"),
		}
	}
	opts := dialogOptions(r)
	choices := boxPart{lines: append(d.optionLines(env, opts, w), d.saveLine(env, opts, w)...)}
	return []boxPart{choices, d.footer(env, "↑↓ move · enter confirm · esc deny")}
}

// partLines counts the lines of the parts of the given rank.
func partLines(parts []boxPart, rank int) int {
	n := 0
	for _, p := range parts {
		if p.rank == rank {
			n += len(p.lines)
		}
	}
	return n
}

// clarifyParts lays out a question: the question, then its choices or the
// answer input.
func (d *modalState) clarifyParts(env *boxEnv, r *dialogRequest) []boxPart {
	st, w := *env.st, env.innerWidth()
	parts := []boxPart{
		{lines: []string{ansi.Truncate(st.Accent.Render("Question from the agent")+d.waitingNote(env), w, "…")}},
		{lines: styled(st.Strong, capLines(wrapText(r.question, w), questionLines, w)), rank: 3, keep: 1},
		{lines: []string{""}, rank: 2},
	}
	switch {
	case d.typing && len(r.choices) > 0:
		return append(parts, inputPart(env, d.input, "› ", "type your answer"), d.footer(env, "enter send · esc back to the choices"))
	case d.typing:
		return append(parts, inputPart(env, d.input, "› ", "type your answer"), d.footer(env, "enter send · esc skip the question"))
	}
	opts := dialogOptions(r)
	return append(parts, boxPart{lines: d.optionLines(env, opts, w)}, d.footer(env, fmt.Sprintf("↑↓ move · 1-%d or enter choose · esc skip", len(opts))))
}

// innerWidth is the width inside a modal box's border and padding.
func (e *boxEnv) innerWidth() int { return max(1, e.width-4) }

// waitingNote says how many more questions wait behind this one.
func (d *modalState) waitingNote(env *boxEnv) string {
	if n := len(d.queue) - 1; n > 0 {
		return env.st.Muted.Render(fmt.Sprintf(" · %d more waiting", n))
	}
	return ""
}

// footer is a box's key hint line; it goes early when the screen is
// short. While the question on screen is not armed yet (see
// dialogArmDelay) it is a faint "…".
func (d *modalState) footer(env *boxEnv, text string) boxPart {
	if d.current() != nil && !d.armed {
		text = "…"
	}
	return boxPart{lines: []string{env.st.Faint.Render(ansi.Truncate(text, env.innerWidth(), "…"))}, rank: 2}
}

// optionLines draws the options, numbered, the highlighted one marked; a
// long option wraps under itself.
func (d *modalState) optionLines(env *boxEnv, opts []dialogOption, w int) []string {
	st := *env.st
	var lines []string
	for i, o := range opts {
		label := fmt.Sprintf("%d. %s", i+1, oneLine(d.rememberLabel(o)))
		if o.key != "" {
			label += " (" + o.key + ")"
		}
		for j, l := range wrapText(label, max(1, w-2)) {
			prefix := "  "
			if j == 0 && i == d.sel {
				prefix = "› "
			} else if j > 0 {
				l = "   " + l
			}
			l = ansi.Truncate(prefix+l, w, "…")
			if i == d.sel {
				lines = append(lines, st.PopupSelected.Render(padRight(l, w)))
			} else {
				lines = append(lines, st.Text.Render(l))
			}
		}
	}
	return lines
}

// inputPart draws a text input after its prompt; wrapped rows are
// indented under the text.
func inputPart(env *boxEnv, ed editor, prompt, placeholder string) boxPart {
	st := *env.st
	ed.text, ed.hint, ed.placeholder = st.Text, st.Placeholder, placeholder
	inset := ansi.StringWidth(prompt)
	rows := strings.Split(ed.view(), "\n")
	for i, r := range rows {
		prefix := strings.Repeat(" ", inset)
		if i == 0 {
			prefix = st.UserPrompt.Render(prompt)
		}
		rows[i] = prefix + r
	}
	return boxPart{lines: rows, input: true, inset: inset}
}

// approvalArgs draws the first lines of a call's arguments, long values
// wrapped, leaving out the skipped keys and what the summary already
// says.
func approvalArgs(env *boxEnv, req tools.ApprovalRequest, summary string, w int, skip ...string) []string {
	st, lw := *env.st, max(1, w-2)
	gutter := st.ToolRule.Render("│ ")
	var raw []string
	for _, l := range previewArgs(req.Tool, req.Args, summary, skip...) {
		raw = append(raw, wrapHanging(l, lw)...)
	}
	var out []string
	for i, l := range raw {
		if i == argLines-1 && len(raw) > argLines {
			out = append(out, gutter+st.Faint.Render(fmt.Sprintf("… +%d more lines", len(raw)-i)))
			break
		}
		out = append(out, gutter+st.ToolArgs.Render(l))
	}
	return out
}

// previewArgs turns a call's JSON arguments into plain, sanitized lines:
// "key: value" for short values, a multi-line string under its key,
// indented. The tool's main arguments come first; the skipped keys, and a
// value the summary already shows, are left out.
func previewArgs(tool, args, summary string, skip ...string) []string {
	args = strings.TrimSpace(sanitize(args))
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		if args == "" {
			return nil
		}
		return strings.Split(strings.ReplaceAll(args, "\t", "    "), "\n")
	}
	var lines []string
	for _, k := range argOrder(tool, obj) {
		if slices.Contains(skip, k) {
			continue
		}
		v := obj[k]
		s, isString := v.(string)
		s, k = sanitize(s), sanitize(k) // JSON escapes hid control characters from the first pass
		switch {
		case !isString:
			b, _ := json.Marshal(v)
			lines = append(lines, k+": "+string(b))
		case !strings.Contains(s, "\n"):
			if !inSummary(summary, s) {
				lines = append(lines, k+": "+s)
			}
		default:
			lines = append(lines, k+":")
			for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
				lines = append(lines, "  "+strings.ReplaceAll(l, "\t", "    "))
			}
		}
	}
	return lines
}

// argOrder lists the keys: the tool's main ones first, the rest sorted.
func argOrder(tool string, obj map[string]any) []string {
	var keys []string
	for _, k := range previewKey(tool) {
		if _, ok := obj[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range obj {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// inSummary reports whether v is what the summary names after its verb:
// the command of "Run: CMD", one of the files of "Edit: A, B".
func inSummary(summary, v string) bool {
	_, rest, ok := strings.Cut(summary, ": ")
	if !ok || strings.TrimSpace(v) == "" {
		return false
	}
	if strings.TrimSpace(rest) == strings.TrimSpace(v) {
		return true
	}
	return slices.Contains(strings.Split(rest, ", "), strings.TrimSpace(v))
}

// splitDestructive takes the approver's " [destructive: WHY]" note off the
// summary of a destructive command and returns both.
func splitDestructive(req tools.ApprovalRequest) (summary, why string) {
	summary = req.Summary
	if !req.Destructive {
		return summary, ""
	}
	const mark = " [destructive: "
	if i := strings.LastIndex(summary, mark); i >= 0 && strings.HasSuffix(summary, "]") {
		return summary[:i], summary[i+len(mark) : len(summary)-1]
	}
	return summary, "this command may delete or overwrite data"
}

// wrapHanging wraps s to w columns without losing a character, the
// lines after the first indented by two columns.
func wrapHanging(s string, w int) []string {
	first, _, _ := strings.Cut(ansi.Hardwrap(s, w, true), "\n")
	out := []string{first}
	if rest := s[len(first):]; rest != "" {
		for _, l := range strings.Split(ansi.Hardwrap(rest, max(1, w-2), true), "\n") {
			out = append(out, "  "+l)
		}
	}
	return out
}

// capLines keeps at most n lines, marking a cut with "…".
func capLines(lines []string, n, w int) []string {
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	lines[n-1] = ansi.Truncate(lines[n-1], max(0, w-1), "") + "…"
	return lines
}

// styled renders every line with st.
func styled(st lipgloss.Style, lines []string) []string {
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}
