// Package sandboxtest helps tests of the sandbox find a scratch directory
// that workspace-write does not make writable by itself: not under /tmp or
// $TMPDIR (t.TempDir lies there, and so may the checkout a test runs in).
package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scratch makes a fresh directory outside /tmp and $TMPDIR — in the test's
// working directory when that is outside them, else in /var/tmp or the
// home directory — removed when the test ends. It skips the test when no
// such place is writable.
func Scratch(t testing.TB, prefix string) string {
	t.Helper()
	var candidates []string
	if wd, err := os.Getwd(); err == nil {
		candidates = append(candidates, wd)
	}
	candidates = append(candidates, "/var/tmp")
	if h, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, h)
	}
	for _, c := range candidates {
		if underWritableTmp(c) {
			continue
		}
		d, err := os.MkdirTemp(c, prefix)
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	t.Skip("no writable directory outside /tmp and $TMPDIR for the sandbox test")
	return ""
}

// underWritableTmp reports whether dir is /tmp or $TMPDIR or below them,
// symlinks resolved.
func underWritableTmp(dir string) bool {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	d := real(dir)
	for _, root := range []string{"/tmp", os.Getenv("TMPDIR")} {
		if root == "" {
			continue
		}
		r := real(root)
		if d == r || strings.HasPrefix(d, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
