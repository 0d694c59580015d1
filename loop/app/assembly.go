package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"talaria/loop"
	"talaria/loop/config"
	"talaria/loop/ext"
	"talaria/loop/trace"
	"talaria/providers"
	"talaria/tools"
)

// parts are what a session's agents are made of. Open builds each part
// once, each from the parts it needs (its constructor's arguments say
// which), then declares the agent's options from them in one place
// (options). The children delegate_task starts (childOptions) and the
// in-place changes (/model: setBackend; a conversation rewind:
// Agent.ReplaceHistory) use the same parts; nothing copies or patches a
// loop.Options after it is made.
type parts struct {
	id       string
	cfg      config.Config
	headless bool
	script   loop.Script
	// store is the session's store as the agent writes it: masked, each
	// message with its turn number, and recorded under --record.
	store  loop.Store
	events *eventPipeline
	tools  *toolset
	hooks  *sessionHooks
	cps    *checkpointer
	todos  func(loop.Result) error // saves the todo list at a turn's end
	log    func(string)
	// prompt is the system prompt the session's agent sends now (nil
	// before the agent exists); children are prompted from it.
	prompt func() string

	// children counts the delegate_task children, for their ids.
	children atomic.Int64

	mu      sync.Mutex
	backend config.Backend // the session's backend now (/model changes it)
	chain   *providers.FallbackChain
	wire    transports
}

// route returns the backend, chain and transports the session uses now.
func (p *parts) route() (config.Backend, *providers.FallbackChain, transports) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.backend, p.chain, p.wire
}

// options are the session's agent's options, declared from the parts:
// every field comes from one part and none depends on another's being set
// first. history (or load, which reads it on first need) and turns are
// where the session resumes.
func (p *parts) options(prompt string, history []providers.Message, load func() ([]providers.Message, error), turns int) loop.Options {
	b, chain, wire := p.route()
	return loop.Options{
		SessionID:            p.id,
		Chain:                chain,
		NewTransport:         wire.factory(""),
		Provider:             b.Provider,
		Model:                b.Model,
		MaxTokens:            b.MaxTokens,
		SystemPrompt:         prompt,
		History:              history,
		LoadHistory:          load,
		Turns:                turns,
		Tools:                p.tools.registry,
		ToolEnv:              p.toolEnv(),
		Store:                p.store,
		Sink:                 p.events.emit,
		MaxIterations:        p.cfg.Agent.MaxIterations,
		Retry:                retryPolicy(p.cfg.Agent),
		Guardrails:           guardrails(p.cfg.ToolLoopGuardrails, p.headless),
		MaxResponseBytes:     p.cfg.Agent.MaxResponseBytes,
		Approve:              p.tools.approver.Check,
		Hooks:                p.hooks.loopHooks(),
		Compression:          p.cfg.Compression.Enabled,
		CompressionThreshold: p.cfg.Compression.Threshold,
		BeforeTurn:           p.tools.beforeTurn,
		TurnSystemPrompt:     p.tools.turnPrompt,
		AfterTurn:            p.afterTurn,
		Checkpoint:           p.cps.before,
		Log:                  p.log,
		Script:               p.script,
	}
}

// childOptions are the options of one delegate_task child, from the same
// parts as the session's agent: the session's backend now (a fresh
// credential pool and fallback state of the same chain), its transports
// (recorded under --record, the lines naming the child), tools less
// delegate_task (narrowed to agent a's list when a is set), approvals and
// hooks (as a child's), its own budget (delegation.max_iterations), no
// store and no checkpoints; its events become progress lines of the
// call's live output (tools.Output(ctx)). The run's USD budget covers the
// child's calls too; the parent's --output-schema does not apply to the
// child's summary.
func (p *parts) childOptions(ctx context.Context, a *ext.Agent) loop.Options {
	b, chain, wire := p.route()
	id := fmt.Sprintf("%s-sub%d", p.id, p.children.Add(1))
	prompt := ""
	if p.prompt != nil {
		prompt = p.prompt()
	}
	if tp := p.tools.turnPrompt(); tp != "" { // completed with the MCP servers' instructions
		prompt = tp
	}
	o := loop.Options{
		SessionID:            id,
		Chain:                providers.NewFallbackChain(chain.Primary(), chain.Backends()[1:]),
		NewTransport:         wire.factory(id),
		Provider:             b.Provider,
		Model:                b.Model,
		MaxTokens:            b.MaxTokens,
		SystemPrompt:         subagentPrompt(prompt),
		Tools:                p.tools.childTools(nil),
		ToolEnv:              p.tools.env,
		Sink:                 loop.ChildProgress(tools.Output(ctx)),
		MaxIterations:        p.cfg.Delegation.MaxIterations,
		Retry:                retryPolicy(p.cfg.Agent),
		Guardrails:           guardrails(p.cfg.ToolLoopGuardrails, p.headless),
		MaxResponseBytes:     p.cfg.Agent.MaxResponseBytes,
		Approve:              p.tools.approver.Check,
		Hooks:                p.hooks.loopHooks().ForChild(),
		Compression:          p.cfg.Compression.Enabled,
		CompressionThreshold: p.cfg.Compression.Threshold,
		BeforeTurn:           p.tools.beforeTurn,
		AfterTurn:            p.todos, // the child shares the session's todo list
		Log:                  p.log,
		Script:               loop.Script{CostBudget: p.script.CostBudget},
	}
	if a != nil {
		p.tools.asAgent(&o, a)
	}
	return o
}

// toolEnv is the environment the session's tools run in, delegate_task
// running its children from the parts.
func (p *parts) toolEnv() tools.Env {
	env := p.tools.env
	env.Delegate = p.delegate
	return env
}

// afterTurn is loop.Options.AfterTurn: the todo list is saved, then the
// tree is checkpointed as the turn left it; each step's error is kept.
func (p *parts) afterTurn(r loop.Result) error {
	var err error
	if p.todos != nil {
		err = p.todos(r)
	}
	return errors.Join(err, p.cps.after())
}

// moveTo moves the session to backend b with chain (/model), in place; its
// transports get the timeouts to. A recording covers the backend it
// started with (its header names it), so /model ends it.
func (p *parts) moveTo(agent *loop.Agent, b config.Backend, chain *providers.FallbackChain, to providers.Timeouts) error {
	return p.move(agent, b, chain, transports{to: to})
}

// runOnModel moves the session to model on its provider, its transports
// kept (a custom command's model: front matter, for this process).
func (p *parts) runOnModel(agent *loop.Agent, model string) error {
	b, chain, wire := p.route()
	primary := chain.Primary()
	primary.Model = model
	b.Model = model
	return p.move(agent, b, providers.NewFallbackChain(primary, chain.Backends()[1:]), wire)
}

// move moves the agent first (it refuses while a turn runs), then the
// parts, so that the children started after use the new backend too.
func (p *parts) move(agent *loop.Agent, b config.Backend, chain *providers.FallbackChain, wire transports) error {
	err := agent.SetBackend(loop.BackendChange{Chain: chain, NewTransport: wire.factory(""), Provider: b.Provider, Model: b.Model, MaxTokens: b.MaxTokens})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backend, p.chain, p.wire = b, chain, wire
	return nil
}

// retryPolicy maps the agent.* retry keys onto the loop's policy.
func retryPolicy(a config.Agent) loop.RetryPolicy {
	return loop.RetryPolicy{MaxRetries: a.APIMaxRetries, BaseDelay: a.RetryBaseDelay, MaxDelay: a.RetryMaxDelay, RetryAfterCap: a.RetryAfterCap}
}

// transports builds the session's provider transports: with the agent.*
// timeouts, and through the recorder when --record is on, for the
// session's agent and its children alike.
type transports struct {
	to  providers.Timeouts
	rec *trace.Recorder // nil: not recording
}

// factory returns the transport builder of the agent named agent ("": the
// session's own; else a child's session id, which its recorded lines
// carry).
func (t transports) factory(agent string) func(b providers.Backend, key string) (loop.Transport, error) {
	rec, to := t.rec, t.to
	if rec == nil {
		return TransportFactory(to)
	}
	return func(b providers.Backend, key string) (loop.Transport, error) {
		rec.AddSecret(key)
		return newTransportWrapped(b, key, to, func(rt http.RoundTripper) http.RoundTripper {
			if agent == "" {
				return rec.Transport(rt, b.APIMode, b.Model)
			}
			return rec.SubagentTransport(rt, b.APIMode, b.Model, agent)
		})
	}
}
