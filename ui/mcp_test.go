package ui

import (
	"strings"
	"sync"
	"testing"
)

// The status line shows the MCP servers still starting, a turn that starts
// meanwhile says it goes on without them, and the mark goes once they are
// up.
func TestMCPServersStarting(t *testing.T) {
	var mu sync.Mutex
	starting := []string{"slowpoke", "files"}
	notices := []string{`MCP server "broken": cannot connect: no such file`}
	h := newHarness(t, func(o *Options) {
		fake(o).OnMCPNotices = func() []string {
			mu.Lock()
			defer mu.Unlock()
			out := notices
			notices = nil
			return out
		}
		fake(o).OnMCPStarting = func() []string {
			mu.Lock()
			defer mu.Unlock()
			return starting
		}
	})
	h.m.Init()
	h.send(frameMsg{})
	if s := h.screen(); !strings.Contains(s, "mcp starting: slowpoke, files") {
		t.Fatalf("status line lacks the starting servers:\n%s", s)
	}
	h.events(turnStarted(1, "go"))
	if s := h.screen(); !strings.Contains(s, "MCP servers still starting (slowpoke, files): this turn goes on without their") {
		t.Errorf("no notice:\n%s", s)
	}
	mu.Lock()
	starting = nil
	mu.Unlock()
	h.send(frameMsg{})
	s := h.screen()
	if strings.Contains(s, "mcp starting") {
		t.Errorf("still shown after start-up:\n%s", s)
	}
	if strings.Count(s, `MCP server "broken": cannot connect`) != 1 {
		t.Errorf("the notice is not shown once:\n%s", s)
	}
}
