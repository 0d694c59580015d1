package loop

import (
	"context"
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

// call sends one request through the inner retry loop. On an error it
// classifies, then rotates the credential, falls back to the next backend,
// or backs off (honouring Retry-After up to the cap) and tries again, until
// it succeeds, the error is final, or the turn is interrupted.
func (t *turn) call(req providers.Request) (*providers.Response, error) {
	pol := t.a.opts.Retry
	if req.ReasoningEffort == "" {
		req.ReasoningEffort = t.a.route.backend().ReasoningEffort
	}
	if t.textOnly(&req) && hasImages(req.Messages) {
		req.Messages = stripImages(req.Messages)
	}
	retries := 0
	var once attemptState
	var last providers.Classified // the latest error's class
	for attempt := 1; ; attempt++ {
		tr, key, err := t.a.route.transport()
		if err != nil {
			again, err := t.noTransport(&req, pol, &retries, &last, attempt, err)
			if again {
				continue
			}
			return nil, err
		}
		resp, err := t.attempt(attempt, tr, req)
		if err == nil {
			return resp, nil
		}
		if _, big := err.(*responseTooLarge); big || t.stopped() {
			return resp, err
		}
		t.lastErr = err
		class := t.classify(err, req)
		last = class
		final := &callError{class: class, attempts: attempt, err: err}
		if resp != nil && resp.Content != "" && midStream(err) {
			return resp, final // text already reached the user: keep it
		}
		if class.Reason == providers.ReasonContentPolicyBlocked {
			// A different model may answer: the next backend, once a turn.
			if t.policyFallback(&req) {
				retries = 0
				continue
			}
			return resp, final
		}
		if class.ShouldCompress {
			return resp, final
		}
		if once.recover(class, &req) || t.requireReasoning(&once, class, &req) {
			if once.imagesStripped {
				t.a.noImages.Store(true) // the same backend refuses them on every call
			}
			continue
		}
		var ae providers.APIError
		if p := asAPIError(err); p != nil {
			ae = *p
		}
		delay, honoured, tooLong := providers.RetryDelay(class, retries+1, ae.Headers, ae.Body, pol, t.a.jitter.Float(), t.a.opts.Now())
		maxRetries := maxRetriesFor(class, pol.MaxRetries)
		// A usage limit whose reset the server stated, within the cap: wait
		// for it rather than rotating or falling back.
		waitReset := class.StructuredReset && honoured && !tooLong && class.Retryable && retries < maxRetries
		if !waitReset && class.ShouldRotateCredential && t.a.route.chain.Pool().Len() > 1 && t.rotate(key, class, honoured, delay) {
			continue
		}
		if !waitReset && (providers.ShouldFallbackNow(class, retries, false) || (tooLong && class.ShouldFallback)) && t.fallback(&req, class.Reason) {
			retries = 0
			continue
		}
		if !class.Retryable || retries >= maxRetries || tooLong {
			if class.ShouldFallback && t.fallback(&req, class.Reason) {
				retries = 0
				continue
			}
			if tooLong {
				final.err = fmt.Errorf("%w (the server asked to wait %s, over agent.retry_after_cap %s)", err, delay.Round(time.Second), pol.RetryAfterCap)
			}
			return resp, final
		}
		retries++
		t.emit(&RetryScheduled{Attempt: retries + 1, MaxAttempts: maxRetries + 1, DelayMS: delay.Milliseconds(), Reason: class.Reason.String(), Status: class.Status, Message: retryMessage(class, err)})
		if !providers.Sleep(t.ctx, delay) {
			return nil, t.ctx.Err()
		}
	}
}

// noTransport handles a backend whose every key is resting or dead (err
// says why): it falls back to the next backend, or waits for the first key
// to come back (counting a retry), or gives up with the reason that put
// the keys to rest. again reports that the loop should try again.
func (t *turn) noTransport(req *providers.Request, pol providers.RetryPolicy, retries *int, last *providers.Classified, attempt int, err error) (again bool, _ error) {
	// Every key of this backend is resting or dead: fall back, or wait for
	// the first key to come back, or give up with the reason that put the
	// keys to rest.
	reason := last.Reason
	if reason == "" {
		reason = t.a.route.chain.Pool().RestingReason()
	}
	if t.fallback(req, reason) {
		*retries = 0
		return true, nil
	}
	if wait, ok := t.keyReset(pol, *retries); ok {
		*retries++
		t.emit(&RetryScheduled{Attempt: *retries + 1, MaxAttempts: pol.MaxRetries + 1, DelayMS: wait.Milliseconds(), Reason: reason.String(), Status: last.Status, Message: err.Error()})
		if !providers.Sleep(t.ctx, wait) {
			return false, t.ctx.Err()
		}
		return true, nil
	}
	if last.Reason == "" {
		*last = providers.Classified{Reason: providers.ReasonAuth, Message: err.Error()}
	}
	return false, &callError{class: *last, attempts: attempt, err: err}
}

// maxRetriesFor is how many retries an error of class gets: the policy's,
// more for adaptive backoff, fewer for a refused connection.
func maxRetriesFor(class providers.Classified, policy int) int {
	n := policy
	if class.AdaptiveBackoff {
		n = max(n, providers.AdaptiveRetries)
	}
	if class.Reason == providers.ReasonConnectionRefused {
		n = min(n, providers.ConnectionRefusedRetries)
	}
	return n
}

// keyReset is how long until a resting key of the current backend comes
// back, when that wait fits the retry policy.
func (t *turn) keyReset(pol providers.RetryPolicy, retries int) (time.Duration, bool) {
	at, ok := t.a.route.chain.Pool().NextReset()
	if !ok || retries >= pol.MaxRetries {
		return 0, false
	}
	wait := at.Sub(t.a.opts.Now())
	if wait < 0 {
		wait = 0
	}
	if pol.RetryAfterCap > 0 && wait > pol.RetryAfterCap {
		return 0, false
	}
	return wait, true
}

// classify sorts an error with what the turn knows about the request.
func (t *turn) classify(err error, req providers.Request) providers.Classified {
	var local *localError
	if errors.As(err, &local) {
		return providers.Classified{Reason: providers.ReasonLocalError, Message: err.Error()}
	}
	b := t.a.route.backend()
	return providers.ClassifyWith(err, providers.ClassifyInput{
		Provider: b.Provider, Model: b.Model, ContextLength: b.ContextLength, BaseURL: b.BaseURL,
		ApproxTokens: t.a.estimate(req), MessageCount: len(req.Messages),
	})
}

// rotate moves the pool off a failing key; it reports whether another key
// is now current.
func (t *turn) rotate(key string, class providers.Classified, honoured bool, delay time.Duration) bool {
	var resetAt time.Time
	if honoured {
		resetAt = t.a.opts.Now().Add(delay)
	}
	pool := t.a.route.chain.Pool()
	if !pool.Report(key, class, resetAt) {
		return false
	}
	t.emit(&CredentialRotated{Provider: pool.Provider(), Reason: class.Reason.String()})
	return true
}

// fallback switches to the next backend of the chain: the in-memory system
// prompt's Model:/Provider: lines and the request being retried follow.
func (t *turn) fallback(req *providers.Request, reason providers.FailoverReason) bool {
	from := t.a.route.backend()
	to, ok := t.a.route.chain.Advance()
	if !ok {
		return false
	}
	t.sysPrompt = providers.RewriteRuntimeLines(t.sysPrompt, to.Provider, to.Model)
	if to.MaxTokens > 0 {
		t.maxTokens = to.MaxTokens
	}
	if req != nil {
		req.Model, req.MaxTokens, req.ReasoningEffort = to.Model, t.maxTokens, to.ReasoningEffort
		if len(req.Messages) > 0 && req.Messages[0].Role == providers.RoleSystem {
			req.Messages[0].Content = t.sysPrompt
		}
	}
	t.emit(&FallbackActivated{From: Backend{Provider: from.Provider, Model: from.Model}, To: Backend{Provider: to.Provider, Model: to.Model}, Reason: reason.String()})
	return true
}

func asAPIError(err error) *providers.APIError {
	var ae *providers.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// localError is a failure in our own code while handling a response. It is
// deterministic, so it is never retried.
type localError struct{ msg string }

func (e *localError) Error() string { return "internal error: " + e.msg }

// stream performs one attempt, turning a panic in our own response handling
// into a localError.
func (t *turn) stream(tr Transport, req providers.Request, onDelta func(providers.Delta)) (resp *providers.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, &localError{msg: fmt.Sprint(p)}
		}
	}()
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	t.size = &sizeGuard{limit: t.a.opts.MaxResponseBytes, cancel: cancel}
	t.streamed.Reset()
	resp, err = tr.Stream(ctx, req, onDelta)
	return resp, t.size.check(resp, err)
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
	d, show := t.size.admit(d)
	if !show {
		return
	}
	switch d.Kind {
	case providers.DeltaText:
		t.streamed.WriteString(d.Text)
		t.emit(&MessageDelta{Text: d.Text})
	case providers.DeltaReasoning:
		t.emit(&ReasoningDelta{Text: d.Text})
	}
}

// callFailed ends the loop after a call that could not be completed.
func (t *turn) callFailed(resp *providers.Response, err error) {
	if t.stopped() {
		t.exit = ExitInterruptedDuringAPI.Exit()
		t.keepInterrupted(resp)
		return
	}
	t.lastErr = err
	if _, big := err.(*responseTooLarge); big {
		t.responseTooLargeExit(resp)
		return
	}
	var ce *callError
	if errors.As(err, &ce) && ce.class.Reason == providers.ReasonContentPolicyBlocked {
		t.exit = ExitContentPolicyBlocked.Exit()
		t.final = "The provider blocked this request under its content policy: " + firstLine(ce.err.Error())
		return
	}
	if t.contextOverflowed(err) {
		return
	}
	if resp != nil && strings.TrimSpace(resp.Content) != "" {
		// Keep what was streamed before the stream broke.
		msg := normalize(resp.Message())
		msg.ToolCalls, msg.FinishReason = nil, providers.FinishError
		t.append(msg)
		t.final = msg.Content
		t.exit = ExitPartialStreamRecovery.Exit()
		return
	}
	if neverSent(err) {
		t.refund("request_never_sent")
	}
	t.final = "API call failed: " + firstLine(err.Error())
	if ce != nil && ce.class.Reason == providers.ReasonBilling {
		t.final = billingMessage(ce)
	}
	t.exit = ExitRetriesExhausted.Exit()
	if max := t.a.opts.MaxIterations; max > 1 && t.apiCalls >= max-1 {
		reason := providers.ReasonUnknown
		if errors.As(err, &ce) {
			reason = ce.class.Reason
		}
		t.exit = ExitErrorNearMax(reason.String())
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
