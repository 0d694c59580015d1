package loop

import (
	"context"
	"encoding/json"

	"talaria/tools"
)

// fakeTodo is a housekeeping tool for tests.
type fakeTodo struct{}

func (fakeTodo) Name() string            { return "todo" }
func (fakeTodo) Traits() tools.Traits    { return tools.TodoTool{}.Traits() }
func (fakeTodo) Description() string     { return "todo list" }
func (fakeTodo) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (fakeTodo) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	return tools.Result{Output: "[]"}
}
