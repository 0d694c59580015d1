//go:build linux

package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO swapped in for a .gitignore (or .git/info/exclude) must neither
// hang the walk nor be read: before, os.ReadFile blocked on it forever.
func TestWalkTreeDoesNotHangOnAFIFOIgnoreFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, ".gitignore"), filepath.Join(root, "sub", ".gitignore"), filepath.Join(root, ".git", "info", "exclude")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []string, 1)
	go func() {
		var seen []string
		_ = WalkTree(context.Background(), root, func(p string, d fs.DirEntry) error {
			seen = append(seen, p)
			return nil
		})
		done <- seen
	}()
	select {
	case seen := <-done:
		found := false
		for _, p := range seen {
			found = found || filepath.Base(p) == "a.go"
		}
		if !found {
			t.Fatalf("the walk did not see sub/a.go: %v", seen)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the walk hung on a FIFO .gitignore")
	}
}
