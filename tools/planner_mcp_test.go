package tools

import "testing"

// The MCP resource tools read no local path: they share a parallel run
// with each other and with path-scoped readers, without a callback.
func TestPlanBatchMCPResourceTools(t *testing.T) {
	calls := []BatchCall{
		{ID: "1", Name: "list_mcp_resources", Arguments: `{}`},
		{ID: "2", Name: "read_mcp_resource", Arguments: `{"server":"s","uri":"file:///etc/passwd"}`},
		{ID: "3", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "4", Name: "write_file", Arguments: `{"path":"a.go","content":"x"}`},
	}
	segs := PlanBatch(calls, t.TempDir(), nil)
	if len(segs) != 2 || !segs[0].Parallel || len(segs[0].Calls) != 3 || segs[1].Parallel || segs[1].Calls[0] != 3 {
		t.Fatalf("segments = %+v", segs)
	}
}
