package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSimilarNamesHidesDotEntries: a miss on "git" or "env" does not
// suggest .git or .env; a name that starts with a dot may get one.
func TestSimilarNamesHidesDotEntries(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".git", ".env", "env.go"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := similarNames(dir, "git", 3); len(got) != 0 {
		t.Errorf("git suggests %q", got)
	}
	if got := similarNames(dir, "env", 3); !reflect.DeepEqual(got, []string{"env.go"}) {
		t.Errorf("env suggests %q", got)
	}
	if got := similarNames(dir, ".gti", 3); len(got) == 0 || got[0] != ".git" {
		t.Errorf(".gti suggests %q", got)
	}
}
