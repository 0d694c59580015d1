package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// captures reports whether the composer takes every key, the screen's
// bindings too: the reverse search is open.
func (c *composer) captures() bool { return c.search.active }

// key handles a key the screen's bindings left to the composer: Enter
// sends (submit), Tab completes or queues, Up and Down move in the popup
// or the history, Ctrl+V attaches the clipboard's image, Ctrl+D on an
// empty input quits, Ctrl+R searches the history (and, while searching,
// every key goes to the search), Ctrl+G edits the draft in $EDITOR;
// anything else edits the text.
func (c *composer) key(msg tea.KeyPressMsg, env *composerEnv) composerIntent {
	if c.search.active {
		return c.searchKey(msg)
	}
	switch msg.String() {
	case "ctrl+d":
		if c.value() == "" {
			return composerIntent{kind: composerQuit}
		}
	case "ctrl+r":
		return c.startSearch()
	case "ctrl+g":
		return composerIntent{cmd: c.openEditor()}
	}
	k := env.keys
	switch {
	case key.Matches(msg, k.Send):
		return c.submit(env)
	case key.Matches(msg, k.Tab):
		return c.tab(env)
	case key.Matches(msg, k.Up), key.Matches(msg, k.Down):
		return c.upDown(msg, key.Matches(msg, k.Up), env)
	case key.Matches(msg, k.PasteImage): // an image on the clipboard (attach_clipboard.go)
		return composerIntent{cmd: c.pasteClipboardImage(env)}
	}
	return c.edit(msg)
}

// edit passes a key or a paste to the editor; what depends on the input
// (the completion popup, the composer's height) goes stale.
func (c *composer) edit(msg tea.Msg) composerIntent {
	c.update(msg)
	c.popupClosed = false
	return composerIntent{dirty: dirtyInput}
}

// submit handles Enter: a line continued after a backslash, a completion
// taken, a slash command to run, or a message to send.
func (c *composer) submit(env *composerEnv) composerIntent {
	in := composerIntent{dirty: dirtyChrome}
	if c.ed.continueLine() {
		return in
	}
	if out, ok := c.acceptCompletion(env); ok {
		return in.also(out)
	}
	text := c.expanded()
	if strings.TrimSpace(text) == "" {
		return in
	}
	c.commit(text)
	if name, args, ok := parseCommand(text); ok {
		in.kind, in.text, in.args = composerCommand, name, args
		return in
	}
	in.kind, in.text = composerSend, text
	return in
}

// tab completes what is being typed; otherwise, while busy (a turn or a
// session command runs), it queues the input for the next turn. Blank
// input is not queued.
func (c *composer) tab(env *composerEnv) composerIntent {
	if env.busy && !c.popupOpen(env) {
		text := c.expanded()
		if strings.TrimSpace(text) == "" {
			return composerIntent{}
		}
		c.commit(text)
		return composerIntent{kind: composerQueue, text: text}
	}
	return c.complete(env)
}

// upDown moves in the completion popup, or through the input history
// when the cursor is on the first (Up) or last (Down) line.
func (c *composer) upDown(msg tea.KeyPressMsg, up bool, env *composerEnv) composerIntent {
	switch {
	case c.popupOpen(env):
		c.movePopup(env, up)
	case up && c.onFirstLine():
		c.historyPrev()
	case !up && c.onLastLine():
		c.historyNext()
	default:
		return c.edit(msg)
	}
	return composerIntent{dirty: dirtyChrome}
}

// paste takes a paste: the path of an image file attaches the image, a
// long paste is collapsed to a placeholder (the text is sent whole),
// anything else is typed.
func (c *composer) paste(text string, env *composerEnv) composerIntent {
	if path, ok := imagePathOf(text, env.cwd); ok {
		return composerIntent{cmd: c.pasteImagePath(path, text)} // attach_images.go
	}
	if isLongPaste(text) {
		c.insertPaste(text)
		c.popupClosed = false
		return composerIntent{dirty: dirtyChrome}
	}
	return c.edit(tea.PasteMsg{Content: text})
}
