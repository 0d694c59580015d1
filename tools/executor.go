package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// stopReceiptCap caps what a StopReceipt repeats of the stopped call's
// output.
const stopReceiptCap = 8000

// StopReceipt is the result text of a call the user cancelled on its own
// while the rest of the batch went on: who stopped it, after how long, and
// what it had printed (its end, when long).
func StopReceipt(name string, ran time.Duration, printed string) string {
	if ran <= 0 {
		return fmt.Sprintf("[The user cancelled this %s call before it started; the other calls of the batch went on. Do not retry it unless the user asks.]", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[The user stopped this %s call after %s; the other calls of the batch went on. Do not retry it unless the user asks.]", name, ran.Round(100*time.Millisecond))
	printed = strings.TrimSpace(printed)
	switch {
	case printed == "":
		b.WriteString("\nIt had printed nothing.")
	case len(printed) > stopReceiptCap:
		cut := len(printed) - stopReceiptCap
		for cut < len(printed) && !utf8.RuneStart(printed[cut]) {
			cut++
		}
		fmt.Fprintf(&b, "\nWhat it had printed (the last %d bytes):\n%s", len(printed)-cut, printed[cut:])
	default:
		b.WriteString("\nWhat it had printed:\n" + printed)
	}
	return b.String()
}

// IsStopReceipt reports whether a result is a StopReceipt.
func IsStopReceipt(s string) bool {
	return strings.HasPrefix(s, "[The user stopped this ") || strings.HasPrefix(s, "[The user cancelled this ")
}

// CallCancels lets the user cancel one running (or not yet started) call of
// a batch by its tool_call_id while the others go on. Its zero value is
// ready; it is safe for concurrent use. One batch at a time uses it.
type CallCancels struct {
	mu    sync.Mutex
	calls map[string]context.CancelFunc
}

// Cancel ends the call with tool_call_id id. It reports false when no call
// of the running batch has that id or it has already finished.
func (cc *CallCancels) Cancel(id string) bool {
	if cc == nil {
		return false
	}
	cc.mu.Lock()
	cancel, ok := cc.calls[id]
	delete(cc.calls, id)
	cc.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// Running lists the ids that Cancel would accept now.
func (cc *CallCancels) Running() []string {
	if cc == nil {
		return nil
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	ids := make([]string, 0, len(cc.calls))
	for id := range cc.calls {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// open gives every call its own context under ctx and registers its
// cancel. Without a CallCancels every call runs under ctx itself.
func (cc *CallCancels) open(ctx context.Context, calls []BatchCall) []context.Context {
	ctxs := make([]context.Context, len(calls))
	if cc == nil {
		for i := range ctxs {
			ctxs[i] = ctx
		}
		return ctxs
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.calls == nil {
		cc.calls = map[string]context.CancelFunc{}
	}
	for i, c := range calls {
		ctxs[i] = ctx
		if _, dup := cc.calls[c.ID]; dup || c.ID == "" {
			continue // ids must be unique to be cancelled; this one runs on
		}
		var cancel context.CancelFunc
		ctxs[i], cancel = context.WithCancel(ctx)
		cc.calls[c.ID] = cancel
	}
	return ctxs
}

// done forgets call id once it has finished, releasing its context.
func (cc *CallCancels) done(id string) { cc.Cancel(id) }

// close forgets the batch's calls, releasing their contexts.
func (cc *CallCancels) close(calls []BatchCall) {
	for _, c := range calls {
		cc.done(c.ID)
	}
}

// DefaultMaxWorkers is how many calls of a parallel segment run at once
// when Executor.MaxWorkers is not set.
const DefaultMaxWorkers = 8

// CancelReceipt is the result text of a call that an interrupt skipped
// before it started.
func CancelReceipt(name string) string {
	return fmt.Sprintf("[Tool execution cancelled — %s was skipped due to user interrupt]", name)
}

// CallResult is the outcome of one call of a batch.
type CallResult struct {
	// Index is the call's position in the batch.
	Index int
	// ID and Name are the call's tool_call_id and tool name.
	ID, Name string
	// Result is what the model reads.
	Result Result
	// Cancelled is true when the call was skipped by an interrupt (Result
	// is then the CancelReceipt) or was running when the interrupt came.
	Cancelled bool
	// Duration is how long the tool ran; zero when it did not run.
	Duration time.Duration
	// Segment is the index of the call's segment in the plan.
	Segment int
	// Panicked is true when a panic (in a hook or the registry) was
	// recovered while handling the call; Result then reports it.
	Panicked bool
	// Stopped is true when the user cancelled this call alone
	// (CallCancels.Cancel); Cancelled is then true too and Result is a
	// StopReceipt.
	Stopped bool
	// Diff is the unified diff the tool reported (ReportDiff), "" if none.
	Diff string
}

// ExecHooks lets the caller watch and steer a batch. Every hook may be nil.
// Hooks of the calls of a parallel segment run concurrently, on worker
// goroutines, so they must be safe for concurrent use. A panic in a hook is
// recovered.
type ExecHooks struct {
	// OnStart is called when a call starts running, after Before allowed
	// it; never for a call that was skipped or overridden.
	OnStart func(seg int, index int, c BatchCall)
	// OnDone is called exactly once per call with its final result,
	// including skipped and overridden calls.
	OnDone func(seg int, r CallResult)
	// Before is called once before a call would start (guardrails,
	// approvals). A non-nil result is used instead of running the tool.
	// It cannot be interrupted, so it should return promptly once the
	// batch's context is cancelled; the call is then skipped.
	Before func(index int, c BatchCall) (override *Result)
	// After is called once after a tool ran to completion (not for skipped,
	// overridden or interrupted calls) and may change the result, e.g.
	// append a warning to Output.
	After func(index int, c BatchCall, r *Result)
	// OnOutput receives a running call's live output (see Output),
	// coalesced by an OutputStream: in order per call, about ten times a
	// second at most, and always before that call's OnDone. Nil leaves
	// tools' output unwatched.
	OnOutput func(index int, c BatchCall, text string)
}

// Executor runs planned batches against a registry.
type Executor struct {
	// Registry holds the tools.
	Registry *Registry
	// MaxWorkers caps the calls of a parallel segment that run at once;
	// zero or less means DefaultMaxWorkers.
	MaxWorkers int
	// Cancels, when set, lets single calls of the running batch be
	// cancelled by tool_call_id while the others go on.
	Cancels *CallCancels
}

// Run executes calls segment by segment, in plan order, and returns exactly
// one result per call, in call order. The calls of a parallel segment run on
// min(len, MaxWorkers) goroutines; a sequential segment runs them one at a
// time. When segs is not an in-order partition of the calls (as PlanBatch
// returns), every call runs sequentially instead.
//
// env is shared by every call, concurrently: tools must treat it as
// read-only. When ctx is cancelled, calls that have not started get
// Cancelled with a CancelReceipt, running calls see the cancellation through
// their context and are waited for (Run never returns while a tool still
// runs) and are marked Cancelled too.
func (e *Executor) Run(ctx context.Context, env *Env, calls []BatchCall, segs []Segment, hooks ExecHooks) []CallResult {
	if !validPlan(segs, len(calls)) {
		all := make([]int, len(calls))
		for i := range all {
			all[i] = i
		}
		segs = []Segment{{Calls: all}}
		if len(calls) == 0 {
			segs = nil
		}
	}
	results := make([]CallResult, len(calls))
	ctxs := e.Cancels.open(ctx, calls)
	defer e.Cancels.close(calls)
	for si, seg := range segs {
		if !seg.Parallel || len(seg.Calls) == 1 {
			for _, i := range seg.Calls {
				results[i] = e.runOne(ctx, ctxs[i], env, si, i, calls[i], hooks)
			}
			continue
		}
		e.runParallel(ctx, ctxs, env, si, seg.Calls, calls, hooks, results)
	}
	return results
}

// runParallel runs the calls at idx on a bounded pool of workers that take
// calls in order, and fills results.
func (e *Executor) runParallel(ctx context.Context, ctxs []context.Context, env *Env, si int, idx []int, calls []BatchCall, hooks ExecHooks, results []CallResult) {
	workers := e.MaxWorkers
	if workers <= 0 {
		workers = DefaultMaxWorkers
	}
	workers = min(workers, len(idx))
	next := make(chan int, len(idx))
	for _, i := range idx {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				results[i] = e.runOne(ctx, ctxs[i], env, si, i, calls[i], hooks)
			}
		})
	}
	wg.Wait()
}

// runOne handles call i from start to OnDone: skip on interrupt, Before,
// OnStart, the tool, After. ctx is the batch's context, cctx the call's own
// (ctx, or a child of it that CallCancels can end alone).
func (e *Executor) runOne(ctx, cctx context.Context, env *Env, si, i int, c BatchCall, hooks ExecHooks) (r CallResult) {
	r = CallResult{Index: i, ID: c.ID, Name: c.Name, Segment: si}
	defer func() { safeHook(&r, func() { callOnDone(hooks.OnDone, si, r) }) }()
	if cctx.Err() != nil {
		return skippedCall(ctx, r)
	}
	if hooks.Before != nil {
		var override *Result
		ok := safeHook(&r, func() { override = hooks.Before(i, c) })
		switch {
		case !ok:
			r.Result = Errorf("%s was not run: its pre-call check failed (internal error)", c.Name)
			return r
		case override != nil:
			r.Result = *override
			return r
		}
		if cctx.Err() != nil {
			return skippedCall(ctx, r)
		}
	}
	if hooks.OnStart != nil {
		safeHook(&r, func() { hooks.OnStart(si, i, c) })
	}
	cio := &callIO{}
	var stream *OutputStream
	if hooks.OnOutput != nil {
		stream = NewOutputStream(func(text string) {
			defer func() { _ = recover() }() // a panicking watcher loses its events, not the call
			hooks.OnOutput(i, c, text)
		})
		cio.out = stream
	}
	start := time.Now()
	if !safeHook(&r, func() { r.Result = e.call(withCallIO(cctx, cio), env, c) }) {
		r.Result = Errorf("tool %s crashed", c.Name)
	}
	r.Duration = time.Since(start)
	if stream != nil {
		stream.Close() // every output event before OnDone
	}
	r.Diff = cio.diffText()
	r.Cancelled = cctx.Err() != nil
	if cctx != ctx {
		e.Cancels.done(c.ID)
	}
	if r.Cancelled && ctx.Err() == nil {
		r.Stopped = true
		printed := r.Result.Output
		if printed == "" && stream != nil {
			printed = stream.Tail()
		}
		r.Result = Result{Output: StopReceipt(c.Name, r.Duration, printed), IsError: true}
	}
	if hooks.After != nil && !r.Cancelled {
		res := r.Result
		if safeHook(&r, func() { hooks.After(i, c, &res) }) {
			r.Result = res
		}
	}
	return r
}

// skippedCall marks r as skipped before it started: by an interrupt of the
// batch (ctx done) or by the user cancelling this call alone.
func skippedCall(ctx context.Context, r CallResult) CallResult {
	if ctx.Err() != nil {
		return skipped(r)
	}
	r.Cancelled, r.Stopped = true, true
	r.Result = Result{Output: StopReceipt(r.Name, 0, ""), IsError: true}
	return r
}

// call runs one tool through the registry.
func (e *Executor) call(ctx context.Context, env *Env, c BatchCall) Result {
	if e.Registry == nil {
		return Errorf("no tools are available (the tool registry is missing); %s was not run", c.Name)
	}
	return e.Registry.Call(ctx, env, c.Name, c.Arguments)
}

// skipped marks r as skipped by an interrupt.
func skipped(r CallResult) CallResult {
	r.Cancelled = true
	r.Result = Result{Output: CancelReceipt(r.Name), IsError: true}
	return r
}

// callOnDone calls f when it is set.
func callOnDone(f func(int, CallResult), si int, r CallResult) {
	if f != nil {
		f(si, r)
	}
}

// safeHook runs f, recovering a panic: it then sets r.Panicked and returns
// false.
func safeHook(r *CallResult, f func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r.Panicked = true
			ok = false
		}
	}()
	f()
	return true
}

// validPlan reports whether segs list 0..n-1 exactly once each, in order.
func validPlan(segs []Segment, n int) bool {
	next := 0
	for _, s := range segs {
		for _, i := range s.Calls {
			if i != next {
				return false
			}
			next++
		}
	}
	return next == n
}
