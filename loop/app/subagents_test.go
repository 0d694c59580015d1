package app

import (
	"slices"
	"strings"
	"testing"

	"talaria/loop"
	"talaria/loop/ext"
	"talaria/tools"
)

// TestAgentNeverGetsMoreToolsThanItsParent: an agent that lists tools its
// parent lacks (terminal in a read-only parent, delegate_task) gets only
// those the parent has, never delegate_task; an agent without a list gets
// all the parent's but delegate_task; a disallowed tool is dropped.
func TestAgentNeverGetsMoreToolsThanItsParent(t *testing.T) {
	ts := &toolset{registry: tools.NewRegistry(tools.ReadFileTool{}, tools.SearchFilesTool{}, tools.DelegateTaskTool{})}
	cases := []struct {
		agent *ext.Agent
		want  []string
	}{
		{&ext.Agent{Tools: []string{"read_file", "terminal", "delegate_task", "write_file"}}, []string{"read_file"}},
		{&ext.Agent{}, []string{"read_file", "search_files"}},
		{&ext.Agent{DisallowedTools: []string{"search_files"}}, []string{"read_file"}},
		{&ext.Agent{Tools: []string{}}, nil},
		{nil, []string{"read_file", "search_files"}},
	}
	for i, c := range cases {
		if got := ts.childTools(c.agent).Names(); !slices.Equal(got, c.want) {
			t.Errorf("case %d: child tools %v, want %v", i, got, c.want)
		}
	}
}

// TestAsAgentModelAndPrompt: the agent's model replaces the child's (the
// chain's primary too, on the same provider); without one the parent's
// stays; the prompt is the body, then the note, ending in the runtime
// lines a fallback rewrites.
func TestAsAgentModelAndPrompt(t *testing.T) {
	ts := &toolset{registry: tools.NewRegistry(tools.ReadFileTool{}), env: tools.Env{Cwd: "/src"}}
	opts := loop.Options{Provider: "openai", Model: "parent-model"}
	ts.asAgent(&opts, &ext.Agent{Prompt: "Be brief.", Model: "small-model"})
	if opts.Model != "small-model" || !strings.HasPrefix(opts.SystemPrompt, "Be brief.\n\n") ||
		!strings.HasSuffix(opts.SystemPrompt, "\nModel: small-model\nProvider: openai") {
		t.Fatalf("model %q prompt:\n%s", opts.Model, opts.SystemPrompt)
	}
	opts = loop.Options{Provider: "openai", Model: "parent-model"}
	ts.asAgent(&opts, &ext.Agent{Prompt: "x"})
	if opts.Model != "parent-model" {
		t.Fatalf("no model: the parent's is kept, got %q", opts.Model)
	}
}
