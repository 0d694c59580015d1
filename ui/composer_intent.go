package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/themes"
)

// The composer is a component: it owns its text, cursor, history, chips,
// completion menu and attachments, handles its keys, reads what it needs
// of the screen from a composerEnv, and answers each key, paste or
// result of its own background work with a composerIntent that the root
// carries out (model_composer.go). It never calls the root model.

// composerEnv is what the composer reads of the screen and the session.
type composerEnv struct {
	width int
	st    *themes.Styles
	keys  *keyMap         // the screen's bindings: Send, Tab, Up, Down, PasteImage are the composer's
	ctx   context.Context // the screen's; background work stops with it
	cwd   string          // the working directory: @path and pasted image paths
	model string          // the model in use: a text-only one gets a warning for an image
	busy  bool            // a turn or a session command runs: Tab queues
	term  termEnv         // the display servers, for the clipboard's image
	// customs lists the session's custom commands (the port's; nil
	// without any), offered after the built-in ones.
	customs func() []CustomCommand
}

// composerIntentKind says what the composer asks of the root.
type composerIntentKind uint8

const (
	composerStay    composerIntentKind = iota // nothing beyond what the other fields say
	composerSend                              // send text: a turn, or busy input (BusyInputMode)
	composerCommand                           // run the slash command text with args (also "!" for !cmd)
	composerQueue                             // queue text for the next turn (Tab while busy)
	composerQuit                              // leave (Ctrl+D on an empty input)
)

// composerIntent is what a key, a paste or a background result asks of
// the root: an action (kind), the screen parts it made stale, the
// composer's own background work to run (listing files, reading an
// attachment or the clipboard, the external editor), notices and a hint
// to show, input history to save through the port, and a failure to
// report.
type composerIntent struct {
	kind       composerIntentKind
	text, args string
	dirty      dirty
	cmd        tea.Cmd
	notes      []composerNote
	hint       string
	hintFor    time.Duration
	save       []string // history entries to hand to Port.SaveInput
	errWhat    string   // what failed, for err
	err        error
}

// composerNote is a notice the composer asks the transcript to show.
type composerNote struct {
	kind noticeKind
	text string
}

// composerMsg carries the result of the composer's background work back
// through Update; the root hands it to the composer (apply) and carries
// out the intent it returns.
type composerMsg struct {
	apply func(c *composer, env *composerEnv) composerIntent
}

// also adds b's effects to a: its dirty parts, command, notes, hint,
// history to save and failure (b's kind wins when a's is composerStay).
func (a composerIntent) also(b composerIntent) composerIntent {
	if a.kind == composerStay {
		a.kind, a.text, a.args = b.kind, b.text, b.args
	}
	a.dirty |= b.dirty
	a.cmd = tea.Batch(a.cmd, b.cmd)
	a.notes = append(a.notes, b.notes...)
	if b.hint != "" {
		a.hint, a.hintFor = b.hint, b.hintFor
	}
	a.save = append(a.save, b.save...)
	if b.err != nil {
		a.errWhat, a.err = b.errWhat, b.err
	}
	return a
}

// warn is an intent that only shows a warning.
func warn(text string) composerIntent {
	return composerIntent{notes: []composerNote{{kind: noticeWarn, text: text}}}
}
