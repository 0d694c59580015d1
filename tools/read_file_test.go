package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// numbered returns n lines "line 1" … "line n", each ending in "\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFileNumbering(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.txt":    "alpha\nbeta\r\ngamma",
		"empty":    "",
		"big.txt":  numbered(1200),
		"sub/x.go": "package x\n",
	})
	rf := ReadFileTool{}
	out := mustOK(t, callTool(t, rf, dir, map[string]any{"path": "a.txt"}))
	if out != "1|alpha\n2|beta\n3|gamma" {
		t.Errorf("a.txt = %q", out)
	}
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": filepath.Join(dir, "sub", "x.go")}))
	if out != "1|package x" {
		t.Errorf("absolute path = %q", out)
	}
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "empty"}))
	if !strings.Contains(out, "empty") {
		t.Errorf("empty file = %q", out)
	}

	// Default limit 500 with a footer naming the next offset.
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "big.txt"}))
	lines := strings.Split(out, "\n")
	if lines[0] != "1|line 1" || lines[499] != "500|line 500" {
		t.Errorf("window starts %q ends %q", lines[0], lines[499])
	}
	if !strings.Contains(out, "of 1200") || !strings.Contains(out, "offset=501") {
		t.Errorf("footer missing: %q", lines[len(lines)-1])
	}

	// offset and limit.
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "big.txt", "offset": 1199, "limit": 10}))
	if !strings.HasPrefix(out, "1199|line 1199\n1200|line 1200") || strings.Contains(out, "offset=") {
		t.Errorf("tail window = %q", out)
	}
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "big.txt", "offset": 10, "limit": 3}))
	if !strings.HasPrefix(out, "10|line 10\n11|line 11\n12|line 12\n") || !strings.Contains(out, "offset=13") {
		t.Errorf("middle window = %q", out)
	}
	// limit is capped at 2000.
	writeFiles(t, dir, map[string]string{"huge.txt": numbered(2500)})
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "huge.txt", "limit": 5000}))
	if !strings.Contains(out, "2000|line 2000") || strings.Contains(out, "2001|") || !strings.Contains(out, "offset=2001") {
		t.Errorf("limit not capped at 2000")
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.yaml": "a: 1\nb: 2\n",
		"main.go":     "package main\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "blob.bin"), []byte("abc\x00def"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "latin1.txt"), []byte("caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rf := ReadFileTool{}
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "blob.bin"}), "binary")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "latin1.txt"}), "binary")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "."}), "directory", "search_files")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "pipe"}), "not a regular file", "named pipe")
	mustErr(t, callTool(t, WriteFileTool{}, dir, map[string]any{"path": "pipe", "content": "x"}), "not a regular file")
	mustErr(t, callTool(t, PatchTool{}, dir, map[string]any{"path": "pipe", "old_string": "x", "new_string": "y"}), "not a regular file")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "config.yml"}), "not found", "config.yml", "Did you mean", "config.yaml")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "Main.go"}), "main.go")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "nope/x.go"}), "does not exist")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "config.yaml", "offset": 10}), "past the end", "2 lines")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "config.yaml", "offset": 0}), "offset must be >= 1")
	mustErr(t, callTool(t, rf, dir, map[string]any{"path": "config.yaml", "limit": -1}), "limit")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := rf.Run(ctx, &Env{Cwd: dir}, []byte(`{"path":"config.yaml"}`))
	mustErr(t, r, "cancelled")
}

func TestReadFileTruncation(t *testing.T) {
	dir := t.TempDir()
	// 300 lines of 1,000 chars: the 100,000-char cap cuts in at line ~99.
	long := strings.Repeat("x", 995)
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "%03d %s\n", i, long)
	}
	writeFiles(t, dir, map[string]string{"wide.txt": b.String(), "oneline.min.js": strings.Repeat("y", 250_000)})
	rf := ReadFileTool{}
	out := mustOK(t, callTool(t, rf, dir, map[string]any{"path": "wide.txt"}))
	if len(out) > readMaxChars+300 {
		t.Errorf("output %d chars, over the cap", len(out))
	}
	body, footer, _ := strings.Cut(out, "\n\n[")
	ls := strings.Split(body, "\n")
	last := ls[len(ls)-1]
	n := len(ls)
	if !strings.HasPrefix(last, fmt.Sprintf("%d|%03d ", n, n)) || len(last) != len(ls[0])+len(fmt.Sprint(n))-1 {
		t.Errorf("not cut on a line boundary: last line %q…", last[:20])
	}
	if !strings.Contains(footer, fmt.Sprintf("offset=%d", n+1)) || !strings.Contains(footer, "100,000") {
		t.Errorf("footer = %q", footer)
	}
	// Continuing from the footer's offset picks up the next line.
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "wide.txt", "offset": n + 1, "limit": 1}))
	if !strings.HasPrefix(out, fmt.Sprintf("%d|%03d ", n+1, n+1)) {
		t.Errorf("next page starts %q", out[:20])
	}

	// A single line over the cap is cut rather than dropped.
	out = mustOK(t, callTool(t, rf, dir, map[string]any{"path": "oneline.min.js"}))
	if !strings.HasPrefix(out, "1|yyy") || !strings.Contains(out, "line truncated") || len(out) > readMaxChars+300 {
		t.Errorf("long line: %d chars, tail %q", len(out), out[len(out)-120:])
	}
}
