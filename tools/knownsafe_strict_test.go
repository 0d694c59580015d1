package tools

import (
	"path"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzKnownSafeUnsandboxedIsStricter: whatever KnownSafeUnsandboxed
// accepts (it runs unasked outside the sandbox), KnownSafeCommand accepts
// too, and no redirection of it writes a file or opens bash's network
// paths, and it runs no touch, mkdir or tee.
func FuzzKnownSafeUnsandboxedIsStricter(f *testing.F) {
	for _, c := range append(append([]string(nil), issue29Unsafe...), issue29Safe...) {
		f.Add(c)
	}
	for _, c := range []string{"ls > new", "ls 2>/dev/null", "cat < /dev/tcp/h/1", "echo x | tee new", "git ls-remote", "go list -m all"} {
		f.Add(c)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, cmd string) {
		ok, _ := KnownSafeUnsandboxed(cmd, dir)
		if !ok {
			return
		}
		if ok, why := KnownSafeCommand(cmd, dir); !ok {
			t.Fatalf("known safe outside the sandbox but not inside (%s): %q", why, cmd)
		}
		file, err := parseShell(cmd)
		if err != nil {
			t.Fatalf("accepted but does not parse: %q", cmd)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Redirect:
				switch n.Op {
				case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn, syntax.DplOut:
					return true
				}
				w := readWord(n.Word)
				if n.Op == syntax.RdrIn {
					if w.lit == "" || strings.Contains(w.lit, "/dev/tcp") || strings.Contains(w.lit, "/dev/udp") {
						t.Fatalf("reads a network path: %q", cmd)
					}
					return true
				}
				if w.lit != "/dev/null" && w.lit != "/dev/stdout" && w.lit != "/dev/stderr" {
					t.Fatalf("writes %q outside the sandbox: %q", w.lit, cmd)
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch path.Base(readWord(n.Args[0]).lit) {
					case "touch", "mkdir", "tee":
						t.Fatalf("runs a file-creating program outside the sandbox: %q", cmd)
					}
				}
			}
			return true
		})
	})
}
