package ui

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the package when a test left one of the model's waits
// (for events, for dialogs) blocked after its program ended: ui.Run ends
// them when the program quits, and a test that runs a program must too.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leak := leakedWaits(5 * time.Second); leak != "" {
			fmt.Fprintln(os.Stderr, "goroutines left waiting after the tests:\n"+leak)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedWaits returns the stacks of goroutines still in waitEvents or
// waitDialogs, looking again until they are gone or patience runs out (a
// wait that was just released needs a moment to return).
func leakedWaits(patience time.Duration) string {
	deadline := time.Now().Add(patience)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaks []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "waitEvents.func") || strings.Contains(g, "waitDialogs.func") {
				leaks = append(leaks, g)
			}
		}
		if len(leaks) == 0 || time.Now().After(deadline) {
			return strings.Join(leaks, "\n\n")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
