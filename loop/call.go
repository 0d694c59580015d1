package loop

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"talaria/providers"
)

// callError is a model call that failed for good.
type callError struct {
	class    providers.Classified
	attempts int
	err      error
}

func (e *callError) Error() string {
	return fmt.Sprintf("API call failed after %d attempt(s) (%s): %v", e.attempts, e.class.Reason, e.err)
}

func (e *callError) Unwrap() error { return e.err }

// call sends one request through the inner retry loop: classify the error,
// back off (honouring Retry-After up to the cap) and try again, until it
// succeeds, the error is not retryable, retries run out, or the turn is
// interrupted.
func (t *turn) call(req providers.Request) (*providers.Response, error) {
	pol := t.a.opts.Retry
	for attempt := 1; ; attempt++ {
		resp, err := t.stream(req)
		if err == nil {
			return resp, nil
		}
		if t.stopped() {
			return resp, err
		}
		class := providers.Classify(err)
		t.lastErr = err
		if local := (*localError)(nil); errors.As(err, &local) {
			class = providers.Classified{Reason: "local_error", Message: err.Error()}
		}
		if resp != nil && resp.Content != "" && midStream(err) {
			// Text already reached the user: keep it rather than replay.
			return resp, &callError{class: class, attempts: attempt, err: err}
		}
		if !class.Retryable || attempt > pol.MaxRetries {
			return resp, &callError{class: class, attempts: attempt, err: err}
		}
		delay := providers.Backoff(attempt, pol.BaseDelay, pol.MaxDelay, t.a.jitter.Float())
		var ae *providers.APIError
		if errors.As(err, &ae) {
			if ra, ok := providers.RetryAfter(ae.Headers, ae.Body, t.a.opts.Now()); ok {
				if pol.RetryAfterCap > 0 && ra > pol.RetryAfterCap {
					return resp, &callError{class: class, attempts: attempt, err: fmt.Errorf("%w (server asked to wait %s, over agent.retry_after_cap %s)", err, ra.Round(time.Second), pol.RetryAfterCap)}
				}
				delay = ra
			}
		}
		t.emit(&RetryScheduled{Attempt: attempt + 1, MaxAttempts: pol.MaxRetries + 1, DelayMS: delay.Milliseconds(), Reason: class.Reason, Status: class.Status, Message: firstLine(err.Error())})
		if !providers.Sleep(t.ctx, delay) {
			return nil, t.ctx.Err()
		}
	}
}

// localError is a failure in our own code while handling a response. It is
// deterministic, so it is never retried.
type localError struct{ msg string }

func (e *localError) Error() string { return "internal error: " + e.msg }

// stream performs one attempt, turning a panic in our own response handling
// into a localError.
func (t *turn) stream(req providers.Request) (resp *providers.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, &localError{msg: fmt.Sprint(p)}
		}
	}()
	return t.a.opts.Transport.Stream(t.ctx, req, t.onDelta)
}

// midStream reports an error that arrived after the stream had started.
func midStream(err error) bool {
	var ae *providers.APIError
	return errors.As(err, &ae) && ae.MidStream
}

// neverSent reports a failure to connect: the request never left.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// onDelta forwards streamed fragments as events.
func (t *turn) onDelta(d providers.Delta) {
	switch d.Kind {
	case providers.DeltaText:
		t.emit(&MessageDelta{Text: d.Text})
	case providers.DeltaReasoning:
		t.emit(&ReasoningDelta{Text: d.Text})
	}
}

// callFailed ends the loop after a call that could not be completed.
func (t *turn) callFailed(resp *providers.Response, err error) {
	if t.stopped() {
		t.exit = ExitInterruptedDuringAPI
		return
	}
	t.lastErr = err
	var ce *callError
	if errors.As(err, &ce) && ce.class.Reason == "content_policy_blocked" {
		t.exit = ExitContentPolicyBlocked
		t.final = "The provider blocked this request under its content policy: " + firstLine(ce.err.Error())
		return
	}
	if resp != nil && strings.TrimSpace(resp.Content) != "" {
		// Keep what was streamed before the stream broke.
		msg := normalize(resp.Message())
		msg.ToolCalls, msg.FinishReason = nil, providers.FinishError
		t.append(msg)
		t.final = msg.Content
		t.exit = ExitPartialStreamRecovery
		return
	}
	if neverSent(err) {
		t.refund("request_never_sent")
	}
	t.final = "API call failed: " + firstLine(err.Error())
	t.exit = ExitRetriesExhausted
	if max := t.a.opts.MaxIterations; max > 1 && t.apiCalls >= max-1 {
		reason := "unknown"
		if errors.As(err, &ce) {
			reason = ce.class.Reason
		}
		t.exit = ExitErrorNearMax(reason)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
