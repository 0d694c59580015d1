package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A command line that starts with - or + is run as a script, never read
// by the shell as its own options: "bash -c --version" printed bash's
// version and exited 0, and "-x" or "+o …" would change the shell.
func TestCommandStartingWithADashIsAScript(t *testing.T) {
	res := runShell(context.Background(), CommandPolicy{}, "--version", t.TempDir(), 10*time.Second)
	if strings.Contains(res.Output, "GNU bash") || !res.IsError {
		t.Fatalf("the shell read the command as its options: %+v", res)
	}
}
