package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

// Long pastes are collapsed to a placeholder above these sizes.
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

// composerMaxRows is how tall the input grows before it scrolls.
const composerMaxRows = 8

// composer is the input box: an editor plus input history, collapsed
// pastes, attachments and the completion popup. It is a component (see
// composer_intent.go): the root hands it keys and an env, and carries out
// the intent it answers.
type composer struct {
	ed      editor
	history []string
	histIdx int    // len(history) while editing a fresh draft
	draft   string // the draft saved while browsing history
	pastes  []paste
	pasteN  int // long pastes so far; numbers their labels

	unsaved []string          // history entries not yet handed to Port.SaveInput
	search  histSearch        // Ctrl+R reverse search, when active
	attach  map[string]string // @path → file text, read when the completion was taken

	born       time.Time         // when the screen was made (see typeahead)
	sentAttach map[string]string // the attachments of the input just sent
	shellOut   []string          // !cmd outputs for the next message
	files      fileList          // the working directory, for @path
	attaching  map[string]bool   // @paths being read (attachTyped)

	images     []attachedImage // pasted or from the clipboard, shown as chips
	sentImages []attachedImage // the images of the input just sent
	chip       lipgloss.Style

	popupSel    int  // the highlighted completion
	popupClosed bool // Esc hid the popup; typing shows it again
}

// paste is a long paste shown as its label and sent as its text.
type paste struct {
	label string
	text  string
}

// placeholder is the empty composer's hint.
const placeholder = "Ask anything · / for commands · shift+enter or ctrl+j for a newline"

// newComposer builds an empty composer.
func newComposer() composer {
	ed := newEditor(composerMaxRows)
	ed.placeholder = placeholder
	return composer{ed: ed}
}

// setStyles colours the editor from the theme. Without colours the hint
// would read as typed text, so it gets a leading "› " and faint type.
func (c *composer) setStyles(st themes.Styles, noColor bool) {
	c.ed.text, c.ed.hint = st.Text, st.Placeholder
	c.chip = st.Accent
	c.ed.placeholder = placeholder
	if noColor {
		c.ed.placeholder = "› " + placeholder
		c.ed.hint = st.Placeholder.Faint(true)
	}
}

// setWidth fits the editor inside the composer box (border and padding
// take four columns).
func (c *composer) setWidth(w int) { c.ed.setWidth(max(4, w-4)) }

// update passes a key or a paste to the editor.
func (c *composer) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if msg.String() == "backspace" && c.ed.value() == "" && len(c.images) > 0 {
			c.images = c.images[:len(c.images)-1] // backspace on an empty input drops the last image
			return nil
		}
		if msg.Text == "#" {
			c.joinRange()
		}
		c.ed.update(msg)
	case tea.PasteMsg:
		c.ed.insert(normalizeNewlines(msg.Content))
	}
	return nil
}

// joinRange takes back the space the finder put after an @path when a #
// is typed right after it, so that "@a.go #L10" becomes "@a.go#L10".
func (c *composer) joinRange() {
	v := c.ed.value()
	line := c.ed.lines[c.ed.row]
	if c.ed.col != len(line) || c.ed.row != len(c.ed.lines)-1 || !strings.HasSuffix(v, " ") {
		return
	}
	if w := lastWord(strings.TrimSuffix(v, " ")); strings.HasPrefix(w, "@") && !strings.Contains(w, "#") {
		c.ed.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
}

// value returns the raw text, placeholders included.
func (c *composer) value() string { return c.ed.value() }

// expanded returns the text to send: each paste placeholder still present
// is replaced by its pasted text. Labels are unique (see insertPaste), so
// a placeholder always stands for its own paste.
func (c *composer) expanded() string {
	v := c.ed.value()
	for _, p := range c.pastes {
		v = strings.Replace(v, p.label, p.text, 1)
	}
	return v
}

// insertPaste inserts a placeholder for a long paste. Its label is new
// for this input, numbered after the first ("[pasted 30 lines #2]"), and
// pastes whose placeholder was deleted are forgotten.
func (c *composer) insertPaste(text string) {
	text = normalizeNewlines(text)
	n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	v := c.ed.value() + "\n" + c.draft // a draft saved while browsing history keeps its pastes
	kept := c.pastes[:0]
	for _, p := range c.pastes {
		if strings.Contains(v, p.label) {
			kept = append(kept, p)
		}
	}
	c.pastes = kept
	var label string
	for label == "" || strings.Contains(v, label) {
		c.pasteN++
		label = fmt.Sprintf("[pasted %d lines]", n)
		if c.pasteN > 1 {
			label = fmt.Sprintf("[pasted %d lines #%d]", n, c.pasteN)
		}
	}
	c.pastes = append(c.pastes, paste{label: label, text: text})
	c.ed.insert(label)
}

// isLongPaste reports whether a paste is collapsed to a placeholder.
func isLongPaste(s string) bool {
	s = normalizeNewlines(s)
	return len(s) > pasteMaxChars || strings.Count(strings.TrimRight(s, "\n"), "\n")+1 > pasteMaxLines
}

// normalizeNewlines turns CRLF and lone CR line endings into LF. tmux's
// paste-buffer and many terminals send CR between pasted lines; without
// this a 300-line paste would count (and reach the model) as one line.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// commit records sent text in the history and empties the input.
func (c *composer) commit(text string) {
	c.remember(text)
	c.clear()
}

// discard empties the input (Esc, Ctrl+C) but keeps a non-blank draft in
// the history, so Up brings it back.
func (c *composer) discard() {
	if text := c.expanded(); strings.TrimSpace(text) != "" {
		c.remember(text)
	}
	c.clear()
	c.sentAttach, c.sentImages = nil, nil
}

// remember appends text to the history unless it repeats the newest
// entry, and marks it for saving.
func (c *composer) remember(text string) {
	if n := len(c.history); n == 0 || c.history[n-1] != text {
		c.history = append(c.history, text)
		c.unsaved = append(c.unsaved, text)
	}
}

// clear empties the input and forgets pastes and history browsing.
func (c *composer) clear() {
	c.ed.setValue("")
	c.pastes, c.pasteN = nil, 0
	c.sentAttach, c.attach, c.attaching = c.attach, nil, nil
	c.sentImages, c.images = c.images, nil
	c.histIdx = len(c.history)
	c.draft = ""
}

// setText replaces the input, cursor at the end.
func (c *composer) setText(s string) {
	c.ed.setValue(s)
}

// historyPrev recalls the previous sent input, saving the draft first.
func (c *composer) historyPrev() {
	if c.histIdx == 0 || len(c.history) == 0 {
		return
	}
	if c.histIdx >= len(c.history) {
		c.histIdx = len(c.history)
		c.draft = c.ed.value()
	}
	c.histIdx--
	c.setText(c.history[c.histIdx])
}

// historyNext moves forward in history, back to the draft at the end.
func (c *composer) historyNext() {
	if c.histIdx >= len(c.history) {
		return
	}
	c.histIdx++
	if c.histIdx == len(c.history) {
		c.setText(c.draft)
		return
	}
	c.setText(c.history[c.histIdx])
}

// onFirstLine reports whether the cursor is on the input's first row.
func (c *composer) onFirstLine() bool { return c.ed.onFirstRow() }

// onLastLine reports whether the cursor is on the input's last row.
func (c *composer) onLastLine() bool { return c.ed.onLastRow() }

// cursor is the cursor position inside the composer's view (below the
// chips, when there are some).
func (c *composer) cursor() (x, y int) {
	x, y = c.ed.cursor()
	if c.chipsLine() != "" {
		y++
	}
	return x, y
}

// view renders the attachments' chips, if any, above the editor.
func (c *composer) view() string {
	if chips := c.chipsLine(); chips != "" {
		return chips + "\n" + c.ed.view()
	}
	return c.ed.view()
}

// box draws the input box, width wide; its border dims while a turn runs.
func (c *composer) box(st *themes.Styles, busy bool, width int) string {
	style := st.Composer
	if busy {
		style = st.ComposerBusy
	}
	return style.Width(width).Render(c.view())
}

// chipsLine is one row of chips, the attached images then the attached
// files the input names, cut at the editor's width.
func (c *composer) chipsLine() string {
	var chips []string
	for _, im := range c.images {
		chips = append(chips, im.chip())
	}
	chips = append(chips, c.fileChips()...)
	if len(chips) == 0 {
		return ""
	}
	for i, ch := range chips {
		chips[i] = "[" + ch + "]"
	}
	return c.chip.Render(ansi.Truncate(strings.Join(chips, " "), c.ed.width, "…"))
}
