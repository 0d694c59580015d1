package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// bufferFiles is an editor's buffers: reads of a file with a buffer see
// the buffer, other reads the disk (as an editor falls back to it);
// writes land in the buffers only.
type bufferFiles struct {
	mu     sync.Mutex
	bufs   map[string]string
	writes []string
}

func (b *bufferFiles) ReadTextFile(_ context.Context, p string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.bufs[p]; ok {
		return s, nil
	}
	data, err := os.ReadFile(p)
	return string(data), err
}

func (b *bufferFiles) WriteTextFile(_ context.Context, p, content string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !filepath.IsAbs(p) {
		return errors.New("relative path")
	}
	b.bufs[p] = content
	b.writes = append(b.writes, p)
	return nil
}

// TestFileToolsGoThroughTheEditorsBuffers: with Env.Files set, read_file
// shows the unsaved buffer, write_file and patch edit the buffer (the
// disk is untouched, the diff is against the buffer), and the write
// guard still refuses what it refuses on disk.
func TestFileToolsGoThroughTheEditorsBuffers(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(a, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bf := &bufferFiles{bufs: map[string]string{a: "unsaved one\nunsaved two\n"}}
	env := &Env{Cwd: dir, Home: home, Files: bf}
	reg := NewRegistry(Builtins()...)
	ctx := context.Background()

	res := reg.Call(ctx, env, "read_file", `{"path":"a.txt"}`)
	if res.IsError || !strings.Contains(res.Output, "1|unsaved one\n2|unsaved two") {
		t.Fatalf("read_file did not read the buffer:\n%s", res.Output)
	}
	io := &callIO{}
	dctx := withCallIO(ctx, io)
	res = reg.Call(dctx, env, "patch", `{"path":"a.txt","old_string":"unsaved two","new_string":"patched two"}`)
	if res.IsError || bf.bufs[a] != "unsaved one\npatched two\n" {
		t.Fatalf("patch: %s\nbuffer %q", res.Output, bf.bufs[a])
	}
	diff := io.diffText()
	if !strings.Contains(diff, "-unsaved two") || !strings.Contains(diff, "+patched two") {
		t.Fatalf("the diff is not against the buffer:\n%s", diff)
	}
	res = reg.Call(ctx, env, "write_file", `{"path":"sub/new.txt","content":"fresh\n"}`)
	if res.IsError || bf.bufs[filepath.Join(dir, "sub", "new.txt")] != "fresh\n" {
		t.Fatalf("write_file: %s\nbuffers %v", res.Output, bf.bufs)
	}
	if data, _ := os.ReadFile(a); string(data) != "on disk\n" {
		t.Fatalf("the disk changed: %q", data)
	}
	// The guard decides as on disk: a link out of the working directory
	// stays refused, and nothing reaches the editor.
	if err := os.Symlink(home, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	n := len(bf.writes)
	if err := os.WriteFile(filepath.Join(home, "escape.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"write_file", `{"path":"out/escape.txt","content":"x"}`},
		{"patch", `{"path":"out/escape.txt","old_string":"a","new_string":"b"}`},
	} {
		if res := reg.Call(ctx, env, c[0], c[1]); !res.IsError {
			t.Fatalf("%s %s went through: %s", c[0], c[1], res.Output)
		}
	}
	if len(bf.writes) != n {
		t.Fatalf("a refused write reached the editor: %v", bf.writes[n:])
	}
}
