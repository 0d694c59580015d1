package ui

import (
	"strings"
	"testing"
)

// TestPagerArgsKeepTheModelsBytes: the pager shows a command's arguments
// with > < & as the model wrote them, not as \u003e \u003c \u0026
// (issue 24 defect 8).
func TestPagerArgsKeepTheModelsBytes(t *testing.T) {
	got := prettyArgs(`{"command":"echo a > f && cat < f"}`)
	if strings.Contains(got, `\u00`) || !strings.Contains(got, `"echo a > f && cat < f"`) {
		t.Fatalf("pager shows %q", got)
	}
	if got := prettyArgs(`{"command": "x", oops`); got != `{"command": "x", oops` {
		t.Errorf("invalid JSON was changed: %q", got)
	}
}
