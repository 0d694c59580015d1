// Package app wires a session together from flags, config, environment,
// store, provider transport and tools, and runs headless turns. Both the
// headless mode and the TUI start here.
package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"talaria/loop"
	"talaria/loop/compress"
	"talaria/loop/config"
	"talaria/loop/ext"
	"talaria/persist"
	"talaria/providers"
	"talaria/providers/anthropic"
	"talaria/providers/bedrock"
	"talaria/providers/gemini"
	"talaria/providers/openaichat"
	"talaria/providers/responses"
	"talaria/tools"
)

// Flags are the command-line settings that shape a session.
type Flags struct {
	Home       string
	ConfigPath string
	Cwd        string
	Continue   bool
	Resume     string
	Overrides  config.Overrides
	// Headless is true for -p runs (hard-stop guardrails default on).
	Headless bool
	// UI offers approval and clarify prompts; zero means nobody answers.
	UI Interactive
	// Watchdog is the command of the process that kills what talaria
	// started once talaria dies (main sets it to talaria itself); nil runs
	// none.
	Watchdog []string
	// Wait makes a run that continues a session another live process is
	// running wait for it to finish instead of refusing (--wait).
	Wait bool
	// Record, when set, is the --record FILE the run is recorded to.
	Record string
	// Version is talaria's version (recordings, telemetry).
	Version string
	// Script holds the headless flags scripts use (script.go).
	Script ScriptFlags
	// Builtins are the built-in slash commands, which no custom command
	// shadows (main fills them from the TUI's list).
	Builtins []string
	// MCPServers join the configured mcp_servers (a same-named one
	// replaces it): the servers an ACP client passes with session/new.
	MCPServers map[string]config.MCPServer
	// Trust applies the project's own settings (its hooks) for this run
	// without recording the folder in trusted_projects (--trust).
	Trust bool
}

// UsageError is a problem with flags, config or environment found before
// any turn ran; headless mode exits 2 with its one-line message.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Session is one wired session, ready to run turns.
type Session struct {
	Config  config.Config
	Backend config.Backend
	Home    string
	Cwd     string
	Store   *persist.Store
	Record  *persist.Session
	Agent   *loop.Agent
	Resumed bool
	tools   *toolset
	lease   *persist.Lease // this session's one-writer lease, while held
	// mask hides the session's keys in what is printed (nil: only the
	// generic shapes); masking is the same rules for the event pipeline.
	mask    *providers.Masker
	masking *loop.Masking
	trace   *traceState
	hooks   *sessionHooks
	// The project's hooks not run for lack of trust (hooks.go).
	trustMu     sync.Mutex
	untrusted   []ext.Hook
	projectRoot string
	userConfig  string
	// Notice is a one-line message for the user (e.g. which local server
	// was found), empty when there is nothing to say.
	Notice string
	// ext is the custom commands, skills and agents loaded at Open;
	// builtins the command names they may not shadow.
	ext      *ext.Set
	builtins []string
	// parts are what the agent was assembled from (nil in the tour);
	// cleanup is what Open started, released by Close.
	parts   *parts
	cleanup cleanupStack
	// created is set when Open created the session record (new or forked),
	// which a failed Open removes again.
	created bool
	// stopWatch stops the checkpoint watcher (checkpoint_watch.go).
	stopWatch func()
	// loadLater reads a resumed session's history on its agent's first
	// need (lazy_history.go); nil when Open read it.
	loadLater func() ([]providers.Message, error)
}

// Close runs the SessionEnd hooks, ends the session's recording, export,
// background processes and MCP servers, and releases its lease: the
// session's cleanup stack, newest first. A second Close does nothing.
func (s *Session) Close() {
	s.closeCheckpointWatch() // the watcher is started at the first checkpoint, not by Open
	s.cleanup.close()
}

// closeTools ends the session's tools (its toolset once built, else the
// process manager made for it).
func (s *Session) closeTools(procs *tools.ProcessManager) {
	if s.tools != nil {
		s.tools.close()
		return
	}
	procs.Close()
	_ = procs.Reaper().Close()
}

// Home resolves $TALARIA_HOME: the flag, else the env var, else ~/.talaria.
func Home(flag string) string {
	if flag != "" {
		return flag
	}
	return config.DefaultHome()
}

// OpenStore opens $TALARIA_HOME/state.db.
func OpenStore(home string) (*persist.Store, error) {
	return persist.Open(filepath.Join(home, "state.db"), persist.Options{})
}

// LoadConfig reads config.yaml (or --config) and applies flag overrides.
func LoadConfig(f Flags) (config.Config, error) {
	path, optional := f.ConfigPath, false
	if path == "" {
		path, optional = filepath.Join(Home(f.Home), "config.yaml"), true
	}
	cfg, err := config.Load(path, optional)
	if err != nil {
		return cfg, &UsageError{Err: err}
	}
	if err := f.Overrides.Apply(&cfg); err != nil {
		return cfg, &UsageError{Err: err}
	}
	cfg.MCPServers = mergeMCP(cfg.MCPServers, f.MCPServers)
	return cfg, nil
}

// ResolveBackend picks the provider: config and env first, then a probe of
// the usual local servers (about 200 ms). The notice says what was found.
func ResolveBackend(ctx context.Context, cfg config.Config, getenv func(string) string) (config.Backend, string, error) {
	b, err := config.Resolve(cfg.Model, getenv)
	if err == nil {
		return b, "", nil
	}
	if !errors.Is(err, config.ErrNoProvider) {
		return b, "", &UsageError{Err: err}
	}
	if pb, name, ok := Probe(ctx, LocalServers(), 200*time.Millisecond); ok {
		return pb, fmt.Sprintf("no provider configured: using %s at %s (model %s)", name, pb.BaseURL, pb.Model), nil
	}
	return b, "", &UsageError{Err: err}
}

// Transports returns the registry of every implemented api_mode.
func Transports() *providers.Registry {
	r := providers.NewRegistry()
	r.Register(openaichat.APIMode, openaichat.New)
	r.Register(anthropic.APIMode, anthropic.New)
	r.Register(responses.APIMode, responses.New)
	r.Register(bedrock.APIMode, bedrock.NewStreaming)
	r.Register(gemini.APIMode, gemini.New)
	return r
}

// Open wires a session: config, backend, store, session record (new,
// continued with -c, or resumed with -r), system prompt, tools and agent.
// Events go to sink.
//
// The session is assembled once, from parts (assembly.go): each step
// builds one part from those before it, and what it starts (the lease,
// the session record it created, processes and MCP servers, hooks, the
// recording, the exporter) goes onto the session's cleanup stack at once,
// so a later step's failure releases all of it and Close releases the
// same stack.
func Open(ctx context.Context, f Flags, sink loop.Sink) (_ *Session, err error) {
	if err := applyStoredKeys(Home(f.Home)); err != nil { // keys typed in the setup dialog (setup.go)
		return nil, err
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		return nil, err
	}
	cwd, err := resolveCwd(f.Cwd)
	if err != nil {
		return nil, err
	}
	backend, notice, err := ResolveBackend(ctx, cfg, os.Getenv)
	if err != nil {
		return nil, err
	}
	chain, warnings, err := buildChain(backend, cfg, os.Getenv)
	if err != nil {
		return nil, err
	}
	script, err := scriptFor(f.Script, chain) // refused before a session is made
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		notice = strings.TrimSpace(notice + "; " + strings.Join(warnings, "; "))
		notice = strings.TrimPrefix(notice, "; ")
	}
	home := Home(f.Home)
	store, err := OpenStore(home)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	s := &Session{Config: cfg, Backend: backend, Home: home, Cwd: cwd, Store: store, Notice: notice}
	defer func() {
		if err != nil {
			s.cleanup.fail()
		}
	}()
	// One set of masking rules, before anything is written (talaria.log
	// included): the event pipeline, the store, the recording, headless
	// output.
	s.masking = sessionMasking(cfg, backend, chain)
	s.mask = s.masking.Masker()
	s.loadExtensions(f) // before the record: the system prompt lists the skills
	s.cleanup.pushUndo(s.deleteCreated)
	s.cleanup.push(s.dropLease)
	history, err := s.openRecord(f)
	if err != nil {
		return nil, err
	}
	if err := s.takeLease(ctx, f.Wait); err != nil {
		return nil, &UsageError{Err: err}
	}
	procs := newProcesses(home, f.Watchdog)
	s.cleanup.push(func() { s.closeTools(procs) })
	ts, err := buildTools(ctx, cfg, home, tools.Env{Cwd: cwd, SessionID: s.Record.ID, Sessions: storeSearcher{st: store},
		Processes: procs}, withNotification(f.UI, func() *sessionHooks { return s.hooks }), s.loadTodos(), f.Headless, s.log)
	if err != nil {
		return nil, err
	}
	s.tools = ts
	ts.offerAgents(s.ext)
	s.openHooks(cfg, f, ts)
	s.cleanup.push(s.hooks.stop)
	prompt := *s.Record.SystemPrompt
	if s.loadLater == nil && countTurns(history) == 0 { // a new session, or one that never ran a turn
		ts.completePromptOnce(prompt, func(p string) error { return store.SetSystemPrompt(s.Record.ID, &p) })
	}
	if len(ts.warnings) > 0 {
		s.Notice = strings.TrimPrefix(s.Notice+"; "+strings.Join(ts.warnings, "; "), "; ")
	}
	turns := countTurns(history)
	if s.Record.Turns > 0 || len(history) == 0 {
		turns = s.Record.Turns // a rewound session numbers on from its rewind
	}
	timeline, err := s.attachTrace(f)
	s.cleanup.push(s.trace.close)
	if err != nil {
		return nil, err
	}
	p := &parts{id: s.Record.ID, cfg: cfg, headless: f.Headless, script: script, tools: ts, hooks: s.hooks,
		cps: s.newCheckpointer(), todos: s.saveTodos(ts.env.Todos), log: s.log, events: &eventPipeline{},
		backend: backend, chain: chain, wire: transports{to: Timeouts(cfg.Agent)}}
	// Messages are saved through the store, not events: sessionStore masks
	// them with the same rules as the pipeline.
	p.store = &sessionStore{Store: store, m: s.mask}
	rec, err := s.openRecorder(f, p, prompt, history, turns)
	if err != nil {
		return nil, err
	}
	var recorded loop.Sink
	if rec != nil {
		s.trace.recorder = rec // closed with the trace
		p.wire.rec, p.store, recorded = rec, rec.WrapStore(p.store), rec.Wrap(nil)
	}
	// The pipeline: masking, then the timeline, the recorder, the caller.
	p.events.declare(s.masking, timeline, recorded, sink)
	s.parts = p
	s.Agent = loop.New(p.options(prompt, history, s.loadLater, turns))
	p.prompt = s.Agent.SystemPrompt
	s.startHooks(ctx)
	s.cleanup.push(func() { s.hooks.close("other") })
	s.Backend.ContextLength = compress.ContextLength(backend.Provider, backend.Model, backend.ContextLength)
	s.Backend.ContextLength, s.Notice = s.Agent.RuntimeAtStart(ctx, s.Backend.ContextLength, s.Notice)
	return s, nil
}

// guardrails maps tool_loop_guardrails onto the controller's config; hard
// stops default to on headless (nobody is watching) and off in the TUI.
func guardrails(g config.Guardrails, headless bool) *tools.GuardrailConfig {
	c := tools.DefaultGuardrailConfig()
	c.WarningsEnabled = g.WarningsEnabled
	c.HardStopEnabled = headless
	if g.HardStopEnabled != nil {
		c.HardStopEnabled = *g.HardStopEnabled
	}
	c.WarnExactFailure, c.WarnSameToolFailure, c.WarnNoProgress = g.WarnAfter.ExactFailure, g.WarnAfter.SameToolFailure, g.WarnAfter.IdempotentNoProgress
	c.HardExactFailure, c.HardSameToolFailure, c.HardNoProgress = g.HardStopAfter.ExactFailure, g.HardStopAfter.SameToolFailure, g.HardStopAfter.IdempotentNoProgress
	return &c
}

func resolveCwd(flag string) (string, error) {
	cwd := flag
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", usage("cannot read the working directory: %v", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", usage("--cwd: %v", err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", usage("--cwd: %s is not a directory", abs)
	}
	return abs, nil
}

// NewTransport builds the transport of a backend for one API key, with
// the default timeouts.
func NewTransport(b providers.Backend, key string) (loop.Transport, error) {
	return TransportFactory(providers.DefaultTimeouts())(b, key)
}

// TransportFactory returns NewTransport with the timeouts to on every
// request of every wire.
func TransportFactory(to providers.Timeouts) func(b providers.Backend, key string) (loop.Transport, error) {
	return func(b providers.Backend, key string) (loop.Transport, error) {
		return newTransportWrapped(b, key, to, nil)
	}
}

// newTransportWrapped is TransportFactory(to)'s transport with the HTTP
// client's RoundTripper (the timeouts) passed through wrap (nil: as is),
// e.g. to record the traffic.
func newTransportWrapped(b providers.Backend, key string, to providers.Timeouts, wrap func(http.RoundTripper) http.RoundTripper) (loop.Transport, error) {
	var rt http.RoundTripper = providers.NewTimeoutTransport(nil, to)
	if wrap != nil {
		rt = wrap(rt)
	}
	return Transports().New(b.APIMode, providers.Endpoint{
		Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key, HTTPClient: &http.Client{Transport: rt}, OllamaNumCtx: b.OllamaNumCtx,
	})
}

// Timeouts maps the agent.*_timeout keys onto the provider timeouts.
func Timeouts(a config.Agent) providers.Timeouts {
	return providers.Timeouts{Request: a.RequestTimeout, StreamRead: a.StreamReadTimeout, StreamStale: a.StreamStaleTimeout}
}

func toBackend(b config.Backend) providers.Backend {
	return providers.Backend{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIMode: b.APIMode,
		APIKeys: b.APIKeys, KeyEnvs: b.APIKeyEnvs, MaxTokens: b.MaxTokens, ContextLength: b.ContextLength, ReasoningEffort: b.ReasoningEffort, OllamaNumCtx: b.OllamaNumCtx}
}

// buildChain resolves the fallback providers. A fallback whose key is not
// set is skipped with a warning; the primary's api_mode must be one talaria
// speaks, or the session does not start.
func buildChain(primary config.Backend, cfg config.Config, getenv func(string) string) (*providers.FallbackChain, []string, error) {
	modes := Transports()
	if _, err := modes.New(primary.APIMode, providers.Endpoint{Provider: primary.Provider, Model: primary.Model, BaseURL: primary.BaseURL}); err != nil {
		return nil, nil, usage("provider %s: %v", primary.Provider, err)
	}
	var fallbacks []providers.Backend
	var warnings []string
	for i, m := range cfg.FallbackProviders {
		b, err := config.Resolve(m, getenv)
		if err == nil {
			_, err = modes.New(b.APIMode, providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL})
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("fallback_providers[%d] skipped: %v", i, err))
			continue
		}
		fallbacks = append(fallbacks, toBackend(b))
	}
	return providers.NewFallbackChain(toBackend(primary), fallbacks), warnings, nil
}

func countTurns(h []providers.Message) int {
	n := 0
	for _, m := range h {
		if m.Role == providers.RoleUser {
			n++
		}
	}
	return n
}
