package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
	"talaria/themes"
)

// TestWrappedCodeLineKeepsIndentation: a code line too long for a 60-column
// screen, inside a fenced Go block of an answer, wraps onto rows indented
// like the line itself (glamour wrapped code at the margin: the rest of
// the line started in the answer's first column).
func TestWrappedCodeLineKeepsIndentation(t *testing.T) {
	const answer = "Here is the fix:\n\n```go\nfunc load(path string) error {\n" +
		"\tif err := validate(path); err != nil {\n" +
		"\t\treturn fmt.Errorf(\"loading the configuration from %s failed: %w\", path, err)\n" +
		"\t}\n\treturn nil\n}\n```\n\nThat is all.\n"
	for _, streamed := range []bool{false, true} {
		clk := &clock{now: t0}
		m := streamModel(t, clk)
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
		if streamed {
			streamThrough(m, clk, answer)
		} else {
			m.Update(eventsMsg{evs: []loop.Event{
				&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: answer, FinishReason: "stop"},
				&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true, FinalResponse: answer, APICalls: 1},
			}})
		}
		rows := strings.Split(ansi.Strip(m.View().Content), "\n")
		at := -1
		for i, r := range rows {
			if strings.Contains(r, "return fmt.Errorf(") {
				at = i
			}
		}
		if at < 0 || at+1 >= len(rows) {
			t.Fatalf("streamed %v: the long line is not on screen:\n%s", streamed, strings.Join(rows, "\n"))
		}
		indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
		line, next := rows[at], rows[at+1]
		if strings.TrimSpace(next) == "" || strings.Contains(next, "}") && !strings.Contains(next, "err)") {
			t.Fatalf("streamed %v: the long line did not wrap onto the next row:\n%s\n%s", streamed, line, next)
		}
		if indent(next) < indent(line) {
			t.Errorf("streamed %v: the continuation row is indented %d, the line %d:\n%s\n%s", streamed, indent(next), indent(line), line, next)
		}
		if ansi.StringWidth(line) > 60 || ansi.StringWidth(next) > 60 {
			t.Errorf("streamed %v: a row is wider than the screen:\n%s\n%s", streamed, line, next)
		}
	}
}

// TestWrappedCodeRowsCloseTheirStyle: each row of a wrapped code line ends
// its style, so the colour of a string cut by the wrap does not run on
// into what the screen draws after the row.
func TestWrappedCodeRowsCloseTheirStyle(t *testing.T) {
	th, _ := themes.Lookup("dark")
	md := newMarkdown(th.Glamour())
	lines := md.render("```go\nfunc f() {\n\t\treturn fmt.Errorf(\"loading the configuration from %s failed: %w\", path, err)\n}\n```\n", 58)
	wrapped := 0
	for _, l := range lines {
		if strings.Contains(l, "\x1b[") && !strings.HasSuffix(l, "\x1b[m") {
			t.Errorf("a row leaves its style open: %q", l)
		}
		if strings.Contains(ansi.Strip(l), "loading the") {
			wrapped++
		}
	}
	if len(lines) != 4 || wrapped != 1 {
		t.Fatalf("want the long line wrapped onto two rows: %q", lines)
	}
}
