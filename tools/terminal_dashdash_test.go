package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A command line that starts with - or + is run as a script, never read
// by the shell as its own options (before, "bash -c -x" said "-c: option
// requires an argument" and "--version" printed bash's usage).
func TestCommandStartingWithADashIsAScript(t *testing.T) {
	for _, cmd := range []string{"-x", "--version", "+o"} {
		res := runShell(context.Background(), CommandPolicy{}, cmd, t.TempDir(), 10*time.Second)
		if strings.Contains(res.Output, "option") || !strings.Contains(res.Output, "not found") {
			t.Errorf("%q: the shell read the command as its options: %q", cmd, res.Output)
		}
	}
}
