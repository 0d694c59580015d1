package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// TestAnnotationTraits: an MCP tool's traits come from its server's
// annotations, and only from them.
func TestAnnotationTraits(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		in   *sdk.ToolAnnotations
		want tools.Traits
	}{
		{"none", nil, tools.Traits{}},
		{"empty", &sdk.ToolAnnotations{}, tools.Traits{}},
		{"read-only", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.Traits{ReadOnly: true, Claimed: true, ParallelSafe: true}},
		{"read-only idempotent", &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}, tools.Traits{ReadOnly: true, Claimed: true, ParallelSafe: true, Idempotent: true}},
		{"read-only wins over destructive", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, tools.Traits{ReadOnly: true, Claimed: true, ParallelSafe: true}},
		{"destructive", &sdk.ToolAnnotations{DestructiveHint: &yes}, tools.Traits{Destructive: true}},
		{"not destructive", &sdk.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}, tools.Traits{}},
	}
	for _, c := range cases {
		got := annotationTraits(c.in)
		if got.ReadOnly != c.want.ReadOnly || got.Claimed != c.want.Claimed || got.ParallelSafe != c.want.ParallelSafe ||
			got.Idempotent != c.want.Idempotent || got.Destructive != c.want.Destructive || got.Paths != nil || got.Describe != nil {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestResourceToolsPlanBeside: the resource tools read no local path, so
// the planner runs them beside each other and beside a reader, by their
// traits.
func TestResourceToolsPlanBeside(t *testing.T) {
	reg := tools.NewRegistry(append(tools.Builtins(), (&Manager{}).ResourceTools()...)...)
	calls := []tools.BatchCall{
		{ID: "1", Name: "list_mcp_resources", Arguments: `{}`},
		{ID: "2", Name: "read_mcp_resource", Arguments: `{"server":"s","uri":"file:///etc/passwd"}`},
		{ID: "3", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "4", Name: "write_file", Arguments: `{"path":"a.go","content":"x"}`},
	}
	segs := tools.PlanBatch(calls, t.TempDir(), reg.Traits)
	if len(segs) != 2 || !segs[0].Parallel || len(segs[0].Calls) != 3 || segs[1].Parallel || segs[1].Calls[0] != 3 {
		t.Fatalf("segments = %+v", segs)
	}
}
