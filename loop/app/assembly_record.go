package app

import (
	"encoding/json"

	"talaria/loop/trace"
	"talaria/providers"
)

// openRecorder starts the --record file (nil without --record). Its header
// is the session as its agent starts: the backend chain, the options the
// parts declare, the tools, the system prompt and the history. The
// recorder then records what the parts route through it: the transports
// of the agent and of its children, and the store (tool results), masked
// where it writes them.
func (s *Session) openRecorder(f Flags, p *parts, prompt string, history []providers.Message, turns int) (*trace.Recorder, error) {
	if f.Record == "" {
		return nil, nil
	}
	b, chain, _ := p.route()
	cfg := s.Config
	h := trace.Header{Talaria: f.Version, SessionID: s.Record.ID, Provider: b.Provider, Model: b.Model,
		APIMode: b.APIMode, BaseURL: b.BaseURL, Approvals: cfg.Approvals,
		MaxIterations: cfg.Agent.MaxIterations, MaxTokens: b.MaxTokens, Retry: trace.RetryOf(retryPolicy(cfg.Agent)),
		Guardrails: guardrails(cfg.ToolLoopGuardrails, p.headless), Compression: cfg.Compression.Enabled,
		CompressionThreshold: cfg.Compression.Threshold, SystemPrompt: prompt, History: history, Turns: turns}
	if f.Overrides.Yolo {
		h.Approvals = "yolo"
	}
	for _, c := range chain.Backends() {
		h.Chain = append(h.Chain, trace.ChainEntry{Provider: c.Provider, Model: c.Model, APIMode: c.APIMode, BaseURL: c.BaseURL,
			MaxTokens: c.MaxTokens, ContextLength: c.ContextLength, ReasoningEffort: c.ReasoningEffort, Keys: len(c.APIKeys)})
	}
	for _, t := range p.tools.registry.All() {
		h.Tools = append(h.Tools, trace.ToolDef{Name: t.Name(), Description: t.Description(), Schema: json.RawMessage(t.Schema())})
	}
	rec, err := trace.NewRecorder(f.Record, h, secretValues(chain), s.masking)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return rec, nil
}
