// Package port holds the values the screen and the session exchange
// through the screen's one port (ui.Port): what a session shows when the
// screen switches to it, the rows of the session picker, the rewind
// points and results, the model lists, the first-run setup's questions
// and answers, the custom commands, and what the port offers at all.
//
// Both sides import it: package ui consumes the port, package loop/app
// implements it (app.Screen), and neither imports the other. It holds
// data only, no behaviour, and imports nothing but providers.
package port

import (
	"errors"
	"time"

	"talaria/providers"
)

// ErrNotAvailable is what a port method answers when the port does not
// offer it (see [Abilities]): the screen says the command is not
// available instead of failing.
var ErrNotAvailable = errors.New("not available here")

// Abilities says what a port offers beyond starting, steering and
// interrupting turns. The screen reads it once when it opens; a false
// field makes its command say it is not available, and the methods behind
// it answer [ErrNotAvailable] or nothing.
type Abilities struct {
	// Images: StartInput takes images with a turn's text.
	Images bool
	// Shell runs the user's own !commands.
	Shell bool
	// CancelCall stops one call of the running batch (x, /cancel).
	CancelCall bool
	// Approvals reads and sets the approvals mode (Shift+Tab,
	// /approvals); the status line shows it.
	Approvals bool
	// New, Resume and Sessions are /new, /resume and /sessions (the
	// picker opens only with both Sessions and Resume; with Sessions
	// alone the list is printed).
	New, Resume, Sessions bool
	// Search is the picker's full-text search over messages.
	Search bool
	// Model switches the model (/model SPEC); Models lists them for
	// /model's picker.
	Model, Models bool
	// Compress is /compress.
	Compress bool
	// SaveInput keeps the composer history across restarts.
	SaveInput bool
	// Rewind is /rewind, /undo and Esc Esc (RewindPoints and Rewind).
	Rewind bool
	// Diff is /diff.
	Diff bool
	// Timeline is /timeline.
	Timeline bool
	// Rename and Fork are /rename and /fork.
	Rename, Fork bool
	// Setup offers the first-run setup dialog (no provider was found).
	Setup bool
	// Extensions are the custom commands, skills, subagents and the
	// project trust question.
	Extensions bool
}

// Session is what the screen shows of a session it switched to (/new,
// /resume, /fork, a rewound conversation, the setup's first session).
// The port and the event channel stay the same: the wiring forwards them
// to the session it switched to.
type Session struct {
	ID       string
	Provider string
	Model    string
	// History is shown as the transcript: the whole history, or its tail
	// when Before is set.
	History []providers.Message
	// Before is how many earlier messages come before History: the
	// screen pages them in with Older when it needs them (the transcript
	// scrolled to its top, the pager, /copy N, print_on_exit: all), so a
	// long session opens holding only its tail. History[0] is message
	// Before of the session.
	Before int
	// Title is the session's stored title ("" when it has none yet): with
	// Before set, the first message shown is not the session's first.
	Title string
	// Usage is the tokens the session used so far (from the store).
	Usage providers.Usage
}

// Page is a run of a session's earlier messages the screen pages in
// (Older): messages From to From+len(Messages)-1 of what the screen's
// Session counted. A page never begins with a tool result (a call and
// its results come together), so it may hold more than asked for.
type Page struct {
	Messages []providers.Message
	From     int
}

// SessionInfo is one row of the session picker.
type SessionInfo struct {
	ID       string
	Title    string
	Cwd      string
	Updated  time.Time
	Messages int
	// Snippet is the text around a match, from a search: one line is
	// shown under the row. Empty in a plain listing.
	Snippet string
}

// RewindPoint is one turn /rewind offers: its user message and the files
// its turn changed ("created a.txt", "changed b.go", …).
type RewindPoint struct {
	Turn  int
	Input string
	Files []string
}

// RewindRequest asks to take the session back to before turn Turn: its
// files (Code), its conversation, or both. Force overwrites files
// changed outside talaria.
type RewindRequest struct {
	Turn         int
	Code         bool
	Conversation bool
	Force        bool
}

// RewindResult is what a rewind did.
type RewindResult struct {
	// Session, when the conversation was rewound, is the session to
	// show: the same one, with its shortened history.
	Session *Session
	// Restored counts the paths written back or removed.
	Restored int
	// Refused lists files changed outside talaria: left as they are
	// unless the rewind is repeated with Force.
	Refused []string
	// Untracked lists files over the size limit, never restored.
	Untracked []string
	// Note says why nothing was restored, when that is the case.
	Note string
}

// ModelList is what /model's picker (and the setup's model step) lists.
type ModelList struct {
	// Provider is the provider the models belong to.
	Provider string
	// Configured are the models named in the configuration (the one in
	// use first); they are listed first.
	Configured []string
	// Listed are the models the provider's endpoint offers.
	Listed []string
	// Note says why Listed is empty or short (the endpoint failed or
	// has none), shown as one line.
	Note string
}
