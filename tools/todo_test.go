package tools

import (
	"context"
	"strings"
	"testing"
)

func TestTodo(t *testing.T) {
	ctx := context.Background()
	list := NewTodoList()
	env := &Env{Todos: list}
	call := func(args map[string]any) Result { return runWith(t, ctx, TodoTool{}, env, args) }
	if out := mustOK(t, call(map[string]any{})); out != "The task list is empty." {
		t.Errorf("empty = %q", out)
	}
	out := mustOK(t, call(map[string]any{"todos": []map[string]any{
		{"id": "1", "content": "Read the code", "status": "completed"},
		{"id": 2, "content": "Write the fix", "status": "in_progress"},
		{"id": "3", "content": "Run the tests", "status": "pending"},
	}}))
	want := "[x] 1. Read the code\n[>] 2. Write the fix\n[ ] 3. Run the tests\n(1/3 completed, 1 in progress, 1 pending, 0 cancelled)"
	if out != want {
		t.Errorf("replace:\n%s\nwant:\n%s", out, want)
	}
	// Reading returns the same list.
	if got := mustOK(t, call(nil)); got != want {
		t.Errorf("read = %q", got)
	}
	// Two items in progress: refused, list unchanged, the error shows it.
	out = mustErr(t, call(map[string]any{"merge": true, "todos": []map[string]any{{"id": "3", "status": "in_progress"}}}),
		"only one item may be in_progress", `"2", "3"`, "was not changed")
	if !strings.Contains(out, want) {
		t.Errorf("error lacks the list: %q", out)
	}
	// Merge updates by id (only given fields) and appends new ids.
	out = mustOK(t, call(map[string]any{"merge": true, "todos": []map[string]any{
		{"id": "2", "status": "completed"},
		{"id": "3", "status": "in_progress"},
		{"id": "4", "content": "Update docs", "status": "cancelled"},
	}}))
	if !strings.Contains(out, "[x] 2. Write the fix\n[>] 3. Run the tests\n[-] 4. Update docs\n(2/4 completed") {
		t.Errorf("merge:\n%s", out)
	}
	snap := list.Snapshot()
	if len(snap) != 4 || snap[1] != (TodoItem{ID: "2", Content: "Write the fix", Status: TodoCompleted}) {
		t.Errorf("snapshot = %+v", snap)
	}
	snap[0].Content = "mutated"
	if list.Snapshot()[0].Content == "mutated" {
		t.Error("Snapshot shares memory with the list")
	}
	for _, tc := range []struct {
		todos []map[string]any
		want  string
	}{
		{[]map[string]any{{"content": "x", "status": "pending"}}, "no id"},
		{[]map[string]any{{"id": "a", "status": "pending"}}, "no content"},
		{[]map[string]any{{"id": "a", "content": "x", "status": "done"}}, "unknown status"},
		{[]map[string]any{{"id": "a", "content": "x"}}, "no status"},
		{[]map[string]any{{"id": "a", "content": "x", "status": "pending"}, {"id": "a", "content": "y", "status": "pending"}}, "used twice"},
	} {
		mustErr(t, call(map[string]any{"todos": tc.todos}), tc.want)
	}
	if len(list.Snapshot()) != 4 {
		t.Error("a refused update changed the list")
	}
	// An empty array clears the list.
	if out := mustOK(t, call(map[string]any{"todos": []any{}})); out != "The task list is empty." {
		t.Errorf("clear = %q", out)
	}
	mustErr(t, runWith(t, ctx, TodoTool{}, &Env{}, nil), "not available")
}
