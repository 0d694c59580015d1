package mcp

import (
	"context"
	"path/filepath"
	"runtime"
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
	m, errs := Connect(context.Background(), []ServerConfig{cfg})
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
