package ui

import (
	"context"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// Agent is the part of the turn engine the screen drives. *loop.Agent fits
// it through [Adapt].
//
// Run runs one turn and blocks until it ends. Steer and Interrupt may be
// called while Run runs, and should return quickly. The screen calls all
// three from command goroutines, never from Update, so an agent may emit
// events from inside them without deadlocking the screen that drains them.
type Agent interface {
	Run(ctx context.Context, input string) error
	Steer(text string)
	Interrupt()
}

// ResultAgent is an agent whose Run also returns a result value, such as
// *loop.Agent (Run returns loop.Result). See [Adapt].
type ResultAgent[R any] interface {
	Run(ctx context.Context, input string) (R, error)
	Steer(text string)
	Interrupt()
}

// Adapt turns a [ResultAgent] into an [Agent] by dropping Run's result: the
// screen learns everything it shows from events. The type argument is
// inferred: ui.Adapt(agent).
func Adapt[R any](a ResultAgent[R]) Agent { return adapted[R]{a: a} }

type adapted[R any] struct{ a ResultAgent[R] }

func (x adapted[R]) Run(ctx context.Context, input string) error {
	_, err := x.a.Run(ctx, input)
	return err
}

func (x adapted[R]) Steer(text string) { x.a.Steer(text) }
func (x adapted[R]) Interrupt()        { x.a.Interrupt() }

// The values of display.busy_input_mode: what Enter does while a turn runs.
const (
	BusySteer     = "steer"
	BusyQueue     = "queue"
	BusyInterrupt = "interrupt"
)

// Options configure the screen. The wiring fills them; every field but
// Agent and Events is optional.
type Options struct {
	// Agent runs turns. Without one the screen still opens and says so.
	Agent Agent
	// Events carries the agent's events, in order. [EventChannel] makes it
	// together with the loop.Sink to give the agent; the screen drains it
	// in batches. Closing it stops the drain.
	Events <-chan loop.Event

	Provider  string
	Model     string
	Cwd       string
	SessionID string

	// Theme is a theme name (see package themes) or "auto"/"" to follow the
	// terminal background.
	Theme string
	// NoColor drops every colour (NO_COLOR). [Run] sets it when the
	// NO_COLOR environment variable is non-empty.
	NoColor bool
	// BusyInputMode is BusySteer (default), BusyQueue or BusyInterrupt.
	BusyInputMode string
	// MaxIterations is shown in the budget gauge until the first
	// iteration.started event says otherwise.
	MaxIterations int
	// ContextLength is the model's context window in tokens; 0 hides the
	// context percentage.
	ContextLength int
	// History is a resumed session's messages, shown before new turns.
	History []providers.Message
	// InputHistory is the project's saved composer history, oldest
	// first: Up and Ctrl+R reach it from the first frame.
	InputHistory []string

	// Dialogs brings tool approvals and clarify questions to the screen;
	// give its Approve to tools.NewApprover and its Ask to tools.Env.Ask.
	// Nil: nothing is ever asked here.
	Dialogs *Dialogs

	// Commands are the slash commands that need the outside world. A nil
	// callback makes its command answer "not available yet".
	Commands Commands

	// Notice is shown once when the screen opens (e.g. which local server
	// was found, or how to configure a provider).
	Notice string
	// InitialPrompt, when set, is sent as the first message as soon as the
	// screen opens (the --demo tour).
	InitialPrompt string

	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
}

// Commands are callbacks for slash commands that reach beyond the screen.
// Each runs in a command goroutine, never in Update, and may block.
type Commands struct {
	// New starts a new session (/new).
	New func(ctx context.Context) (Session, error)
	// Resume switches to session id (/resume ID, or Enter in the session
	// picker), or to the most recent one when id is empty (/resume when
	// there is no Sessions callback to open the picker with).
	Resume func(ctx context.Context, id string) (Session, error)
	// Sessions lists sessions, most recent first, for the picker that
	// /sessions and /resume open. Without Resume, /sessions prints the list
	// instead.
	Sessions func(ctx context.Context) ([]SessionInfo, error)
	// Search finds the sessions whose messages contain query, for the
	// picker. Each time its filter changes to at least two characters,
	// the picker calls Search with the filter as typed, trimmed (how it
	// matches, case and words, is up to the callback), and lists the
	// listed sessions whose title or id contains the filter first, then
	// the sessions Search returns that are not among them: the first
	// entry per session, in the order given, each with its
	// [SessionInfo].Snippet under its row. For a session the Sessions
	// listing has, the hit needs only ID and Snippet; another needs its
	// other fields too. ctx ends when the filter changes again or the
	// picker closes, and that call's result is ignored; an error shows as
	// a note in the picker. Nil: the picker filters by title and id only.
	Search func(ctx context.Context, query string) ([]SessionInfo, error)
	// Model switches the model; spec is "[provider/]name" (/model).
	Model func(ctx context.Context, spec string) (provider, model string, err error)
	// Compress compresses the context now (/compress). Progress arrives as
	// compression events.
	Compress func(ctx context.Context) error
	// SaveInput keeps one composer input (sent, or a draft cleared with
	// Esc or Ctrl+C) in the project's history across restarts. Nil: the
	// history lasts as long as the screen.
	SaveInput func(text string) error
}

// Session is what /new and /resume switch the screen to.
type Session struct {
	// Agent drives the session; nil keeps the current one.
	Agent Agent
	// Events is the session's event channel; nil keeps the current one.
	Events   <-chan loop.Event
	ID       string
	Provider string
	Model    string
	// History is shown as the transcript.
	History []providers.Message
}

// SessionInfo is one row of the session picker.
type SessionInfo struct {
	ID       string
	Title    string
	Cwd      string
	Updated  time.Time
	Messages int
	// Snippet is the text around a match, from [Commands].Search: one
	// line is shown under the row. Empty in a plain listing.
	Snippet string
}
