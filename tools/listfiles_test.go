package tools

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestListFilesHonoursGitignore: ignored files and directories, hidden
// entries and .git stay out; the limit truncates.
func TestListFilesHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".git/HEAD", ".gitignore", ".env", "main.go", "build/out.bin", "docs/a.md", "docs/b.log", "node_modules/x/y.js"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "x"
		if p == ".gitignore" {
			content = "build/\n*.log\nnode_modules\n"
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, truncated, err := ListFiles(context.Background(), root, 100)
	if err != nil || truncated || !reflect.DeepEqual(got, []string{"docs/a.md", "main.go"}) {
		t.Fatalf("ListFiles = %q %v %v", got, truncated, err)
	}
	if got, truncated, _ := ListFiles(context.Background(), root, 1); len(got) != 1 || !truncated {
		t.Fatalf("limit 1: %q %v", got, truncated)
	}
}
