package app

import (
	"os"
	"slices"
	"strings"
	"sync"

	"talaria/loop"
	"talaria/loop/config"
	"talaria/providers"
)

// eventPipeline is a session's one event pipeline: the agent emits into
// it (emit is its loop.Sink) and every event then passes, in this order:
//
//  1. masking (loop.MaskStage): every string masked with the session's
//     rules; the answer, the reasoning and each call's live output masked
//     as streams, a possibly secret tail held back (at most
//     loop.MaxMaskHold bytes a stream) until the next piece or the
//     stream's end decides it;
//  2. the subscribers, each given the same masked events in the same
//     order, in the order declare lists them: the timeline (span log
//     saved with the session, OTLP export), the recorder (--record), and
//     the caller's sink (the headless JSON Lines or progress printer, the
//     UI's forwarder).
//
// One lock runs an event through both, so no subscriber sees events in
// another order than the others, and none can change what the next one
// gets: each receives what the masking stage let out. A subscriber must
// not emit into the pipeline (it would wait for itself).
type eventPipeline struct {
	mu    sync.Mutex
	stage *loop.MaskStage
	subs  []loop.Sink
}

// declare sets the pipeline's stages, once, before the agent emits: the
// masking rules, then the subscribers in the order they get each event
// (nil ones are left out).
func (p *eventPipeline) declare(m *loop.Masking, subscribers ...loop.Sink) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stage = m.NewStage()
	p.subs = slices.DeleteFunc(subscribers, func(s loop.Sink) bool { return s == nil })
}

// emit is the pipeline's entry, the agent's Sink.
func (p *eventPipeline) emit(e loop.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stage == nil {
		return // not declared: nothing may see an unmasked event
	}
	p.stage.Push(e, p.fanOut)
}

// fanOut gives one masked event to every subscriber; p.mu is held.
func (p *eventPipeline) fanOut(e loop.Event) {
	for _, s := range p.subs {
		s(e)
	}
}

// sessionMasking is the session's one set of masking rules, shared by the
// event pipeline, the store, talaria.log, the recording and what headless
// prints: the key values of every configured provider (the primary's
// keys, each configured key variable's value, the fallback chain's keys)
// and the value of every environment variable whose name says it holds a
// secret (tools.LooksSecret), plus what providers.Masker masks without
// knowing a value (URL userinfo, key parameters, bearer tokens, key
// shapes).
func sessionMasking(cfg config.Config, backend config.Backend, chain *providers.FallbackChain) *loop.Masking {
	secrets := slices.Clone(backend.APIKeys)
	for _, n := range cfg.KeyEnvNames() {
		if v := os.Getenv(n); v != "" {
			secrets = append(secrets, v)
		}
	}
	secrets = append(secrets, secretValues(chain)...)
	// Longest first: a value that holds another is masked whole.
	slices.SortFunc(secrets, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return loop.NewMasking(slices.Compact(secrets)...)
}
