package loop

import (
	"errors"
	"fmt"
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
		resp, err := t.a.opts.Transport.Stream(t.ctx, req, t.onDelta)
		if err == nil {
			return resp, nil
		}
		if t.stopped() {
			return resp, err
		}
		class := providers.Classify(err)
		t.lastErr = err
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
	t.exit = ExitRetriesExhausted
	t.final = "API call failed: " + firstLine(err.Error())
	if resp != nil && strings.TrimSpace(resp.Content) != "" {
		// Keep what was streamed before the stream broke.
		t.final = resp.Content
		t.exit = ExitPartialStreamRecovery
		t.append(providers.Message{Role: providers.RoleAssistant, Content: resp.Content, FinishReason: providers.FinishError})
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
