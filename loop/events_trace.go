package loop

import (
	"errors"
	"sync/atomic"
	"time"

	"talaria/providers"
)

// Event types behind the turn timeline (loop/trace): facts no other event
// carries.
const (
	TypeAPIAttempt     = "api.attempt"
	TypeApprovalWaited = "approval.waited"
)

// APIAttempt is emitted when one API attempt ends, successful or not: a
// call that is retried, rotated or falls back has one per attempt.
type APIAttempt struct {
	Header
	// Attempt counts the attempts of this model call from 1.
	Attempt  int    `json:"attempt"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	APIMode  string `json:"api_mode"`
	// StartedAt is when the request was sent; TS is when it ended.
	StartedAt  Timestamp `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	// TTFTUS is the time to the first streamed delta (text, reasoning or a
	// tool call), in microseconds; 0 when none came.
	TTFTUS int64 `json:"ttft_us,omitempty"`
	// OK is true when the attempt returned a response.
	OK bool `json:"ok"`
	// Status is the HTTP status of a failed attempt (0 when none).
	Status int `json:"status,omitempty"`
	// Reason is the failover reason of a failed attempt ("interrupted"
	// when the user stopped it).
	Reason string `json:"reason,omitempty"`
	// ResponseModel is the model the provider said answered.
	ResponseModel string          `json:"response_model,omitempty"`
	FinishReason  string          `json:"finish_reason,omitempty"`
	Usage         providers.Usage `json:"usage"`
}

// ApprovalWaited is emitted when a tool call's approval took measurable
// time (10 ms or more: a person was asked), before the call starts.
type ApprovalWaited struct {
	Header
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	StartedAt  Timestamp `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	Approved   bool      `json:"approved"`
}

// approvalWaitMin is the shortest approval wait worth an event: policy
// decisions take microseconds, a person takes far longer.
const approvalWaitMin = 10 * time.Millisecond

// attempt performs one API attempt (stream) and reports it with its time
// to first token: the first delta of any kind, text, reasoning or a tool
// call.
func (t *turn) attempt(n int, tr Transport, req providers.Request) (*providers.Response, error) {
	start := t.a.opts.Now()
	var first atomic.Int64 // Unix nanoseconds of the first delta; 0 before it
	resp, err := t.stream(tr, req, func(d providers.Delta) {
		if first.Load() == 0 {
			first.CompareAndSwap(0, t.a.opts.Now().UnixNano())
		}
		t.onDelta(d)
	})
	var ttft time.Duration
	if f := first.Load(); f != 0 {
		ttft = time.Unix(0, f).Sub(start)
	}
	t.emitAttempt(n, start, ttft, req, resp, err)
	return resp, err
}

// emitAttempt reports one finished API attempt.
func (t *turn) emitAttempt(attempt int, start time.Time, ttft time.Duration, req providers.Request, resp *providers.Response, err error) {
	b := t.a.route.backend()
	now := t.a.opts.Now()
	e := &APIAttempt{Attempt: attempt, Provider: b.Provider, Model: req.Model,
		APIMode: b.APIMode, StartedAt: Timestamp(start), DurationMS: now.Sub(start).Milliseconds(), OK: err == nil,
		TTFTUS: ttft.Microseconds()}
	if e.Model == "" {
		e.Model = b.Model
	}
	if resp != nil {
		e.ResponseModel, e.FinishReason, e.Usage = resp.Model, resp.FinishReason, resp.Usage
	}
	switch {
	case err == nil:
	case t.stopped() || errors.Is(err, t.ctx.Err()):
		e.Reason = providers.ReasonInterrupted.String()
	default:
		c := t.classify(err, req)
		e.Reason, e.Status = c.Reason.String(), c.Status
	}
	t.emit(e)
}

// emitApprovalWait reports an approval that kept a call waiting.
func (t *turn) emitApprovalWait(id, name string, start time.Time, approved bool) {
	d := t.a.opts.Now().Sub(start)
	if d < approvalWaitMin {
		return
	}
	t.emit(&ApprovalWaited{ID: id, Name: name, StartedAt: Timestamp(start),
		DurationMS: d.Milliseconds(), Approved: approved})
}
