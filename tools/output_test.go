package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector gathers what an OutputStream emits.
type collector struct {
	mu     sync.Mutex
	events []string
	got    chan string
}

func newCollector() *collector { return &collector{got: make(chan string, 1024)} }

func (c *collector) emit(s string) {
	c.mu.Lock()
	c.events = append(c.events, s)
	c.mu.Unlock()
	select {
	case c.got <- s:
	default:
	}
}

func (c *collector) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.events...)
}

func TestOutputStreamKeepsOrderAndCoalesces(t *testing.T) {
	c := newCollector()
	s := NewOutputStream(c.emit)
	var want strings.Builder
	start := time.Now()
	for i := range 2000 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		_, _ = s.Write([]byte(line))
	}
	s.Close()
	elapsed := time.Since(start)
	ev := c.all()
	if got := strings.Join(ev, ""); got != want.String() {
		t.Fatalf("stream changed: %d bytes, want %d", len(got), want.Len())
	}
	// At most one event per interval, plus the one Close sends.
	if limit := int(elapsed/OutputInterval) + 2; len(ev) > limit {
		t.Fatalf("%d events in %s: not coalesced", len(ev), elapsed)
	}
	_, _ = s.Write([]byte("late\n"))
	s.Close()
	if len(c.all()) != len(ev) {
		t.Fatal("emit after Close")
	}
}

func TestOutputStreamSkipsOldestWhenFlooded(t *testing.T) {
	c := newCollector()
	s := NewOutputStream(c.emit)
	line := strings.Repeat("x", 99) + "\n"
	for range 5000 { // 500 KB at once, far over the pending cap
		_, _ = s.Write([]byte(line))
	}
	_, _ = s.Write([]byte("the end\n"))
	s.Close()
	got := strings.Join(c.all(), "")
	if !strings.Contains(got, "bytes not shown live") || !strings.HasSuffix(got, "the end\n") {
		t.Fatalf("flood: %d bytes, suffix %q", len(got), got[max(0, len(got)-40):])
	}
	for _, e := range c.all() {
		if len(e) > outputPendingCap+64 {
			t.Fatalf("an event of %d bytes: the buffer is not bounded", len(e))
		}
	}
	if tail := s.Tail(); !strings.HasSuffix(tail, "the end\n") || len(tail) > outputTailCap {
		t.Fatalf("tail: %d bytes", len(tail))
	}
}

func TestOutputStreamShowsAPartialLine(t *testing.T) {
	c := newCollector()
	s := NewOutputStream(c.emit)
	defer s.Close()
	_, _ = s.Write([]byte("done\nprogress 40%"))
	var got string
	for !strings.Contains(got, "40%") {
		select {
		case e := <-c.got:
			got += e
		case <-time.After(10 * time.Second):
			t.Fatalf("partial line never shown; got %q", got)
		}
	}
	if got != "done\nprogress 40%" {
		t.Fatalf("got %q", got)
	}
}

func TestWithOutputPrefixMarksEveryLine(t *testing.T) {
	var b strings.Builder
	ctx := WithOutputPrefix(ContextWithOutput(context.Background(), &b), "[2] ")
	fmt.Fprint(Output(ctx), "a\nb")
	fmt.Fprint(Output(ctx), "c\nd\n")
	if b.String() != "[2] a\n[2] bc\n[2] d\n" {
		t.Fatalf("%q", b.String())
	}
	if WithOutputPrefix(context.Background(), "x") != context.Background() {
		t.Fatal("prefix without a watcher should be a no-op")
	}
}

// printTool prints its lines, reports a diff, and blocks until ctx ends when
// asked to.
type printTool struct{}

func (printTool) Name() string            { return "print" }
func (printTool) Traits() Traits          { return Traits{} }
func (printTool) Description() string     { return "prints" }
func (printTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (printTool) Run(ctx context.Context, _ *Env, raw json.RawMessage) Result {
	var a struct {
		Lines []string
		Block bool
	}
	_ = json.Unmarshal(raw, &a)
	for _, l := range a.Lines {
		fmt.Fprintln(Output(ctx), l)
	}
	ReportDiff(ctx, "--- a/x\n+++ b/x\n")
	if a.Block {
		<-ctx.Done()
		return Result{}
	}
	return Result{Output: strings.Join(a.Lines, "\n")}
}

func TestExecutorStreamsThenCompletesAndCancelsOneCall(t *testing.T) {
	cc := &CallCancels{}
	e := Executor{Registry: NewRegistry(printTool{}), Cancels: cc}
	var mu sync.Mutex
	var order []string
	started := make(chan string, 2)
	hooks := ExecHooks{
		OnStart: func(_, _ int, c BatchCall) { started <- c.ID },
		OnOutput: func(_ int, c BatchCall, text string) {
			mu.Lock()
			// How a call's output is cut into chunks depends on when
			// the streamer flushes (a loaded machine splits "one\ntwo"):
			// consecutive chunks of one call are one entry.
			prefix := "out " + c.ID + " "
			if n := len(order); n > 0 && strings.HasPrefix(order[n-1], prefix) {
				order[n-1] += "\n" + strings.TrimSpace(text)
			} else {
				order = append(order, prefix+strings.TrimSpace(text))
			}
			mu.Unlock()
		},
		OnDone: func(_ int, r CallResult) {
			mu.Lock()
			order = append(order, "done "+r.ID)
			mu.Unlock()
		},
	}
	calls := []BatchCall{
		{ID: "a", Name: "print", Arguments: `{"lines":["one","two"]}`},
		{ID: "b", Name: "print", Arguments: `{"lines":["waiting"],"block":true}`},
	}
	go func() {
		for id := range started {
			if id == "b" {
				for !cc.Cancel("b") {
					time.Sleep(time.Millisecond)
				}
				return
			}
		}
	}()
	res := e.Run(context.Background(), &Env{}, calls, nil, hooks)
	close(started)
	if res[0].Cancelled || res[0].Result.Output != "one\ntwo" || res[0].Diff != "--- a/x\n+++ b/x\n" {
		t.Fatalf("a: %+v", res[0])
	}
	if !res[1].Cancelled || !res[1].Stopped || !strings.Contains(res[1].Result.Output, "waiting") {
		t.Fatalf("b: %+v", res[1])
	}
	want := []string{"out a one\ntwo", "done a", "out b waiting", "done b"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("order %q", order)
	}
	if cc.Cancel("a") || len(cc.Running()) != 0 {
		t.Fatal("finished calls must not be cancellable")
	}
}

func TestStopReceiptSaysWhoAndWhat(t *testing.T) {
	long := strings.Repeat("x", stopReceiptCap) + "THE END"
	for _, c := range []struct {
		ran     time.Duration
		printed string
		want    []string
	}{
		{0, "", []string{"cancelled this terminal call before it started"}},
		{2 * time.Second, "", []string{"stopped this terminal call after 2s", "printed nothing"}},
		{time.Second, "built a\nbuilt b", []string{"What it had printed:\nbuilt a\nbuilt b"}},
		{time.Second, long, []string{"the last 8000 bytes", "THE END"}},
	} {
		r := StopReceipt("terminal", c.ran, c.printed)
		if !IsStopReceipt(r) {
			t.Errorf("not recognised: %q", r)
		}
		for _, w := range c.want {
			if !strings.Contains(r, w) {
				t.Errorf("%q lacks %q", r[:min(len(r), 200)], w)
			}
		}
	}
	if IsStopReceipt(CancelReceipt("terminal")) {
		t.Error("an interrupt's receipt is not a user stop")
	}
}
