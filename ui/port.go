package ui

import (
	"context"

	"talaria/loop"
	"talaria/loop/port"
	"talaria/loop/trace"
	"talaria/tools"
)

// Port is everything the screen asks of the session: the one way from the
// screen to it. The wiring's app.Screen implements it (over the session
// switcher, so /new and /resume keep the same port); tests give a fake.
//
// What the port offers beyond turns is said once, by Abilities, read when
// the screen opens: a command whose ability is false says it is not
// available, and its methods answer [ErrNotAvailable] (or nothing) if
// called anyway. No method is found by type assertion.
//
// Methods that do I/O run in command goroutines, never in Update, and may
// block; an agent may emit events from inside them without deadlocking
// the screen that drains them. Those the screen calls from Update (said
// per method) must return at once and be safe from another goroutine.
type Port interface {
	// Agent starts, steers and interrupts turns.
	Agent
	// StartInput starts a turn with images as well as text (Abilities.Images).
	StartInput(ctx context.Context, in loop.Input) error
	// CancelCall stops one call of the running batch; false when no such
	// call runs (Abilities.CancelCall).
	CancelCall(id string) bool
	// Shell runs the user's own !command without an approval, its live
	// output going to the writer tools.ContextWithOutput put in ctx
	// (Abilities.Shell).
	Shell(ctx context.Context, command string) (tools.Result, error)

	// ApprovalMode and SetApprovalMode read and set the current session's
	// approvals mode (Abilities.Approvals). Called from Update.
	ApprovalMode() tools.ApprovalMode
	SetApprovalMode(tools.ApprovalMode)
	// MCPStarting lists the MCP servers still starting (the status line
	// shows them); MCPNotices returns news about them once each (a
	// server that could not start, a tool not offered). Called from
	// Update; nil when there is nothing.
	MCPStarting() []string
	MCPNotices() []string

	// New starts a new session (/new).
	New(ctx context.Context) (Session, error)
	// Resume switches to session id (/resume ID, or Enter in the picker),
	// or to the most recent one when id is empty.
	Resume(ctx context.Context, id string) (Session, error)
	// Sessions lists sessions, most recent first, for the picker that
	// /sessions and /resume open.
	Sessions(ctx context.Context) ([]SessionInfo, error)
	// Search finds the sessions whose messages contain query, for the
	// picker. Each time its filter changes to at least two characters,
	// the picker calls Search with the filter as typed, trimmed (how it
	// matches, case and words, is up to the port), and lists the listed
	// sessions whose title or id contains the filter first, then the
	// sessions Search returns that are not among them: the first entry
	// per session, in the order given, each with its
	// [SessionInfo].Snippet under its row. For a session the Sessions
	// listing has, the hit needs only ID and Snippet; another needs its
	// other fields too. ctx ends when the filter changes again or the
	// picker closes, and that call's result is ignored; an error shows
	// as a note in the picker. Without Abilities.Search the picker
	// filters by title and id only.
	Search(ctx context.Context, query string) ([]SessionInfo, error)
	// Rename sets the session's title (/rename TITLE) and returns it as
	// stored.
	Rename(ctx context.Context, title string) (string, error)
	// Fork copies the session (history and checkpoints) into a new one
	// and switches to it (/fork [TITLE]); the original stays as it was.
	Fork(ctx context.Context, title string) (Session, error)
	// Older returns about n of the messages of session that come before
	// index before (a [Session]'s Before, or a Page's From): the screen
	// asks when it needs messages it was not given (see Session.Before).
	// It is called only when a Session said there are some.
	Older(ctx context.Context, session string, before, n int) (Page, error)
	// SaveInput keeps one composer input (sent, or a draft cleared with
	// Esc or Ctrl+C) in the project's history across restarts. Without
	// Abilities.SaveInput the history lasts as long as the screen.
	SaveInput(text string) error

	// Model switches the model; spec is "[provider/]name" (/model).
	Model(ctx context.Context, spec string) (provider, model string, err error)
	// Models lists the current provider's models for /model's picker:
	// the configured ones and what its models endpoint offers. Called
	// once per opening; the port caches. An endpoint that fails is a
	// ModelList with Note set, not an error; an error closes the picker.
	Models(ctx context.Context) (ModelList, error)
	// Compress compresses the context now (/compress). Progress arrives
	// as compression events.
	Compress(ctx context.Context) error

	// RewindPoints lists the session's turns that can be rewound, newest
	// first, for /rewind, /undo and Esc Esc.
	RewindPoints(ctx context.Context) ([]RewindPoint, error)
	// Rewind takes the session back to before a turn (/rewind, /undo).
	// It fails while a turn runs.
	Rewind(ctx context.Context, req RewindRequest) (RewindResult, error)
	// Diff returns the session's changes to the working tree so far as a
	// unified diff (/diff); "" when it changed nothing.
	Diff(ctx context.Context) (string, error)
	// Timeline returns the span log of turn (0: the last one) for
	// /timeline [TURN].
	Timeline(ctx context.Context, turn int) (*trace.Log, error)

	// SetupOffer is what the first-run setup dialog offers
	// (Abilities.Setup).
	SetupOffer() SetupOffer
	// SetupModels lists the models of the provider as req sets it up,
	// for the dialog's model step (see Models).
	SetupModels(ctx context.Context, req SetupRequest) (ModelList, error)
	// SetupApply writes the configuration (and stores req.Key when set)
	// and opens a session with it; the screen switches to that session.
	SetupApply(ctx context.Context, req SetupRequest) (SetupResult, error)

	// CustomCommands lists the current session's custom commands and
	// skills /NAME runs, by name (Abilities.Extensions). Called from
	// Update (the completion popup, /help).
	CustomCommands() []CustomCommand
	// ExpandCommand returns what the model gets for "/NAME args"; ok is
	// false when NAME is none of them. note, when set, is shown to the
	// user. It may read files (@path).
	ExpandCommand(name, args string) (text, note string, ok bool)
	// Skills lists the session's skills; note says what changed on disk
	// since the session began (the next session picks that up).
	Skills() (list []ExtensionItem, note string)
	// Agents lists the subagents delegate_task offers.
	Agents() []ExtensionItem
	// Trust, asked once at start, returns what the project's own
	// settings would add once trusted; nil (or empty) when nothing waits
	// for trust.
	Trust() *TrustRequest
	// TrustProject trusts the project: recorded in the user's
	// trusted_projects and in force at once. It returns the folder.
	TrustProject() (string, error)

	// Abilities says what the port offers beyond turns; read once.
	Abilities() Abilities
}

// ErrNotAvailable is what a [Port] answers for what it does not offer.
var ErrNotAvailable = port.ErrNotAvailable

// The values the port carries (package loop/port, which the wiring
// imports too).
type (
	// Abilities says what a [Port] offers beyond turns.
	Abilities = port.Abilities
	// Session is what /new, /resume, /fork and a rewind switch the screen to.
	Session = port.Session
	// Page is a run of a session's earlier messages (Port.Older).
	Page = port.Page
	// SessionInfo is one row of the session picker.
	SessionInfo = port.SessionInfo
	// RewindPoint is one turn /rewind offers.
	RewindPoint = port.RewindPoint
	// RewindRequest asks to take the session back to before a turn.
	RewindRequest = port.RewindRequest
	// RewindResult is what a rewind did.
	RewindResult = port.RewindResult
	// ModelList is what /model's picker lists.
	ModelList = port.ModelList
	// SetupOffer is what the first-run setup dialog offers.
	SetupOffer = port.SetupOffer
	// SetupProvider is one provider the setup dialog offers.
	SetupProvider = port.SetupProvider
	// SetupRequest is what the setup dialog collected.
	SetupRequest = port.SetupRequest
	// SetupResult is what applying the setup did.
	SetupResult = port.SetupResult
	// CustomCommand is a user's slash command, or a skill run as one.
	CustomCommand = port.CustomCommand
	// ExtensionItem is one skill or subagent /skills or /agents lists.
	ExtensionItem = port.ExtensionItem
	// TrustRequest is what a project's own settings would add once trusted.
	TrustRequest = port.TrustRequest
	// TrustHook is one hook of a project's settings.
	TrustHook = port.TrustHook
	// TrustRule is one permission rule of a project's settings.
	TrustRule = port.TrustRule
)
