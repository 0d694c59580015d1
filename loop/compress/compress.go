package compress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"talaria/providers"
)

// Result reports one Compress call.
type Result struct {
	// TokensBefore and TokensAfter are estimates of the history (system
	// prompt and tools not included) before and after.
	TokensBefore, TokensAfter int
	// Pruned is how many messages the pruning step changed.
	Pruned int
	// UsedFallback is true when the summary came from FallbackSummary.
	UsedFallback bool
	// SummaryFailed is true when the summary call failed (the cause of a
	// fallback summary, or of an abort): it starts the Governor's cooldown.
	SummaryFailed bool
	// Noop is true when nothing changed.
	Noop bool
	// Summary is the summary body inserted (without prefix).
	Summary string
	// Cut is how many tool results were cut to fit Options.FitTokens.
	Cut int
	// Fits reports, with Options.FitTokens, that the history now fits.
	Fits bool
}

// Compress runs one compression (hermes.md §8): prune old tool outputs
// outside the budget tail, plan head/middle/tail, ask model for a summary
// of the middle through t (one Stream call, no tools, no delta callback)
// and apply it. previousSummary (or the summary message found in the
// middle) is updated rather than rewritten. It returns a new slice and never
// modifies msgs.
//
// When the plan has no middle, only the pruning applies (Noop when it
// changed nothing either). When the summary call fails with an auth error
// or a network failure, or ctx ends, msgs come back unchanged (copied) with
// the error; any other failure, an empty answer or opts.SkipSummary insert
// FallbackSummary instead.
func Compress(ctx context.Context, t providers.Transport, model string, msgs []providers.Message, previousSummary string, opts Options) ([]providers.Message, Result, error) {
	o := opts.withDefaults()
	fit := o.FitTokens > 0
	res := Result{TokensBefore: Estimate(msgs, nil)}
	// The current iteration's tool results are never pruned before the
	// model has seen them.
	protect := min(PruneBoundary(msgs, o), UnseenStart(msgs))
	if fit {
		protect = UnseenStart(msgs)
		o.ProtectFirstN = 1
	}
	pruned, n := PruneToolOutputs(msgs, protect)
	res.Pruned = n
	plan := PlanCompression(pruned, o)
	if fit {
		plan = fitPlan(pruned, plan, o)
	}
	plan.Pruned = n
	if plan.Noop {
		out := pruned
		if fit {
			out, res.Cut = cutToFit(out, o.FitTokens)
		}
		res.TokensAfter = Estimate(out, nil)
		res.Noop = n == 0 && res.Cut == 0
		res.Fits = fit && res.TokensAfter <= o.FitTokens
		return out, res, nil
	}
	middle := pick(pruned, plan.Middle)
	summary := ""
	if !o.SkipSummary {
		focus := ""
		if o.Focus == "" {
			focus = deriveFocus(pruned)
		}
		req := summaryRequest(middle, previousSummary, o, focus)
		req.Model = model
		var err error
		summary, err = callSummary(ctx, t, req)
		if err != nil {
			res.SummaryFailed = true
			if ctx.Err() != nil || abortsCompression(err) {
				res.TokensAfter = res.TokensBefore
				res.Noop = true
				return append([]providers.Message(nil), msgs...), res, err
			}
		}
	}
	if summary == "" {
		summary = fallbackWithPrevious(middle, previousSummary)
		res.UsedFallback = true
	}
	if fit {
		kept := Estimate(pick(pruned, plan.Head), nil) + Estimate(pick(pruned, plan.Tail), nil)
		summary = fitSummary(summary, o.FitTokens-kept-EstimateText(SummaryPrefix+summaryEnd)-2*MessageOverhead)
	}
	out := Apply(pruned, plan, summary)
	if fit {
		out, res.Cut = cutToFit(out, o.FitTokens)
	}
	res.Summary = summary
	res.TokensAfter = Estimate(out, nil)
	res.Fits = fit && res.TokensAfter <= o.FitTokens
	return out, res, nil
}

// callSummary performs the summary call and cleans its text: a leading
// <think> block and an echoed summary prefix are removed. An empty answer
// is an error.
func callSummary(ctx context.Context, t providers.Transport, req providers.Request) (string, error) {
	resp, err := t.Stream(ctx, req, nil)
	if err != nil {
		return "", err
	}
	if resp == nil {
		return "", errors.New("summary call returned no response")
	}
	s := strings.TrimSpace(resp.Content)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	if body, _, ok := splitSummary(s); ok {
		s = body
	}
	if s == "" {
		return "", fmt.Errorf("summary call returned no text (finish reason %q)", resp.FinishReason)
	}
	return s, nil
}

// abortsCompression reports the failures after which compression must
// leave the history alone (hermes.md §8): auth errors, and network
// failures (no connection, a timeout, a TLS failure, a stream cut short).
func abortsCompression(err error) bool {
	switch providers.Classify(err).Reason {
	case providers.ReasonAuth, providers.ReasonAuthPermanent,
		providers.ReasonTimeout, providers.ReasonSSLCertVerification:
		return true
	}
	return isNetwork(err)
}

// isNetwork reports a transport failure rather than an answer from the
// provider.
func isNetwork(err error) bool {
	var ne net.Error
	var ue *url.Error
	if errors.As(err, &ne) || errors.As(err, &ue) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ae *providers.APIError
	return errors.As(err, &ae) && ae.Status == 0 && !ae.MidStream && ae.Err != nil
}
