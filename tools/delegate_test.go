package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestDelegateConcurrencyCap(t *testing.T) {
	const n = 7
	started := make(chan string, n)
	release := make(chan struct{})
	var mu sync.Mutex
	running, peak := 0, 0
	env := &Env{Delegate: func(ctx context.Context, task DelegateTask) DelegateResult {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		started <- task.Goal
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return DelegateResult{Summary: "did " + task.Goal + " with " + task.Context}
	}}
	tasks := make([]map[string]any, n)
	for i := range tasks {
		tasks[i] = map[string]any{"goal": fmt.Sprintf("g%d", i)}
	}
	done := make(chan Result, 1)
	go func() {
		done <- runWith(t, context.Background(), DelegateTaskTool{}, env, map[string]any{"tasks": tasks, "context": "shared"})
	}()
	// Exactly DelegateMaxConcurrent children start; the next one starts
	// only when one of them is released.
	for i := 0; i < DelegateMaxConcurrent; i++ {
		<-started
	}
	select {
	case g := <-started:
		t.Fatalf("a fourth child (%s) started while 3 were running", g)
	default:
	}
	for i := 0; i < n; i++ {
		release <- struct{}{}
		if i+DelegateMaxConcurrent < n {
			<-started
		}
	}
	r := <-done
	out := mustOK(t, r)
	if peak != DelegateMaxConcurrent {
		t.Errorf("peak concurrency = %d, want %d", peak, DelegateMaxConcurrent)
	}
	// Results come in task order, each with its goal.
	last := -1
	for i := 0; i < n; i++ {
		at := strings.Index(out, fmt.Sprintf("## Task %d: g%d\ndid g%d with shared", i+1, i, i))
		if at <= last {
			t.Fatalf("task %d missing or out of order:\n%s", i, out)
		}
		last = at
	}
}

func TestDelegateValidationAndResults(t *testing.T) {
	ctx := context.Background()
	mustErr(t, runWith(t, ctx, DelegateTaskTool{}, &Env{}, map[string]any{"goal": "x"}), "delegation is not available")
	var got []DelegateTask
	var mu sync.Mutex
	env := &Env{Delegate: func(_ context.Context, task DelegateTask) DelegateResult {
		mu.Lock()
		got = append(got, task)
		mu.Unlock()
		switch task.Goal {
		case "fail":
			return DelegateResult{Summary: "partial", Err: errors.New("budget exhausted")}
		case "panic":
			panic("boom")
		case "big":
			return DelegateResult{Summary: strings.Repeat("b", 40_000)}
		}
		return DelegateResult{Summary: "ok: " + task.Goal}
	}}
	call := func(args map[string]any) Result { return runWith(t, ctx, DelegateTaskTool{}, env, args) }
	// A single goal: no task header.
	out := mustOK(t, call(map[string]any{"goal": " find the bug ", "context": "in store.go"}))
	if out != "ok: find the bug" || got[0] != (DelegateTask{Goal: "find the bug", Context: "in store.go"}) {
		t.Errorf("single: %q %+v", out, got)
	}
	mustErr(t, call(map[string]any{"goal": "a", "tasks": []map[string]any{{"goal": "b"}}}), "not both")
	mustErr(t, call(map[string]any{}), "required")
	mustErr(t, call(map[string]any{"tasks": []map[string]any{{"goal": "a"}, {"context": "c"}}}), "task 2 has no goal")
	mustErr(t, call(map[string]any{"tasks": make([]map[string]any, 9)}), "at most 8 tasks")
	// A failing and a crashing child do not sink the others.
	out = mustOK(t, call(map[string]any{"tasks": []map[string]any{{"goal": "fail"}, {"goal": "panic"}, {"goal": "fine"}}}))
	for _, w := range []string{"[failed: budget exhausted]\npartial", "[failed: child agent crashed: boom]", "ok: fine"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	// All failed: an error result.
	mustErr(t, call(map[string]any{"goal": "fail"}), "budget exhausted")
	// Summaries share a 24,000-character cap; short ones stay whole.
	out = mustOK(t, call(map[string]any{"tasks": []map[string]any{{"goal": "big"}, {"goal": "short"}, {"goal": "big"}}}))
	if len(out) > delegateSummaryCap+500 || !strings.Contains(out, "ok: short") || strings.Count(out, "summary cut") != 2 {
		t.Errorf("cap: %d bytes, cuts %d", len(out), strings.Count(out, "summary cut"))
	}
}

func TestDelegateCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	run := func(ctx context.Context, task DelegateTask) DelegateResult {
		started <- struct{}{}
		<-release
		return DelegateResult{Err: ctx.Err()}
	}
	done := make(chan []DelegateResult, 1)
	tasks := make([]DelegateTask, 5)
	for i := range tasks {
		tasks[i].Goal = fmt.Sprint(i)
	}
	go func() { done <- runDelegates(ctx, run, tasks) }()
	for i := 0; i < DelegateMaxConcurrent; i++ {
		<-started
	}
	cancel()
	close(release)
	res := <-done
	for i := DelegateMaxConcurrent; i < len(res); i++ {
		if res[i].Err == nil || !strings.Contains(res[i].Err.Error(), "not started") || res[i].Goal != fmt.Sprint(i) {
			t.Errorf("task %d: %+v", i, res[i])
		}
	}
}
