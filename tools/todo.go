package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
	TodoCancelled  = "cancelled"
)

// todoMaxItems caps the length of a task list.
const todoMaxItems = 100

// TodoItem is one entry of a session's task list.
type TodoItem struct {
	// ID identifies the item for merge updates.
	ID string `json:"id"`
	// Content says what is to be done.
	Content string `json:"content"`
	// Status is one of pending, in_progress, completed, cancelled.
	Status string `json:"status"`
}

// TodoList is a session's task list. It is safe for concurrent use.
type TodoList struct {
	mu    sync.Mutex
	items []TodoItem
}

// NewTodoList returns a list holding items (for a resumed session); it
// does not validate them.
func NewTodoList(items ...TodoItem) *TodoList {
	return &TodoList{items: append([]TodoItem(nil), items...)}
}

// Snapshot returns a copy of the items in order.
func (l *TodoList) Snapshot() []TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TodoItem(nil), l.items...)
}

// Replace validates items and makes them the whole list.
func (l *TodoList) Replace(items []TodoItem) error {
	items = cleanTodos(items)
	if err := validateTodos(items); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = items
	return nil
}

// Merge updates the items with the ids of updates (fields left empty keep
// their value) and appends the others, then validates the result. On error
// the list is unchanged.
func (l *TodoList) Merge(updates []TodoItem) error {
	updates = cleanTodos(updates)
	l.mu.Lock()
	defer l.mu.Unlock()
	next := append([]TodoItem(nil), l.items...)
	for _, u := range updates {
		found := false
		for i := range next {
			if next[i].ID == u.ID {
				if u.Content != "" {
					next[i].Content = u.Content
				}
				if u.Status != "" {
					next[i].Status = u.Status
				}
				found = true
				break
			}
		}
		if !found {
			next = append(next, u)
		}
	}
	if err := validateTodos(next); err != nil {
		return err
	}
	l.items = next
	return nil
}

// cleanTodos trims the fields of items and lower-cases statuses.
func cleanTodos(items []TodoItem) []TodoItem {
	out := make([]TodoItem, len(items))
	for i, it := range items {
		out[i] = TodoItem{
			ID:      strings.TrimSpace(it.ID),
			Content: strings.TrimSpace(it.Content),
			Status:  strings.ToLower(strings.TrimSpace(it.Status)),
		}
	}
	return out
}

// validateTodos checks ids, contents, statuses and the single in_progress
// rule.
func validateTodos(items []TodoItem) error {
	if len(items) > todoMaxItems {
		return fmt.Errorf("the list may hold at most %d items, got %d; group small steps together", todoMaxItems, len(items))
	}
	seen := map[string]bool{}
	var active []string
	for i, it := range items {
		switch {
		case it.ID == "":
			return fmt.Errorf("item %d has no id", i+1)
		case seen[it.ID]:
			return fmt.Errorf("id %q is used twice", it.ID)
		case it.Content == "":
			return fmt.Errorf("item %q has no content", it.ID)
		}
		seen[it.ID] = true
		switch it.Status {
		case TodoPending, TodoCompleted, TodoCancelled:
		case TodoInProgress:
			active = append(active, it.ID)
		case "":
			return fmt.Errorf("item %q has no status; use pending, in_progress, completed or cancelled", it.ID)
		default:
			return fmt.Errorf("item %q has unknown status %q; use pending, in_progress, completed or cancelled", it.ID, it.Status)
		}
	}
	if len(active) > 1 {
		return fmt.Errorf("only one item may be in_progress, but %s are; finish or pause the others first", strings.Join(quoteAll(active), ", "))
	}
	return nil
}

// quoteAll quotes every string of xs.
func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// renderTodos renders items compactly, one line each, with a count line.
func renderTodos(items []TodoItem) string {
	if len(items) == 0 {
		return "The task list is empty."
	}
	marks := map[string]string{TodoPending: "[ ]", TodoInProgress: "[>]", TodoCompleted: "[x]", TodoCancelled: "[-]"}
	counts := map[string]int{}
	var b strings.Builder
	for _, it := range items {
		counts[it.Status]++
		fmt.Fprintf(&b, "%s %s. %s\n", marks[it.Status], it.ID, it.Content)
	}
	fmt.Fprintf(&b, "(%d/%d completed, %d in progress, %d pending, %d cancelled)",
		counts[TodoCompleted], len(items), counts[TodoInProgress], counts[TodoPending], counts[TodoCancelled])
	return b.String()
}

// TodoTool is the todo tool: it reads and updates the session's task list.
type TodoTool struct{}

// Name implements Tool.
func (TodoTool) Name() string { return "todo" }

// Description implements Tool.
func (TodoTool) Description() string {
	return "Keep a task list for this session to plan and track multi-step work (3 or more steps), and show the user your progress. " +
		"Call with no arguments to read the list. Pass `todos` (items with id, content, status) to replace the whole list, " +
		"or with merge=true to update the items with those ids (only the fields you give change) and append new ones. " +
		"Statuses: pending, in_progress, completed, cancelled. Exactly one item should be in_progress while you work, never more: " +
		"mark an item completed as soon as it is done, before starting the next. Returns the full list."
}

// Schema implements Tool.
func (TodoTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "Items to write. Without merge they replace the list.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Short unique id, e.g. \"1\"."},
          "content": {"type": "string", "description": "What is to be done."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "cancelled"]}
        },
        "required": ["id", "content", "status"]
      }
    },
    "merge": {"type": "boolean", "default": false, "description": "Update items by id and append new ones instead of replacing the list."}
  },
  "additionalProperties": false
}`)
}

type todoArgs struct {
	Todos *[]todoArgItem `json:"todos"`
	Merge flexBool       `json:"merge"`
}

// todoArgItem accepts numeric ids too.
type todoArgItem struct {
	ID      json.RawMessage `json:"id"`
	Content string          `json:"content"`
	Status  string          `json:"status"`
}

// Run implements Tool.
func (TodoTool) Run(_ context.Context, env *Env, raw json.RawMessage) Result {
	var a todoArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("todo: %v", err)
	}
	if env == nil || env.Todos == nil {
		return Errorf("todo: the task list is not available in this session")
	}
	if a.Todos == nil {
		return Result{Output: renderTodos(env.Todos.Snapshot())}
	}
	items := make([]TodoItem, len(*a.Todos))
	for i, it := range *a.Todos {
		id := strings.TrimSpace(string(it.ID))
		if s := ""; json.Unmarshal(it.ID, &s) == nil {
			id = s
		} else if id == "null" {
			id = ""
		}
		items[i] = TodoItem{ID: id, Content: it.Content, Status: it.Status}
	}
	var err error
	if a.Merge {
		err = env.Todos.Merge(items)
	} else {
		err = env.Todos.Replace(items)
	}
	if err != nil {
		return Result{Output: fmt.Sprintf("Error: todo: %v. The list was not changed:\n%s", err, renderTodos(env.Todos.Snapshot())), IsError: true}
	}
	return Result{Output: renderTodos(env.Todos.Snapshot())}
}
