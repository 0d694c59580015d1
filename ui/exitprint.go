package ui

import (
	"io"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
)

// The values of display.print_on_exit.
const (
	PrintLast = "last"
	PrintAll  = "all"
	PrintNone = "none"
)

// exitWidth is the width the transcript is printed at when the program
// never learnt the terminal's.
const exitWidth = 80

// printOnExit writes the part of the transcript that Options.PrintOnExit
// asks for to the normal screen, once the program has left the alternate
// screen, so it stays in the terminal's scrollback. Colours are
// downsampled to what the output supports (none when it is not a
// terminal).
func (m *Model) printOnExit() {
	text := m.exitTranscript(m.opts.PrintOnExit)
	if text == "" {
		return
	}
	w := m.opts.ExitOutput
	if w == nil {
		w = os.Stdout
	}
	writeExit(w, text)
}

func writeExit(w io.Writer, text string) {
	_, _ = lipgloss.Fprint(w, text+"\n")
}

// exitTranscript renders the transcript for the normal screen: from the
// last user message on (mode last, the default) or all of it (mode all);
// "" for mode none or when nothing was said. User messages, answers and
// notices are drawn as on the screen; a tool call is its one summary
// line; reasoning is left out.
func (m *Model) exitTranscript(mode string) string {
	if mode == PrintNone {
		return ""
	}
	its := make([]item, 0, len(m.tr.entries))
	for _, e := range m.tr.entries {
		its = append(its, e.it)
	}
	start := -1
	for i := len(its) - 1; i >= 0; i-- {
		if u, ok := its[i].(*userItem); ok && !u.steer {
			start = i
			break
		}
	}
	if start < 0 && m.older.before == 0 {
		return "" // nothing was asked: no point printing notices
	}
	if mode == PrintAll {
		// The messages the screen was not given come first, read now.
		older, err := m.olderItems()
		if err != nil {
			older = []item{&noticeItem{kind: noticeWarn, text: "earlier messages could not be read: " + errText(err)}}
		}
		its, start = append(older, its...), 0
	} else if start < 0 {
		return ""
	}
	rc := m.renderCtx()
	if rc.width <= 0 {
		rc.width = exitWidth
	}
	rc.showReasoning = false
	var out []string
	for _, it := range its[start:] {
		var ls []string
		switch it := it.(type) {
		case *reasoningItem:
			continue
		case *toolBatch:
			for _, s := range it.segments {
				for _, c := range s.calls {
					ls = append(ls, c.card(rc, "")[0])
				}
			}
		default:
			ls = it.render(rc)
		}
		if len(ls) == 0 {
			continue
		}
		out = append(out, ls...)
		out = append(out, "")
	}
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}
