package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestDelegateAgentPerCallAndPerTask: `agent` given for the call applies
// to every task that names none; a task's own agent wins; an unknown name
// is refused before any child starts, naming the agents there are.
func TestDelegateAgentPerCallAndPerTask(t *testing.T) {
	ctx := context.Background()
	tool := DelegateTaskTool{Agents: []DelegateAgent{{Name: "reviewer", Description: "reviews\ncode"}, {Name: "tester", Description: "runs tests"}}}
	var mu sync.Mutex
	got := map[string]string{}
	env := &Env{Delegate: func(_ context.Context, task DelegateTask) DelegateResult {
		mu.Lock()
		got[task.Goal] = task.Agent
		mu.Unlock()
		return DelegateResult{Summary: "ok"}
	}}
	mustOK(t, runWith(t, ctx, tool, env, map[string]any{"agent": "reviewer",
		"tasks": []map[string]any{{"goal": "a"}, {"goal": "b", "agent": "tester"}}}))
	if got["a"] != "reviewer" || got["b"] != "tester" {
		t.Fatalf("agents per task: %v", got)
	}
	mustOK(t, runWith(t, ctx, tool, env, map[string]any{"goal": "c", "agent": "tester"}))
	if got["c"] != "tester" {
		t.Fatalf("single goal agent: %v", got)
	}
	got = map[string]string{}
	mustErr(t, runWith(t, ctx, tool, env, map[string]any{"tasks": []map[string]any{{"goal": "x"}, {"goal": "y", "agent": "nobody"}}}),
		`task 2: no agent "nobody"`, "reviewer, tester")
	if len(got) != 0 {
		t.Fatalf("a child started although a task named an unknown agent: %v", got)
	}
	mustErr(t, runWith(t, ctx, DelegateTaskTool{}, env, map[string]any{"goal": "x", "agent": "reviewer"}), "defines no agents")
}

// TestDelegateAgentsInDescriptionAndSchema: the description lists the
// agents on one line each; the schema offers `agent` (call and task) with
// their names as its enum, and stays as it was when there are none.
func TestDelegateAgentsInDescriptionAndSchema(t *testing.T) {
	tool := DelegateTaskTool{Agents: []DelegateAgent{{Name: "reviewer", Description: "reviews\ncode"}}}
	if d := tool.Description(); !strings.Contains(d, "\n- reviewer: reviews code") {
		t.Fatalf("description: %s", d)
	}
	if strings.Contains(DelegateTaskTool{}.Description(), "Specialised agents") {
		t.Fatal("no agents: the description must not mention them")
	}
	for _, tc := range []struct {
		tool  DelegateTaskTool
		agent bool
	}{{tool, true}, {DelegateTaskTool{}, false}} {
		var s struct {
			Properties map[string]struct {
				Enum  []string `json:"enum"`
				Items struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tc.tool.Schema(), &s); err != nil {
			t.Fatalf("schema is not JSON: %v\n%s", err, tc.tool.Schema())
		}
		a, ok := s.Properties["agent"]
		ia, iok := s.Properties["tasks"].Items.Properties["agent"]
		if ok != tc.agent || iok != tc.agent {
			t.Fatalf("agent property present=%v/%v, want %v", ok, iok, tc.agent)
		}
		if tc.agent && (len(a.Enum) != 1 || a.Enum[0] != "reviewer" || len(ia.Enum) != 1) {
			t.Fatalf("enum: %v %v", a.Enum, ia.Enum)
		}
	}
}
