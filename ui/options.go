package ui

import (
	"context"
	"io"
	"time"

	"talaria/loop"
	"talaria/loop/trace"
	"talaria/providers"
)

// Agent is the part of the turn engine the screen drives; *loop.Agent
// fits it, and so does the wiring's session switcher.
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
	// LiveLines is how many of its last output lines a running tool's lane
	// shows (display.live_lines); 0 means 5.
	LiveLines int
	// MaxIterations is shown in the budget gauge until the first
	// iteration.started event says otherwise.
	MaxIterations int
	// ContextLength is the model's context window in tokens; 0 hides the
	// context percentage.
	ContextLength int
	// History is a resumed session's messages, shown before new turns.
	History []providers.Message
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

	// Commands are the slash commands that need the outside world. A nil
	// callback makes its command answer "not available yet".
	Commands Commands
	// Extensions are the session's custom commands, skills and agents
	// (custom_commands.go); zero: none.
	Extensions Extensions

	// Notice is shown once when the screen opens (e.g. which local server
	// was found, or how to configure a provider).
	Notice string
	// InitialPrompt, when set, is sent as the first message as soon as the
	// screen opens (the --demo tour).
	InitialPrompt string
	// MCPStarting, when set, lists the MCP servers still starting; the
	// status line shows them until none is. Called from Update: it must
	// be quick and safe to call from another goroutine.
	MCPStarting func() []string
	// MCPNotices, when set, returns news about the MCP servers once each
	// (a server that could not start, a tool not offered); the screen
	// shows them as notices. Same rules as MCPStarting.
	MCPNotices func() []string

	// Approvals reads and sets the approvals mode (Shift+Tab, /approvals);
	// the status line shows it. Nil: the mode is not shown nor changed.
	Approvals ApprovalControl
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
	// RewindPoints lists the session's turns that can be rewound, newest
	// first, for /rewind, /undo and Esc Esc.
	RewindPoints func(ctx context.Context) ([]RewindPoint, error)
	// Rewind takes the session back to before a turn (/rewind, /undo).
	// It fails while a turn runs.
	Rewind func(ctx context.Context, req RewindRequest) (RewindResult, error)
	// Diff returns the session's changes to the working tree so far as a
	// unified diff (/diff); "" when it changed nothing.
	Diff func(ctx context.Context) (string, error)
	// Timeline returns the span log of turn (0: the last one) for
	// /timeline [TURN].
	Timeline func(ctx context.Context, turn int) (*trace.Log, error)
	// More: /model's picker, first-run setup, /rename, /fork (model_picker.go).
	More MoreCommands
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

// Session is what /new and /resume switch the screen to. The agent and
// the event channel stay those of [Options]: the wiring forwards them to
// the session it switched to.
type Session struct {
	ID       string
	Provider string
	Model    string
	// History is shown as the transcript.
	History []providers.Message
	// Usage is the tokens the session used so far (from the store).
	Usage providers.Usage
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
