package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
)

// commandArg returns a call's "command" argument (terminal's), sanitized,
// and whether it has one.
func commandArg(args string) (string, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return "", false
	}
	cmd, ok := obj["command"].(string)
	return sanitize(strings.TrimSpace(cmd)), ok
}

// commandSummary returns the summary to show for a call with a command:
// the tools name the command in the summary ("Run: CMD") but clip it, so
// the clipped command is replaced by the whole one from the arguments.
// ok is false when the summary does not name the command; the command
// is then shown on its own.
func commandSummary(req tools.ApprovalRequest, summary string) (text string, ok bool) {
	cmd, has := commandArg(req.Args)
	verb, rest, named := strings.Cut(summary, ": ")
	if !has || !named || cmd == "" {
		return "", false
	}
	if rest == cmd || strings.HasSuffix(rest, "…") && strings.HasPrefix(cmd, strings.TrimSuffix(rest, "…")) {
		return verb + ": " + cmd, true
	}
	return "", false
}

// fitText wraps text to w columns without losing a character (spaces
// included) and, when it takes more than room lines, keeps its head and
// tail around a line that says how many characters are hidden. It
// returns the lines and the index of that line, -1 when nothing is
// hidden.
func fitText(text string, w, room int) ([]string, int) {
	w, room = max(1, w), max(3, room)
	type line struct {
		text  string
		chars int // its characters, and the newline that ended its source line
	}
	var lines []line
	src := strings.Split(strings.ReplaceAll(text, "\t", "    "), "\n")
	for i, s := range src {
		parts := strings.Split(ansi.Hardwrap(s, w, true), "\n")
		for j, p := range parts {
			l := line{text: p, chars: utf8.RuneCountInString(p)}
			if j == len(parts)-1 && i < len(src)-1 {
				l.chars++
			}
			lines = append(lines, l)
		}
	}
	out := make([]string, 0, min(len(lines), room))
	if len(lines) <= room {
		for _, l := range lines {
			out = append(out, l.text)
		}
		return out, -1
	}
	head := room / 2
	tail := room - 1 - head
	hidden := 0
	for _, l := range lines[head : len(lines)-tail] {
		hidden += l.chars
	}
	for _, l := range lines[:head] {
		out = append(out, l.text)
	}
	out = append(out, ansi.Truncate(fmt.Sprintf("… %d characters hidden …", hidden), w, "…"))
	for _, l := range lines[len(lines)-tail:] {
		out = append(out, l.text)
	}
	return out, head
}

// commandPart draws a command (or the summary naming it) whole, in at
// most room lines: with the characters that do not fit counted on a
// faint line between its head and its tail. It is never cut further.
func commandPart(env *boxEnv, text string, w, room int, gutter bool) boxPart {
	st := env.st
	prefix, style := "", st.Text
	if gutter {
		prefix, style, w = st.ToolRule.Render("│ "), st.ToolArgs, w-2
	}
	lines, marker := fitText(text, w, room)
	for i, l := range lines {
		if i == marker {
			lines[i] = prefix + st.Faint.Render(l)
		} else {
			lines[i] = prefix + style.Render(l)
		}
	}
	return boxPart{lines: lines}
}
