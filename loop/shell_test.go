package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools"
)

// TestShellRunsThroughApproval: !cmd runs the terminal tool only after
// the approval says yes; a denial returns its result and runs nothing.
func TestShellRunsThroughApproval(t *testing.T) {
	var asked []string
	allow := true
	f := newFixture(t, func(o *Options) {
		o.Approve = func(_ context.Context, tool, args string) (bool, tools.Result) {
			asked = append(asked, tool+" "+args)
			if !allow {
				return false, tools.Errorf("denied by the user")
			}
			return true, tools.Result{}
		}
	})
	res, err := f.agent.Shell(context.Background(), "echo hello > made.txt; echo done")
	if err != nil || res.IsError || !strings.Contains(res.Output, "done") {
		t.Fatalf("shell: %+v %v", res, err)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], `terminal {"command":"echo hello`) {
		t.Fatalf("approvals asked: %q", asked)
	}
	allow = false
	res, err = f.agent.Shell(context.Background(), "touch denied.txt")
	if err != nil || !res.IsError || !strings.Contains(res.Output, "denied by the user") {
		t.Fatalf("denied shell: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "denied.txt")); !os.IsNotExist(err) {
		t.Fatal("a denied command ran")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "made.txt")); err != nil {
		t.Fatal("the allowed command did not run in the working directory")
	}
	if n := len(f.agent.History()); n != 0 {
		t.Fatalf("the shell added %d messages to the history", n)
	}
	noTerm := newFixture(t, func(o *Options) { o.Tools = tools.NewRegistry(tools.ReadFileTool{}) })
	if _, err := noTerm.agent.Shell(context.Background(), "ls"); err != ErrNoTerminal {
		t.Fatalf("without a terminal tool: %v", err)
	}
}
