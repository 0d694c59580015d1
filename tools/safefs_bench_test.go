package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkWriteFile is the cost of one write_file call overwriting a
// 4 KiB file two directories deep (resolution, checks, temp file, fsync,
// rename).
func BenchmarkWriteFile(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{"src/pkg/file.go": "x"})
	env := &Env{Cwd: dir}
	content := make([]byte, 4096)
	for i := range content {
		content[i] = 'a' + byte(i%26)
	}
	raw, err := json.Marshal(map[string]any{"path": "src/pkg/file.go", "content": string(content)})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if r := (WriteFileTool{}).Run(context.Background(), env, raw); r.IsError {
			b.Fatal(fmt.Sprint(i, r.Output))
		}
	}
}

// BenchmarkWriteGuardOpen is what the one-handle write adds to a write:
// building the guard (the working directory's real place), opening and
// checking the file's directory, and the stat of the file.
func BenchmarkWriteGuardOpen(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{"src/pkg/file.go": "x"})
	env := &Env{Cwd: dir, Home: b.TempDir()}
	p, err := ResolvePath(dir, "src/pkg/file.go")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		t, err := newWriteGuard(env).open(p, true)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := t.mode(); err != nil {
			b.Fatal(err)
		}
		t.close()
	}
}
