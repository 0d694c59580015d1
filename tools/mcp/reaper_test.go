package mcp

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"talaria/tools"
)

// A stdio server is recorded by the session's reaper, so it dies with
// talaria: here the reaper's Close stands in for the watchdog.
func TestStdioServerIsReaped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	dir := t.TempDir()
	r := tools.NewReaper(dir, nil)
	cfg := stdioConfig("reaped")
	cfg.Reaper = r
	m, errs := connect(context.Background(), []ServerConfig{cfg})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer m.Close()
	m.servers[0].mu.Lock()
	pid := m.servers[0].pid
	m.servers[0].mu.Unlock()
	start, err := tools.ProcessStart(pid)
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.groups")); len(files) != 1 {
		t.Fatalf("run files %v", files)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for tools.ProcessAlive(pid, start) {
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server (pid %d) outlived the reaper", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClosedStdioServerLeavesTheRunFile: a server that Close has killed is
// no longer one of the groups the run file lists, so reconnects do not
// pile up lines for the watchdog.
func TestClosedStdioServerLeavesTheRunFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	dir := t.TempDir()
	r := tools.NewReaper(dir, nil)
	defer r.Close()
	cfg := stdioConfig("untracked")
	cfg.Reaper = r
	m, errs := connect(context.Background(), []ServerConfig{cfg})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.groups"))
	if len(files) != 1 {
		t.Fatalf("run files %v", files)
	}
	lines := func() int {
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return len(strings.Split(strings.TrimSpace(string(b)), "\n"))
	}
	if n := lines(); n != 2 { // the owner, the server
		t.Fatalf("%d lines while the server runs", n)
	}
	m.Close()
	if n := lines(); n != 1 {
		t.Fatalf("%d lines after Close, want only the owner's", n)
	}
}
