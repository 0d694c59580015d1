package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapKeepIndent wraps one line (styled or not) to w columns at word
// boundaries, breaking a word only when it is longer than a line, and
// indents the continuation lines like the line itself, so a wrapped code
// line keeps its indentation. An indentation of more than a third of
// the width is not repeated.
func wrapKeepIndent(l string, w int) []string {
	w = max(1, w)
	if ansi.StringWidth(l) <= w {
		return []string{l}
	}
	plain := ansi.Strip(l)
	n := len(plain) - len(strings.TrimLeft(plain, " "))
	if n > w/3 {
		n = 0
	}
	first := strings.Split(ansi.Wrap(l, w, ""), "\n")[0]
	rest := ansi.TruncateLeft(l, ansi.StringWidth(first), "")
	rest = trimStyledLeft(rest)
	out := []string{strings.TrimRight(first, " ")}
	if ansi.Strip(rest) == "" {
		return out
	}
	pad := strings.Repeat(" ", n)
	for _, c := range strings.Split(ansi.Wrap(rest, w-n, ""), "\n") {
		out = append(out, pad+c)
	}
	return out
}

// trimStyledLeft drops the spaces at the start of s, keeping the escape
// sequences among them.
func trimStyledLeft(s string) string {
	var keep strings.Builder
	for len(s) > 0 {
		switch {
		case s[0] == ' ':
			s = s[1:]
		case s[0] == '\x1b':
			n := escapeLen(s)
			if n == 0 {
				return keep.String() + s
			}
			keep.WriteString(s[:n])
			s = s[n:]
		default:
			return keep.String() + s
		}
	}
	return keep.String()
}

// escapeLen is the length of the CSI sequence s starts with, 0 if none.
func escapeLen(s string) int {
	if len(s) < 2 || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	}
	return 0
}
