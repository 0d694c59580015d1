package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gateTool blocks every call until the test releases it by its "n"
// argument, and tracks how many calls run at once.
type gateTool struct {
	started  chan int
	release  map[int]chan struct{}
	running  atomic.Int32
	maxSeen  atomic.Int32
	finished atomic.Int32
}

func newGateTool(n int) *gateTool {
	g := &gateTool{started: make(chan int, n), release: map[int]chan struct{}{}}
	for i := range n {
		g.release[i] = make(chan struct{})
	}
	return g
}

func (g *gateTool) Name() string            { return "gate" }
func (g *gateTool) Traits() Traits          { return Traits{} }
func (g *gateTool) Description() string     { return "test gate" }
func (g *gateTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (g *gateTool) Run(ctx context.Context, _ *Env, raw json.RawMessage) Result {
	var a struct{ N int }
	_ = json.Unmarshal(raw, &a)
	cur := g.running.Add(1)
	for {
		m := g.maxSeen.Load()
		if cur <= m || g.maxSeen.CompareAndSwap(m, cur) {
			break
		}
	}
	g.started <- a.N
	defer g.running.Add(-1)
	defer g.finished.Add(1)
	select {
	case <-g.release[a.N]:
		return Result{Output: fmt.Sprintf("done %d", a.N)}
	case <-ctx.Done():
		return Result{Output: fmt.Sprintf("cancelled %d", a.N), IsError: true}
	}
}

// funcTool runs a function.
type funcTool struct {
	name string
	fn   func(ctx context.Context, raw json.RawMessage) Result
}

func (f funcTool) Name() string            { return f.name }
func (f funcTool) Traits() Traits          { return Traits{} }
func (f funcTool) Description() string     { return "test tool" }
func (f funcTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f funcTool) Run(ctx context.Context, _ *Env, raw json.RawMessage) Result {
	return f.fn(ctx, raw)
}

func gateCalls(n int) []BatchCall {
	calls := make([]BatchCall, n)
	for i := range calls {
		calls[i] = BatchCall{ID: fmt.Sprintf("c%d", i), Name: "gate", Arguments: fmt.Sprintf(`{"n":%d}`, i)}
	}
	return calls
}

func allIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// checkOneEach fails unless results hold exactly one result per call, in
// call order.
func checkOneEach(t *testing.T, calls []BatchCall, res []CallResult) {
	t.Helper()
	if len(res) != len(calls) {
		t.Fatalf("%d results for %d calls", len(res), len(calls))
	}
	for i, r := range res {
		if r.Index != i || r.ID != calls[i].ID || r.Name != calls[i].Name {
			t.Fatalf("result %d is %+v, want call %+v", i, r, calls[i])
		}
	}
}

func TestExecutorOrderUnderRandomCompletion(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		const n = 24
		g := newGateTool(n)
		e := &Executor{Registry: NewRegistry(g), MaxWorkers: n}
		calls := gateCalls(n)
		order := rand.New(rand.NewSource(seed)).Perm(n)
		go func() {
			for range n {
				<-g.started
			}
			for _, i := range order {
				close(g.release[i])
			}
		}()
		res := e.Run(context.Background(), &Env{}, calls, []Segment{{Parallel: true, Calls: allIdx(n)}}, ExecHooks{})
		checkOneEach(t, calls, res)
		for i, r := range res {
			if r.Result.Output != fmt.Sprintf("done %d", i) || r.Cancelled || r.Result.IsError {
				t.Fatalf("seed %d: result %d = %+v", seed, i, r)
			}
		}
		if g.maxSeen.Load() != n {
			t.Errorf("seed %d: %d ran at once, want all %d", seed, g.maxSeen.Load(), n)
		}
	}
}

func TestExecutorMaxWorkers(t *testing.T) {
	for _, tc := range []struct{ workers, n, want int }{{3, 10, 3}, {0, 12, DefaultMaxWorkers}, {8, 2, 2}} {
		g := newGateTool(tc.n)
		e := &Executor{Registry: NewRegistry(g), MaxWorkers: tc.workers}
		calls := gateCalls(tc.n)
		done := make(chan []CallResult)
		go func() {
			done <- e.Run(context.Background(), &Env{}, calls, []Segment{{Parallel: true, Calls: allIdx(tc.n)}}, ExecHooks{})
		}()
		// Let the pool fill up, then free one call per start: each freed
		// worker must pick up the next queued call.
		var pending []int
		for range tc.want {
			pending = append(pending, <-g.started)
		}
		seen := tc.want
		for len(pending) > 0 {
			if r := g.running.Load(); r > int32(tc.want) {
				t.Fatalf("%d running, cap %d", r, tc.want)
			}
			close(g.release[pending[0]])
			pending = pending[1:]
			if seen < tc.n {
				select {
				case s := <-g.started:
					pending = append(pending, s)
					seen++
				case <-time.After(10 * time.Second):
					t.Fatal("no queued call started after a worker was freed")
				}
			}
		}
		res := <-done
		checkOneEach(t, calls, res)
		if got := int(g.maxSeen.Load()); got != tc.want {
			t.Errorf("workers=%d n=%d: max concurrent %d, want %d", tc.workers, tc.n, got, tc.want)
		}
	}
}

func TestExecutorSequentialSegmentsInOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	rec := funcTool{name: "rec", fn: func(_ context.Context, raw json.RawMessage) Result {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, string(raw))
		return Result{Output: string(raw)}
	}}
	calls := make([]BatchCall, 6)
	for i := range calls {
		calls[i] = BatchCall{ID: fmt.Sprint(i), Name: "rec", Arguments: fmt.Sprintf(`{"i":%d}`, i)}
	}
	segs := []Segment{{Calls: []int{0, 1}}, {Parallel: true, Calls: []int{2, 3}}, {Calls: []int{4, 5}}}
	res := (&Executor{Registry: NewRegistry(rec)}).Run(context.Background(), &Env{}, calls, segs, ExecHooks{})
	checkOneEach(t, calls, res)
	wantSeg := []int{0, 0, 1, 1, 2, 2}
	for i, r := range res {
		if r.Segment != wantSeg[i] {
			t.Errorf("call %d segment %d, want %d", i, r.Segment, wantSeg[i])
		}
	}
	if log[0] != `{"i":0}` || log[1] != `{"i":1}` || log[4] != `{"i":4}` || log[5] != `{"i":5}` {
		t.Errorf("sequential order broken: %v", log)
	}
}

func TestExecutorInvalidPlanFallsBackToSequential(t *testing.T) {
	calls := []BatchCall{{ID: "a", Name: "nope"}, {ID: "b", Name: "nope"}, {ID: "c", Name: "nope"}}
	for _, segs := range [][]Segment{nil, {{Calls: []int{0, 2}}}, {{Calls: []int{1, 0, 2}}}, {{Calls: []int{0, 1, 2, 2}}}} {
		res := (&Executor{Registry: NewRegistry()}).Run(context.Background(), &Env{}, calls, segs, ExecHooks{})
		checkOneEach(t, calls, res)
		for _, r := range res {
			if !r.Result.IsError || !strings.Contains(r.Result.Output, "does not exist") {
				t.Errorf("unknown tool result: %+v", r)
			}
		}
	}
	if res := (&Executor{}).Run(context.Background(), nil, nil, nil, ExecHooks{}); len(res) != 0 {
		t.Errorf("empty batch gave %d results", len(res))
	}
	res := (&Executor{}).Run(context.Background(), nil, calls[:1], nil, ExecHooks{})
	if !res[0].Result.IsError || !strings.Contains(res[0].Result.Output, "registry") {
		t.Errorf("nil registry: %+v", res[0])
	}
}

func TestExecutorPanics(t *testing.T) {
	boom := funcTool{name: "boom", fn: func(context.Context, json.RawMessage) Result { panic("kaboom") }}
	ok := funcTool{name: "ok", fn: func(context.Context, json.RawMessage) Result { return Result{Output: "fine"} }}
	e := &Executor{Registry: NewRegistry(boom, ok)}
	calls := []BatchCall{{ID: "1", Name: "boom"}, {ID: "2", Name: "ok"}, {ID: "3", Name: "ok"}, {ID: "4", Name: "ok"}, {ID: "5", Name: "ok"}}
	hooks := ExecHooks{
		Before: func(i int, c BatchCall) *Result {
			if i == 2 {
				panic("before")
			}
			return nil
		},
		After: func(i int, c BatchCall, r *Result) {
			if i == 3 {
				r.Output = "mangled"
				panic("after")
			}
		},
		OnStart: func(seg, i int, c BatchCall) {
			if i == 4 {
				panic("onstart")
			}
		},
		OnDone: func(seg int, r CallResult) {
			if r.Index == 1 {
				panic("ondone")
			}
		},
	}
	for _, segs := range [][]Segment{{{Parallel: true, Calls: allIdx(5)}}, {{Calls: allIdx(5)}}} {
		res := e.Run(context.Background(), &Env{}, calls, segs, hooks)
		checkOneEach(t, calls, res)
		if r := res[0]; !r.Result.IsError || !strings.Contains(r.Result.Output, "kaboom") {
			t.Errorf("tool panic: %+v", r)
		}
		if r := res[1]; r.Result.Output != "fine" || !r.Panicked {
			t.Errorf("OnDone panic: %+v", r)
		}
		if r := res[2]; !r.Result.IsError || !r.Panicked || r.Duration != 0 {
			t.Errorf("Before panic must not run the tool: %+v", r)
		}
		if r := res[3]; r.Result.Output != "fine" || !r.Panicked {
			t.Errorf("After panic keeps the result: %+v", r)
		}
		if r := res[4]; r.Result.Output != "fine" || !r.Panicked {
			t.Errorf("OnStart panic still runs the tool: %+v", r)
		}
	}
}

func TestExecutorHooksOnceEach(t *testing.T) {
	ok := funcTool{name: "ok", fn: func(_ context.Context, raw json.RawMessage) Result { return Result{Output: "ran " + string(raw)} }}
	e := &Executor{Registry: NewRegistry(ok), MaxWorkers: 2}
	const n = 9
	calls := make([]BatchCall, n)
	for i := range calls {
		calls[i] = BatchCall{ID: fmt.Sprint(i), Name: "ok", Arguments: fmt.Sprintf(`{"i":%d}`, i)}
	}
	var mu sync.Mutex
	counts := map[string]int{}
	bump := func(kind string, i int) {
		mu.Lock()
		defer mu.Unlock()
		counts[fmt.Sprintf("%s%d", kind, i)]++
	}
	hooks := ExecHooks{
		OnStart: func(seg, i int, c BatchCall) { bump("start", i) },
		OnDone:  func(seg int, r CallResult) { bump("done", r.Index) },
		Before: func(i int, c BatchCall) *Result {
			bump("before", i)
			if i == 4 {
				return &Result{Output: "blocked", IsError: true}
			}
			return nil
		},
		After: func(i int, c BatchCall, r *Result) {
			bump("after", i)
			r.Output += " +warn"
		},
	}
	segs := []Segment{{Calls: []int{0, 1}}, {Parallel: true, Calls: []int{2, 3, 4, 5, 6}}, {Calls: []int{7, 8}}}
	res := e.Run(context.Background(), &Env{}, calls, segs, hooks)
	checkOneEach(t, calls, res)
	for i := range n {
		for _, kind := range []string{"before", "done"} {
			if c := counts[fmt.Sprintf("%s%d", kind, i)]; c != 1 {
				t.Errorf("%s called %d times for call %d", kind, c, i)
			}
		}
		want := 1
		if i == 4 {
			want = 0
		}
		for _, kind := range []string{"start", "after"} {
			if c := counts[fmt.Sprintf("%s%d", kind, i)]; c != want {
				t.Errorf("%s called %d times for call %d, want %d", kind, c, i, want)
			}
		}
	}
	if res[4].Result.Output != "blocked" || res[3].Result.Output != `ran {"i":3} +warn` {
		t.Errorf("override / After: %q, %q", res[4].Result.Output, res[3].Result.Output)
	}
}

// TestExecutorCancelWithRealProcesses interrupts a batch while real `sleep
// 60` commands run in the terminal tool.
func TestExecutorCancelWithRealProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	sleep := BatchCall{Name: "terminal", Arguments: `{"command":"sleep 60"}`}
	rf := BatchCall{Name: "read_file", Arguments: `{"path":"x"}`}
	mk := func(cs ...BatchCall) []BatchCall {
		out := make([]BatchCall, len(cs))
		for i, c := range cs {
			c.ID = fmt.Sprint("call", i)
			out[i] = c
		}
		return out
	}
	cases := []struct {
		name      string
		calls     []BatchCall
		segs      []Segment
		waitStart int    // cancel after this many calls started
		want      string // per call: r = ran and was cancelled, s = skipped (receipt)
	}{
		{"parallel segment then more", mk(sleep, sleep, sleep, rf, rf), []Segment{{Parallel: true, Calls: []int{0, 1, 2}}, {Calls: []int{3, 4}}}, 3, "rrrss"},
		{"sequential segment", mk(sleep, sleep, rf), []Segment{{Calls: []int{0, 1, 2}}}, 1, "rss"},
		{"pool with queued calls", mk(sleep, sleep, sleep, sleep), []Segment{{Parallel: true, Calls: []int{0, 1, 2, 3}}}, 2, "rrss"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &Executor{Registry: NewRegistry(Builtins()...), MaxWorkers: 2}
			if tc.name == "parallel segment then more" {
				e.MaxWorkers = 8
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan int, len(tc.calls))
			var doneCount, afterCount atomic.Int32
			hooks := ExecHooks{
				OnStart: func(_ int, i int, _ BatchCall) { started <- i },
				OnDone:  func(int, CallResult) { doneCount.Add(1) },
				After:   func(int, BatchCall, *Result) { afterCount.Add(1) },
			}
			go func() {
				for range tc.waitStart {
					<-started
				}
				time.Sleep(100 * time.Millisecond) // let the shells exec sleep
				cancel()
			}()
			begin := time.Now()
			res := e.Run(ctx, &Env{Cwd: t.TempDir()}, tc.calls, tc.segs, hooks)
			if d := time.Since(begin); d > 20*time.Second {
				t.Fatalf("Run took %s after the interrupt", d)
			}
			checkOneEach(t, tc.calls, res)
			if int(doneCount.Load()) != len(tc.calls) || afterCount.Load() != 0 {
				t.Errorf("OnDone called %d times for %d calls; After %d times for interrupted calls", doneCount.Load(), len(tc.calls), afterCount.Load())
			}
			for i, r := range res {
				if !r.Cancelled || !r.Result.IsError {
					t.Errorf("call %d not cancelled: %+v", i, r)
				}
				switch tc.want[i] {
				case 's':
					if r.Result.Output != CancelReceipt(r.Name) || r.Duration != 0 {
						t.Errorf("call %d: want receipt, got %q", i, r.Result.Output)
					}
				case 'r':
					if !strings.Contains(r.Result.Output, "cancelled") || r.Duration == 0 {
						t.Errorf("call %d: want a terminated command, got %q", i, r.Result.Output)
					}
				}
			}
		})
	}
}

func TestExecutorCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var starts atomic.Int32
	calls := []BatchCall{{ID: "1", Name: "x"}, {ID: "2", Name: "y"}}
	res := (&Executor{Registry: NewRegistry()}).Run(ctx, &Env{}, calls, []Segment{{Parallel: true, Calls: []int{0, 1}}},
		ExecHooks{OnStart: func(int, int, BatchCall) { starts.Add(1) }})
	checkOneEach(t, calls, res)
	if starts.Load() != 0 || res[1].Result.Output != "[Tool execution cancelled — y was skipped due to user interrupt]" {
		t.Errorf("starts=%d res=%+v", starts.Load(), res)
	}
}

// sleepTool waits 50 ms, the stand-in for an I/O-bound tool.
func sleepTool() Tool {
	return funcTool{name: "nap", fn: func(context.Context, json.RawMessage) Result {
		time.Sleep(50 * time.Millisecond)
		return Result{Output: "ok"}
	}}
}

func benchmarkEight(b *testing.B, parallel bool) {
	e := &Executor{Registry: NewRegistry(sleepTool())}
	calls := make([]BatchCall, 8)
	for i := range calls {
		calls[i] = BatchCall{ID: fmt.Sprint(i), Name: "nap", Arguments: "{}"}
	}
	segs := []Segment{{Parallel: parallel, Calls: allIdx(8)}}
	for b.Loop() {
		e.Run(context.Background(), &Env{}, calls, segs, ExecHooks{})
	}
}

func BenchmarkParallel8(b *testing.B)   { benchmarkEight(b, true) }
func BenchmarkSequential8(b *testing.B) { benchmarkEight(b, false) }
