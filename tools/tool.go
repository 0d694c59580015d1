// Package tools holds the Tool interface, the registry with JSON schemas,
// and the built-in tools the model can call.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"talaria/providers"
	"talaria/tools/lsp"
)

// Env is what a tool run may depend on besides its arguments.
type Env struct {
	// Cwd is the session's working directory; relative paths resolve
	// against it.
	Cwd string
	// Home is $TALARIA_HOME. The file-writing tools re-check at write
	// time, on the directory handle they write through, that a path which
	// names neither a .git directory nor Home does not land in one
	// through a symlink (see writeGuard); "" checks .git only.
	Home string
	// SessionID is the session the call belongs to.
	SessionID string
	// Commands is how terminal and process start commands: their
	// environment (without secrets) and the OS sandbox.
	Commands CommandPolicy
	// Escalate asks the user whether a command the sandbox stopped may run
	// once outside it; nil (headless) never escalates.
	Escalate func(ctx context.Context, tool, command string) bool
	// Processes holds the session's background processes (terminal with
	// background=true, and the process tool). Nil disables them. The
	// session creates it with NewProcessManager and closes it at its end.
	Processes *ProcessManager
	// Ask puts a question to the user for the clarify tool and returns
	// the answer. Nil means no user is there (headless run).
	Ask func(ctx context.Context, question string, choices []string) (string, error)
	// Todos is the session's task list for the todo tool. Nil disables the
	// tool.
	Todos *TodoList
	// Sessions searches past sessions for session_search. Nil disables
	// the tool.
	Sessions SessionSearcher
	// Delegate runs one subtask in a child agent with its own budget and
	// returns its summary, for delegate_task. The tool calls it for at
	// most 3 tasks at once. Nil disables delegation.
	Delegate func(ctx context.Context, task DelegateTask) DelegateResult
	// CallTool runs one tool call an execute_code script makes, exactly as
	// a direct call runs (decoding, hooks, approvals, sandbox, guardrails,
	// events), and returns its result; the loop sets it for each batch.
	// Nil: scripts cannot call tools.
	CallTool func(ctx context.Context, name, args string) Result
	// Edits checks the files write_file and patch changed (language-server
	// diagnostics, appended to their result). Nil checks nothing.
	Edits EditChecker
	// Files, when set, is where read_file, write_file and patch read and
	// write file contents (an editor's buffers); nil: the disk.
	Files FileIO
}

// EditChecker checks files a write tool just changed; *lsp.Manager is one.
type EditChecker interface {
	// Check reports the diagnostics of the files' new content; it never
	// fails: what it could not do is in the report's notes.
	Check(ctx context.Context, paths ...string) lsp.Report
	// Current returns the diagnostics known now for path ("" for all).
	Current(path string) []lsp.Diagnostic
	// Warm starts the server for path's language in the background (a
	// read announces an edit that may follow); it never waits.
	Warm(path string)
}

// Result is what a tool returns to the model.
type Result struct {
	// Output is the text the model reads.
	Output string
	// IsError marks a failed call; Output then explains the failure in a
	// way the model can act on.
	IsError bool
	// Images are images the tool returned (each within
	// providers.MaxImageBytes); Output holds a placeholder for each, for
	// wires that cannot take images.
	Images []providers.Image
	// Diagnostics are what a language server reported about the files
	// an edit changed (also in Output), for tool.completed.
	Diagnostics []lsp.Diagnostic
}

// Errorf builds an error Result.
func Errorf(format string, args ...any) Result {
	return Result{Output: "Error: " + fmt.Sprintf(format, args...), IsError: true}
}

// Tool is one callable tool.
type Tool interface {
	// Name is the name the model calls it by.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Run executes one call. It must honour ctx cancellation and must not
	// panic on bad arguments: it returns an error Result instead.
	Run(ctx context.Context, env *Env, args json.RawMessage) Result
	// Traits says how the planner, the approver, the guardrails and the
	// checkpoints treat its calls (see Traits; the zero value is the
	// careful default).
	Traits() Traits
}

// Registry holds the tools offered to the model, by name. It is safe for
// concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns a registry holding the given tools.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		r.Register(t)
	}
	return r
}

// Register adds or replaces a tool.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools[t.Name()] = t
}

// Get returns the tool called name; a nil registry holds none.
func (r *Registry) Get(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the registered tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns the tools sorted by name.
func (r *Registry) All() []Tool {
	names := r.Names()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		out = append(out, r.tools[n])
	}
	return out
}

// Call runs one tool call by name with raw JSON arguments. It never panics:
// an unknown tool, arguments that are not a JSON object, or a panic inside
// the tool all become error results the model can read and act on.
func (r *Registry) Call(ctx context.Context, env *Env, name, rawArgs string) (res Result) {
	t, ok := r.Get(name)
	if !ok {
		return Errorf("Tool '%s' does not exist. Available tools: %s", name, strings.Join(r.Names(), ", "))
	}
	args, err := parseArgs(rawArgs)
	if err != nil {
		return Errorf("Invalid JSON arguments for %s: %v. Send the arguments as one JSON object matching the tool's schema (use {} for a tool without arguments).", name, err)
	}
	defer func() {
		if p := recover(); p != nil {
			res = Errorf("tool %s crashed: %v", name, p)
		}
	}()
	return t.Run(ctx, env, args)
}

// parseArgs checks that raw is a JSON object (empty means {}).
func parseArgs(raw string) (json.RawMessage, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, fmt.Errorf("arguments are null, not an object")
	}
	return json.RawMessage(s), nil
}
