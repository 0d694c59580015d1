package loop

import (
	"context"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// TestToolStatusRecorded: each saved tool result says how its call ended
// (ok, failed, denied), and tool.completed marks the denial, so a resumed
// session can show them as they were shown live.
func TestToolStatusRecorded(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Approve = func(_ context.Context, tool, _ string) (bool, tools.Result) {
			if tool == "write_file" {
				return false, tools.Errorf("The user denied this write_file call (Write x.txt).")
			}
			return true, tools.Result{}
		}
	})
	f.srv.Push(pt.ToolCalls(
		pt.Call{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`},
		pt.Call{Name: "read_file", Args: `{"path":"missing.txt"}`},
		pt.Call{Name: "search_files", Args: `{"pattern":"x","target":"files"}`},
	), pt.Text("done"))
	f.run(t, "go")
	want := map[string]string{"write_file": providers.ToolStatusDenied, "read_file": providers.ToolStatusFailed, "search_files": providers.ToolStatusOK}
	for _, m := range f.agent.History() {
		if m.Role == providers.RoleTool && m.ToolStatus != want[m.ToolName] {
			t.Errorf("%s saved as %q, want %q", m.ToolName, m.ToolStatus, want[m.ToolName])
		}
	}
	for _, e := range ofType[*ToolCompleted](f.rec) {
		if e.Denied != (e.Name == "write_file") {
			t.Errorf("%s: denied=%v", e.Name, e.Denied)
		}
	}
}
