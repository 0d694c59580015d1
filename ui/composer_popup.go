package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// popupRows is how many completions the popup shows at most.
const popupRows = 6

// matches returns the commands completing the input, when the input is a
// command name being typed: the built-in ones, then the session's custom
// commands.
func (c *composer) matches(env *composerEnv) []command {
	v := c.value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	prefix := strings.ToLower(v[1:])
	var out []command
	for _, cm := range commandList() {
		if strings.HasPrefix(cm.name, prefix) {
			out = append(out, cm)
		}
	}
	if env.customs == nil {
		return out
	}
	for _, cc := range env.customs() {
		if strings.HasPrefix(strings.ToLower(cc.Name), prefix) {
			out = append(out, command{name: cc.Name, args: cc.ArgumentHint, desc: customDesc(cc)})
		}
	}
	return out
}

// popupOpen reports whether the completion popup shows.
func (c *composer) popupOpen(env *composerEnv) bool {
	return !c.popupClosed && len(c.completions(env)) > 0
}

// closePopup hides the popup until the input changes (Esc).
func (c *composer) closePopup() { c.popupClosed = true }

// movePopup moves the popup selection.
func (c *composer) movePopup(env *composerEnv, up bool) {
	n := len(c.completions(env))
	if up {
		c.popupSel = (c.popupSel - 1 + n) % n
	} else {
		c.popupSel = (c.popupSel + 1) % n
	}
}

// selected returns the highlighted completion.
func (c *composer) selected(env *composerEnv) (completion, bool) {
	cs := c.completions(env)
	if len(cs) == 0 {
		return completion{}, false
	}
	return cs[min(c.popupSel, len(cs)-1)], true
}

// complete fills in the highlighted completion (Tab while idle).
func (c *composer) complete(env *composerEnv) composerIntent {
	cm, ok := c.selected(env)
	if !ok || c.popupClosed {
		return composerIntent{}
	}
	c.setText(cm.text)
	c.popupSel = 0
	return composerIntent{dirty: dirtyChrome, cmd: c.attachFile(env, cm)}
}

// acceptCompletion takes the highlighted completion when Enter is
// pressed: a partly typed command name runs the command, a theme name
// switches to it, a file name is filled in (and attached) without sending.
func (c *composer) acceptCompletion(env *composerEnv) (composerIntent, bool) {
	if !c.popupOpen(env) {
		return composerIntent{}, false
	}
	cm, _ := c.selected(env)
	if cm.text == strings.TrimSpace(c.value()) && cm.kind != completeFile {
		return composerIntent{}, false
	}
	c.popupSel = 0
	switch cm.kind {
	case completeFile:
		c.setText(cm.text)
		return composerIntent{dirty: dirtyChrome, cmd: c.attachFile(env, cm)}, true
	case completeTheme:
		c.commit(cm.text)
		return composerIntent{kind: composerCommand, text: "theme", args: cm.name}, true
	}
	c.commit("/" + cm.name)
	return composerIntent{kind: composerCommand, text: cm.name}, true
}

// popupView draws the completion list (or the reverse search prompt),
// at most rows tall, above the composer.
func (c *composer) popupView(env *composerEnv, rows int) string {
	st, width := env.st, env.width
	if c.search.active {
		return st.Popup.Render(ansi.Truncate(c.searchLine(), max(1, width), "…"))
	}
	if !c.popupOpen(env) {
		return ""
	}
	ms := c.completions(env)
	sel := min(c.popupSel, len(ms)-1)
	rows = min(popupRows, rows)
	if rows <= 0 {
		return ""
	}
	nameW := 24
	for _, cm := range ms {
		nameW = max(nameW, min(ansi.StringWidth(cm.label), width/2))
	}
	start := max(0, sel-rows+1)
	var lines []string
	for i := start; i < len(ms) && i < start+rows; i++ {
		cm := ms[i]
		row := ansi.Truncate(" "+padRight(ansi.Truncate(cm.label, nameW, "…"), nameW)+" "+cm.desc, max(1, width), "…")
		if i == sel {
			lines = append(lines, st.PopupSelected.Render(padRight(row, width)))
		} else {
			lines = append(lines, st.Popup.Render(row))
		}
	}
	return strings.Join(lines, "\n")
}

// padRight pads s with spaces to w columns.
func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
