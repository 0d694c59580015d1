package ui

import (
	"context"
	"io"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// Agent is the turn part of the [Port]: what the screen drives a turn
// with.
//
// Start starts one turn and returns at once: the turn speaks only through
// the events, and ends with turn.finished; an error means no turn began
// (loop.ErrBusy, or no session). Steer returns the id that steer.queued and
// steer.delivered carry. The screen calls all three from command
// goroutines, never from Update, so an agent may emit events from inside
// them without deadlocking the screen that drains them.
type Agent interface {
	Start(ctx context.Context, input string) error
	Steer(text string) int
	Interrupt()
}

// The values of display.busy_input_mode: what Enter does while a turn runs.
const (
	BusySteer     = "steer"
	BusyQueue     = "queue"
	BusyInterrupt = "interrupt"
)

// Options configure the screen. The wiring fills them; every field but
// Port and Events is optional.
type Options struct {
	// Port is the way to the session: turns, slash commands that reach
	// beyond the screen, approvals, extensions. Without one the screen
	// still opens and says so.
	Port Port
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
	// LiveLines is how many of its last output lines a running tool's lane
	// shows (display.live_lines); 0 means 5.
	LiveLines int
	// MaxIterations is shown in the budget gauge until the first
	// iteration.started event says otherwise.
	MaxIterations int
	// ContextLength is the model's context window in tokens; 0 hides the
	// context percentage.
	ContextLength int
	// History is a resumed session's messages, shown before new turns:
	// all of them, or the last ones when HistoryBefore is set.
	History []providers.Message
	// HistoryBefore is how many of the session's messages come before
	// History: the screen pages them in through Port.Older as it needs
	// them (see Session.Before).
	HistoryBefore int
	// Title is the session's stored title, shown in the status line
	// (else it is taken from the first user message of History).
	Title string
	// Usage is the tokens a resumed session used before (from the store):
	// the footer, its cost and /usage count on from it.
	Usage providers.Usage
	// InputHistory is the project's saved composer history, oldest
	// first: Up and Ctrl+R reach it from the first frame.
	InputHistory []string

	// Dialogs brings tool approvals and clarify questions to the screen;
	// give its Approve to tools.NewApprover and its Ask to tools.Env.Ask.
	// Nil: nothing is ever asked here.
	Dialogs *Dialogs

	// Notice is shown once when the screen opens (e.g. which local server
	// was found, or how to configure a provider).
	Notice string
	// InitialPrompt, when set, is sent as the first message as soon as the
	// screen opens (the --demo tour).
	InitialPrompt string
	// Sandbox is the sandbox mode the status line shows ("" or "off":
	// none).
	Sandbox string

	// PrintOnExit is display.print_on_exit: after the program leaves the
	// alternate screen, [Run] prints the last turn ("last" or ""), the
	// whole transcript ("all") or nothing ("none") to ExitOutput.
	PrintOnExit string
	// ExitOutput receives what PrintOnExit prints; nil means os.Stdout.
	ExitOutput io.Writer
	// MouseOff leaves the mouse to the terminal from the start
	// (display.mouse: false); Ctrl+S still toggles it.
	MouseOff bool
	// Notify configures desktop notifications when a long turn ends or a
	// question waits (the notifications section).
	Notify NotifyOptions

	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
}
