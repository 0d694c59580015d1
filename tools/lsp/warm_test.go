package lsp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestWarmStartsTheServerOnceAndTheEditUsesIt: a read warms the server
// (its start is under way when Warm returns, without waiting), and the
// edit that follows is served by that same server, not a second one.
func TestWarmStartsTheServerOnceAndTheEditUsesIt(t *testing.T) {
	m, dir, tr := fakeManager(t, "ok", time.Minute)
	p := write(t, dir, "a.fk", "x ERR one\n")
	m.Warm(p)
	m.mu.Lock()
	n := 0
	for _, in := range m.instances {
		in.mu.Lock()
		n += in.starts
		in.mu.Unlock()
	}
	m.mu.Unlock()
	if n != 1 {
		t.Fatalf("starts after Warm = %d, want 1 (started in the background)", n)
	}
	m.Warm(p) // a second read does not start another
	r := m.Check(context.Background(), p)
	if len(r.Diagnostics) != 1 || len(r.Notes) != 0 {
		t.Fatalf("check after warm: %+v notes %v", r.Diagnostics, r.Notes)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.all) != 1 {
		t.Fatalf("servers started: %d, want 1", len(tr.all))
	}
}

// TestWarmOfAMissingServerKeepsTheEditsNote: warming a language with no
// server says nothing and does not use up the once-per-session note the
// first edit gives.
func TestWarmOfAMissingServerKeepsTheEditsNote(t *testing.T) {
	dir := t.TempDir()
	m := New(Options{Servers: []ServerConfig{{Name: "none", Command: []string{"talaria-no-such-lsp"}, Filetypes: []string{"zz"}}}, Cwd: dir, Wait: time.Second})
	t.Cleanup(func() { m.Close() })
	p := write(t, dir, "a.zz", "x\n")
	m.Warm(p)
	r := m.Check(context.Background(), p)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "talaria-no-such-lsp not on PATH") {
		t.Fatalf("notes after warm: %v", r.Notes)
	}
}

// TestWarmOfANilManagerOrClosedManagerIsHarmless covers the ends.
func TestWarmOfANilManagerOrClosedManagerIsHarmless(t *testing.T) {
	var m *Manager
	m.Warm("a.fk")
	m2, dir, tr := fakeManager(t, "ok", time.Minute)
	m2.Close()
	m2.Warm(write(t, dir, "a.fk", "x\n"))
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.all) != 0 {
		t.Fatalf("a closed manager started %d servers", len(tr.all))
	}
}
