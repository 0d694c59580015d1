// Package trace sees a turn after the fact: the per-turn span log behind
// the timeline (built from the loop's events), and the recorder and
// replayer of a run's provider traffic and tool results. Its sub-package
// otlp exports the span logs as OpenTelemetry traces. It must not import
// ui.
package trace

import (
	"encoding/json"
	"sort"
	"time"
)

// LogVersion is the version of the span log's JSON form.
const LogVersion = 1

// Span kinds.
const (
	KindIteration   = "iteration"
	KindAttempt     = "attempt"
	KindRetryWait   = "retry_wait"
	KindFallback    = "fallback"
	KindRotation    = "rotation"
	KindSegment     = "segment"
	KindTool        = "tool"
	KindApproval    = "approval"
	KindCompression = "compression"
	KindSteer       = "steer"
	KindGuardrail   = "guardrail"
	KindCheckpoint  = "checkpoint"
	// KindPhase spans are the turn's prologue (before the first
	// iteration: saving the input, preflight) and epilogue (after the last
	// answer: saving, cleanup).
	KindPhase = "phase"
)

// Log is the span log of one turn: every span's offsets are milliseconds
// from the turn's start. It is what the timeline shows and what is saved
// with the session.
type Log struct {
	Version    int       `json:"version"`
	SessionID  string    `json:"session_id"`
	Turn       int       `json:"turn"`
	Start      time.Time `json:"start"`
	DurMS      float64   `json:"dur_ms"`
	ExitReason string    `json:"exit_reason,omitempty"`
	Completed  bool      `json:"completed"`
	// Attempts counts the API attempts (retries included).
	Attempts int `json:"attempts"`
	// Input is the user's message (the start of it).
	Input string `json:"input,omitempty"`
	// Output is the final answer (the start of it).
	Output string `json:"output,omitempty"`
	Spans  []Span `json:"spans"`
}

// Span is one interval (or, with DurMS 0, one instant) of a turn.
type Span struct {
	Kind    string  `json:"kind"`
	Name    string  `json:"name"`
	StartMS float64 `json:"start_ms"`
	DurMS   float64 `json:"dur_ms"`
	// Iteration is the loop iteration the span belongs to (from 1).
	Iteration int `json:"iteration,omitempty"`
	// Attempt counts the attempts of one model call (from 1).
	Attempt int `json:"attempt,omitempty"`
	// Segment is the tool segment (from 1) of a segment or tool span.
	Segment  int    `json:"segment,omitempty"`
	Parallel bool   `json:"parallel,omitempty"`
	ID       string `json:"id,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// ResponseModel is the model the provider said answered.
	ResponseModel string  `json:"response_model,omitempty"`
	TTFTMS        float64 `json:"ttft_ms,omitempty"`
	InputTokens   int     `json:"input_tokens,omitempty"`
	OutputTokens  int     `json:"output_tokens,omitempty"`
	CacheTokens   int     `json:"cache_tokens,omitempty"`
	FinishReason  string  `json:"finish_reason,omitempty"`
	// Status is "ok", "error" or "cancelled" for attempts, tools and
	// approvals ("denied" for a refused approval).
	Status string `json:"status,omitempty"`
	// HTTPStatus and Reason say why an attempt failed or a retry waited.
	HTTPStatus int    `json:"http_status,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Detail is a short human note (fallback target, steer text, tokens
	// before and after a compression).
	Detail string `json:"detail,omitempty"`
}

// End is the span's end offset.
func (s Span) End() float64 { return s.StartMS + s.DurMS }

// Marshal encodes the log as saved with the session.
func (l *Log) Marshal() ([]byte, error) { return json.Marshal(l) }

// ParseLog decodes a saved span log.
func ParseLog(raw []byte) (*Log, error) {
	var l Log
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// sortSpans orders spans by start; ties keep their recording order, so an
// iteration stays before the attempt that starts with it.
func sortSpans(s []Span) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].StartMS < s[j].StartMS })
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
