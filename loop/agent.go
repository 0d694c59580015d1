package loop

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"talaria/providers"
	"talaria/tools"
)

// ErrBusy is returned by Run when a turn is already running on the agent.
var ErrBusy = errors.New("a turn is already running in this session; steer it, queue the message, or wait")

// Store is the persistence the loop needs. Implementations must be safe to
// call from the turn goroutine. turn is the number of the turn the
// messages belong to (a rewind takes a session back by turn numbers): the
// loop passes it with every message it saves, so no store has to learn it
// from the event stream.
type Store interface {
	AppendMessages(sessionID string, turn int, msgs ...providers.Message) error
	AddUsage(sessionID string, apiCalls int, u providers.Usage) error
}

// RetryPolicy is the inner retry loop's timing.
type RetryPolicy = providers.RetryPolicy

// Options configures an Agent.
type Options struct {
	SessionID string
	// Transport, when set, serves the primary backend (tests, the demo).
	Transport Transport
	// Chain is the primary backend and its fallbacks, each with its
	// credential pool; nil means the primary alone.
	Chain *providers.FallbackChain
	// NewTransport builds a transport for a backend and API key.
	NewTransport func(b providers.Backend, key string) (Transport, error)
	Provider     string
	Model        string
	// SystemPrompt is the session's stored system prompt, sent byte for byte.
	SystemPrompt string
	// History is the session's earlier messages (no system message).
	History []providers.Message
	// LoadHistory, when set, reads the session's earlier messages on first
	// need instead of History (agent_history.go): a resumed session opens
	// without holding them.
	LoadHistory func() ([]providers.Message, error)
	// Turns is the number of turns the session already had.
	Turns   int
	Tools   *tools.Registry
	ToolEnv tools.Env
	// Store persists messages; nil keeps the session in memory only.
	Store         Store
	Sink          Sink
	MaxIterations int
	MaxTokens     int
	Retry         RetryPolicy
	// Guardrails configures the tool-loop guardrail; the zero value means
	// tools.DefaultGuardrailConfig().
	Guardrails *tools.GuardrailConfig

	// MaxResponseBytes caps the text, reasoning and tool arguments of one
	// response (agent.max_response_bytes); 0 means no cap.
	MaxResponseBytes int

	// Approve, when set, is asked before each tool call; a denial's result
	// goes to the model instead of running the tool.
	Approve func(ctx context.Context, tool, args string) (bool, tools.Result)
	// Hooks are the user's hooks (hooks.go); the zero value runs none.
	Hooks Hooks
	// Compression enables automatic context compression at Threshold (a
	// fraction of the usable window; 0 means 0.50).
	Compression          bool
	CompressionThreshold float64
	// BeforeTurn, when set, runs in the prologue of every turn (e.g. to
	// reconnect MCP servers that died).
	BeforeTurn func(ctx context.Context)
	// TurnSystemPrompt, when set, is asked after BeforeTurn; a non-empty
	// answer is the system prompt of the turn instead of SystemPrompt
	// (e.g. the prompt completed once with MCP server instructions).
	TurnSystemPrompt func() string
	// AfterTurn, when set, runs at the end of every turn's epilogue, as an
	// isolated cleanup step (e.g. to save the todo list); its error becomes
	// a cleanup error.
	AfterTurn func(Result) error
	// Checkpoint, when set, records the working tree before each tool batch
	// that may change files and returns the checkpoint's id ("" when none
	// was taken). A failure is a cleanup error; the batch runs anyway.
	Checkpoint func(ctx context.Context, turn, iteration int) (string, error)
	// Log receives the diagnostic line written at every turn end.
	Log func(line string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Script is what a headless script asked of the turns (script.go).
	Script Script
}

// Agent runs the turns of one session, one at a time.
type Agent struct {
	opts   Options
	jitter *providers.Jitter
	route  *router
	guard  *tools.Guardrails
	ctxs   contextState // touched only by the running turn or Compress
	rtc    runtimeContexts

	// est is the incremental token estimate (estimate_cache.go).
	est   estimateCache
	reqs  requestView       // the requests' message list (request_view.go), under mu
	calls tools.CallCancels // the running batch's calls, for CancelCall
	// noImages is set once the backend refused image parts: later calls
	// send the placeholders only.
	noImages atomic.Bool

	mu  sync.Mutex
	cur *turn // the running turn, nil when idle
	// idle is closed when no turn runs; a turn replaces it (see Wait).
	idle chan struct{}
	// compressing holds the session while /compress runs between turns.
	compressing bool
	steer       []pendingSteer
	steerSeq    int // the id of the last steer
	queue       []string
	turns       int
	history     []providers.Message

	// lazy is the history not read yet (agent_history.go).
	lazy lazyHistory
}

// New returns an agent for one session.
func New(opts Options) *Agent {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = 90
	}
	if opts.Tools == nil {
		opts.Tools = tools.NewRegistry()
	}
	if opts.Sink == nil {
		opts.Sink = func(Event) {}
	}
	if opts.Log == nil {
		opts.Log = func(string) {}
	}
	a := &Agent{
		opts:    opts,
		jitter:  providers.NewJitter(),
		route:   newRouter(opts),
		guard:   tools.NewGuardrails(guardConfig(opts.Guardrails)),
		turns:   opts.Turns,
		history: append([]providers.Message(nil), opts.History...),
		idle:    make(chan struct{}),
		lazy:    lazyHistory{load: opts.LoadHistory},
	}
	a.opts.LoadHistory = nil
	close(a.idle)
	a.ctxs.enabled, a.ctxs.pct = opts.Compression, opts.CompressionThreshold
	// a.history is the copy the agent owns: the caller's slice is not kept
	// alive beside it (a long session's is megabytes of headers).
	a.opts.History = nil
	return a
}

func guardConfig(c *tools.GuardrailConfig) tools.GuardrailConfig {
	if c == nil {
		return tools.DefaultGuardrailConfig()
	}
	return *c
}

// SessionID returns the session's id.
func (a *Agent) SessionID() string { return a.opts.SessionID }

// Start starts one turn for input in a goroutine the agent owns and
// returns at once (once the session's history is read, the first time,
// when it opened without it). It returns ErrBusy when a turn is already
// running (or /compress holds the session), a *PromptTooLargeError for
// input over MaxPromptBytes and a *HistoryError when the history cannot
// be read; otherwise the turn's outcome arrives only
// as events, ending with turn.finished. ctx bounds the turn.
func (a *Agent) Start(ctx context.Context, input string) error {
	t, err := a.begin(ctx, input)
	if err != nil {
		return err
	}
	go a.runTurn(t, input)
	return nil
}

// Run runs one turn for input and blocks until it ends: headless runs,
// subagents and tests. It returns ErrBusy when a turn is already running;
// every other outcome is in the Result, which equals turn.finished.
func (a *Agent) Run(ctx context.Context, input string) (Result, error) {
	t, err := a.begin(ctx, input)
	if err != nil {
		return Result{}, err
	}
	return a.runTurn(t, input), nil
}

// runTurn runs a begun turn to its end and announces it.
func (a *Agent) runTurn(t *turn, input string) Result {
	res := t.run(input)
	// The agent is idle before turn.finished goes out, so a consumer may
	// start the next turn as soon as it sees the event; a steer that came
	// too late for this turn is taken in the same step, so none slips
	// between the turn and the next.
	res.PendingSteer = a.finish(t)
	t.emit(finished(res))
	return res
}

// Wait blocks until no turn runs on the agent, or ctx ends.
func (a *Agent) Wait(ctx context.Context) error {
	a.mu.Lock()
	idle := a.idle
	a.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BackendChange is what /model changes on a running agent: the backend chain
// and how transports for it are built. History, tools, background
// processes and MCP connections stay as they are.
type BackendChange struct {
	Chain *providers.FallbackChain
	// NewTransport builds transports for Chain; nil keeps the agent's.
	NewTransport func(b providers.Backend, key string) (Transport, error)
	// Transport, when set, serves Chain's primary (tests).
	Transport Transport
	Provider  string
	Model     string
	MaxTokens int
}

// SetBackend moves the session to another backend in place. The system
// prompt's closing Model:/Provider: lines are rewritten to match (see
// [Agent.SystemPrompt] to save it). It returns ErrBusy while a turn or
// /compress runs.
func (a *Agent) SetBackend(b BackendChange) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil || a.compressing {
		return ErrBusy
	}
	// Fields are set one by one: a turn that just finished may still be
	// reading the agent's other options while it emits turn.finished.
	if b.NewTransport != nil {
		a.opts.NewTransport = b.NewTransport
	}
	a.opts.Transport, a.opts.Chain = b.Transport, b.Chain
	a.opts.Provider, a.opts.Model, a.opts.MaxTokens = b.Provider, b.Model, b.MaxTokens
	if a.opts.SystemPrompt != "" {
		a.opts.SystemPrompt = providers.RewriteRuntimeLines(a.opts.SystemPrompt, b.Provider, b.Model)
	}
	a.route = newRouter(a.opts)
	return nil
}

// SystemPrompt returns the session's system prompt as the next turn sends it.
func (a *Agent) SystemPrompt() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts.SystemPrompt
}

// begin claims the agent for a turn on input; Start and Run share it, so
// both refuse a prompt over MaxPromptBytes before anything happens.
func (a *Agent) begin(ctx context.Context, input string) (*turn, error) {
	if err := checkPrompt(input); err != nil {
		return nil, err
	}
	if err := a.loadHistory(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil || a.compressing {
		return nil, ErrBusy
	}
	a.turns++
	t := newTurn(a, ctx, a.turns)
	a.cur = t
	a.idle = make(chan struct{})
	return t, nil
}

func (a *Agent) finish(t *turn) (pendingSteer string) {
	t.cancel()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cur = nil
	close(a.idle)
	pendingSteer, _ = a.drainSteers()
	return pendingSteer
}

// Interrupt stops the running turn as soon as possible: the request in
// flight is aborted, running tools are cancelled, and tools not yet started
// are skipped. It is a no-op when idle. Safe from any goroutine.
func (a *Agent) Interrupt() {
	a.mu.Lock()
	t := a.cur
	a.mu.Unlock()
	if t != nil {
		t.interrupt()
	}
}

// Busy reports whether a turn is running.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur != nil
}

// takeSteer drains the pending steers: their texts joined with newlines,
// and their ids.
func (a *Agent) takeSteer() (string, []int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.drainSteers()
}

// Queue adds text to run as a turn of its own after the current one.
func (a *Agent) Queue(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, text)
}

// NextQueued pops the next queued message.
func (a *Agent) NextQueued() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 {
		return "", false
	}
	s := a.queue[0]
	a.queue = a.queue[1:]
	return s, true
}

// History returns a copy of the session's messages (no system message),
// reading them first when the session opened without them (nil if that
// fails: [Agent.LoadedHistory] says why, and the next turn fails with the
// same error).
func (a *Agent) History() []providers.Message {
	h, _ := a.LoadedHistory()
	return h
}

// LoadedHistory is History with the error of reading it.
func (a *Agent) LoadedHistory() ([]providers.Message, error) {
	if err := a.loadHistory(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]providers.Message(nil), a.history...), nil
}

// emit stamps and delivers an event.
func (a *Agent) emit(turn int, e Event) {
	h := e.Meta()
	h.Type = EventType(e)
	h.SessionID = a.opts.SessionID
	h.TS = Timestamp(a.opts.Now())
	h.Turn = turn
	a.opts.Sink(e)
}

// EmitSessionStarted announces the session; the wiring calls it once.
func (a *Agent) EmitSessionStarted(cwd string, resumed bool) {
	a.emit(0, &SessionStarted{Provider: a.opts.Provider, Model: a.opts.Model, Cwd: cwd, Resumed: resumed})
}
