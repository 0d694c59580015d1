package tools

import (
	"context"
	"fmt"
	"sync"
	"time"
)

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
}

// Executor runs planned batches against a registry.
type Executor struct {
	// Registry holds the tools.
	Registry *Registry
	// MaxWorkers caps the calls of a parallel segment that run at once;
	// zero or less means DefaultMaxWorkers.
	MaxWorkers int
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
	for si, seg := range segs {
		if !seg.Parallel || len(seg.Calls) == 1 {
			for _, i := range seg.Calls {
				results[i] = e.runOne(ctx, env, si, i, calls[i], hooks)
			}
			continue
		}
		e.runParallel(ctx, env, si, seg.Calls, calls, hooks, results)
	}
	return results
}

// runParallel runs the calls at idx on a bounded pool of workers that take
// calls in order, and fills results.
func (e *Executor) runParallel(ctx context.Context, env *Env, si int, idx []int, calls []BatchCall, hooks ExecHooks, results []CallResult) {
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
				results[i] = e.runOne(ctx, env, si, i, calls[i], hooks)
			}
		})
	}
	wg.Wait()
}

// runOne handles call i from start to OnDone: skip on interrupt, Before,
// OnStart, the tool, After.
func (e *Executor) runOne(ctx context.Context, env *Env, si, i int, c BatchCall, hooks ExecHooks) (r CallResult) {
	r = CallResult{Index: i, ID: c.ID, Name: c.Name, Segment: si}
	defer func() { safeHook(&r, func() { callOnDone(hooks.OnDone, si, r) }) }()
	if ctx.Err() != nil {
		return skipped(r)
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
		if ctx.Err() != nil {
			return skipped(r)
		}
	}
	if hooks.OnStart != nil {
		safeHook(&r, func() { hooks.OnStart(si, i, c) })
	}
	start := time.Now()
	if !safeHook(&r, func() { r.Result = e.call(ctx, env, c) }) {
		r.Result = Errorf("tool %s crashed", c.Name)
	}
	r.Duration = time.Since(start)
	r.Cancelled = ctx.Err() != nil
	if hooks.After != nil && !r.Cancelled {
		res := r.Result
		if safeHook(&r, func() { hooks.After(i, c, &res) }) {
			r.Result = res
		}
	}
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
