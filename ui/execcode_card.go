package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// How much of an execute_code card shows.
const (
	// scriptShownLines is how many lines of the script the card shows; a
	// longer one is collapsed, the rest counted (ctrl+t shows it whole).
	scriptShownLines = 5
	// innerShownCalls is how many inner calls the card lists, the last
	// ones; earlier ones are counted by state.
	innerShownCalls = 6
)

// callExtra is what a call's card shows beside its own lane: the hooks
// that ran for it and, for execute_code, its script and inner calls.
type callExtra struct {
	hooks    []hookRun
	children []*toolCall
	// script caches the highlighted script for a width and theme.
	script      []string
	scriptWidth int
	scriptGen   int
}

// ensureExtra returns the call's extras, made on first use.
func (c *toolCall) ensureExtra() *callExtra {
	if c.extra == nil {
		c.extra = &callExtra{}
	}
	return c.extra
}

// callFor places a call no plan announced: an inner call of a script
// nests under its execute_code card (parent_id); any other gets a batch of
// its own.
func (m *Model) callFor(id, name, args, parent string) callRef {
	p, ok := m.live.calls[parent]
	if parent == "" || !ok {
		return m.adHocCall(id, name, args)
	}
	c := &toolCall{id: id, name: name, args: args}
	x := p.call.ensureExtra()
	x.children = append(x.children, c)
	ref := callRef{call: c, batch: p.batch}
	m.live.calls[id] = ref
	p.batch.ver++
	return ref
}

// extraLines are the lines under a call's header before its output: its
// hooks, and an execute_code call's script and inner calls.
func (c *toolCall) extraLines(rc *renderCtx, indent string) []string {
	var out []string
	if c.extra != nil {
		out = append(out, c.hookLines(rc, indent)...)
	}
	if c.name == "execute_code" {
		out = append(out, c.scriptLines(rc, indent)...)
	}
	if c.extra != nil && len(c.extra.children) > 0 {
		out = append(out, c.innerLines(rc, indent)...)
	}
	return out
}

// scriptCode is the code argument of an execute_code call.
func scriptCode(args string) string {
	var a struct {
		Code string `json:"code"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	return strings.TrimRight(a.Code, "\n ")
}

// scriptLines draws the script, syntax-highlighted (Python through the
// theme's markdown code style), its first scriptShownLines lines.
func (c *toolCall) scriptLines(rc *renderCtx, indent string) []string {
	code := scriptCode(c.args)
	if code == "" {
		return nil
	}
	x := c.ensureExtra()
	w := max(1, rc.width-ansi.StringWidth(indent)-2)
	if x.script == nil || x.scriptWidth != w || x.scriptGen != rc.gen {
		x.script, x.scriptWidth, x.scriptGen = highlightPython(rc, sanitize(code), w), w, rc.gen
	}
	bar := rc.st.ToolRule.Render("┆ ")
	var out []string
	for i, l := range x.script {
		if i == scriptShownLines && len(x.script) > scriptShownLines+1 {
			more := fmt.Sprintf("… +%d script lines · ctrl+t shows the script", len(x.script)-i)
			out = append(out, indent+bar+rc.st.Faint.Render(ansi.Truncate(more, w, "…")))
			break
		}
		out = append(out, indent+bar+l)
	}
	return out
}

// highlightPython renders code as a Python block, one screen line per
// source line (cut at w, never wrapped, so the count above is true).
func highlightPython(rc *renderCtx, code string, w int) []string {
	src := strings.Split(strings.ReplaceAll(code, "\t", "    "), "\n")
	plainLines := func() []string {
		out := make([]string, len(src))
		for i, l := range src {
			out[i] = rc.st.ToolArgs.Render(ansi.Truncate(l, w, "…"))
		}
		return out
	}
	if rc.md == nil {
		return plainLines()
	}
	// A width no line reaches: glamour must not wrap them.
	long := 0
	for _, l := range src {
		long = max(long, ansi.StringWidth(l))
	}
	lines := rc.md.renderAt("```python\n"+strings.Join(src, "\n")+"\n```", long+8)
	// Drop the blank margins glamour puts around a block and its left
	// indent, so that line i is source line i.
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) != len(src) {
		return plainLines()
	}
	pad := -1
	for i, l := range lines {
		if strings.TrimSpace(src[i]) == "" {
			continue
		}
		lead := len(ansi.Strip(l)) - len(strings.TrimLeft(ansi.Strip(l), " ")) - (len(src[i]) - len(strings.TrimLeft(src[i], " ")))
		if pad < 0 || lead < pad {
			pad = lead
		}
	}
	pad = max(0, pad)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Truncate(ansi.TruncateLeft(l, pad, ""), w, "…")
	}
	return out
}

// innerLines lists a script's inner calls, one line each with its state,
// the last innerShownCalls of them; a failed or denied one adds its first
// line of output.
func (c *toolCall) innerLines(rc *renderCtx, indent string) []string {
	kids := c.extra.children
	var out []string
	if hidden := len(kids) - innerShownCalls; hidden > 0 {
		ok, bad := 0, 0
		for _, k := range kids[:hidden] {
			switch k.state {
			case toolDone:
				ok++
			case toolFailed, toolDenied, toolCancelled:
				bad++
			}
		}
		note := fmt.Sprintf("… %d earlier inner call%s (%d ok, %d failed or refused)", hidden, plural(hidden), ok, bad)
		out = append(out, indent+rc.st.Faint.Render(ansi.Truncate(note, max(1, rc.width-ansi.StringWidth(indent)), "…")))
		kids = kids[hidden:]
	}
	for _, k := range kids {
		out = append(out, k.card(rc, indent+"↳ ")[0])
		said := false // a hook that blocked it says why
		if k.extra != nil {
			for _, h := range k.extra.hooks {
				if h.failed || h.blocking() {
					out = append(out, h.lines(rc, indent+"    ", "")...)
					said = said || h.blocking()
				}
			}
		}
		if !said && (k.state == toolFailed || k.state == toolDenied) {
			first, _, _ := strings.Cut(strings.TrimSpace(sanitize(toolOutputText(k.output))), "\n")
			if first != "" {
				out = append(out, k.gutter(rc, indent+"    ", []string{first}, 0, false)...)
			}
		}
	}
	return out
}

// extraPagerLines adds what the card shows beside the call in full: the
// script, the hooks and the inner calls.
func (c *toolCall) extraPagerLines(add func(lineKind, string)) {
	if c.name == "execute_code" {
		if code := scriptCode(c.args); code != "" {
			add(kindLabel, "script:")
			add(kindText, code)
		}
	}
	if c.extra == nil {
		return
	}
	for _, h := range c.extra.hooks {
		h.pagerLines(add, "")
	}
	for _, k := range c.extra.children {
		k.pagerLines(add)
	}
}

// scriptSummary is an execute_code call's header preview: the script's
// size (the script itself is shown under it).
func scriptSummary(args string) string {
	code := scriptCode(args)
	if code == "" {
		return ""
	}
	n := strings.Count(code, "\n") + 1
	return fmt.Sprintf("python · %d line%s", n, plural(n))
}
