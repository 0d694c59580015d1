package tools

import (
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzKnownSafeReadsAll: the classifier never calls a command known safe
// that the parser cannot fully read. For any command line it accepts:
// the line parses; bash itself (bash -n) reads it without a syntax error;
// its every node is of a kind the judge knows, with nothing that runs a
// value as code (a function, let, a coprocess, a C-style loop, arithmetic
// on variables, an indirect, assigning or @ expansion, a subscript); every
// command word is static and names a program of the known-safe list or a
// safe wrapper; every write redirection has a static target; and the
// destructive heuristic, asked of the same line in the same directory,
// finds nothing.
func FuzzKnownSafeReadsAll(f *testing.F) {
	for _, c := range issue29Unsafe {
		f.Add(c)
	}
	for _, c := range issue29Safe {
		f.Add(c)
	}
	dir := f.TempDir()
	writeFiles(f, dir, map[string]string{"notes.md": "notes\n", ".env": "SECRET=1\n", "a": "a\n", "sub/x": "x\n"})
	bash, _ := exec.LookPath("bash")
	f.Fuzz(func(t *testing.T, cmd string) {
		ok, _ := KnownSafeCommand(cmd, dir)
		if !ok {
			return
		}
		file, err := parseShell(cmd)
		if err != nil {
			t.Fatalf("known safe but does not parse (%v): %q", err, cmd)
		}
		if d, why := destructiveIn(cmd, dir); d {
			t.Fatalf("known safe but destructive (%s): %q", why, cmd)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if why := unreadNode(n); why != "" {
				t.Fatalf("known safe with %s: %q", why, cmd)
			}
			return true
		})
		if bash != "" {
			c := exec.Command(bash, "-n")
			c.Stdin = strings.NewReader(cmd)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("known safe, but bash reads a syntax error (%s): %q", out, cmd)
			}
		}
	})
}

// unreadNode says what in n the judge must never have let through, or "".
// It is written apart from the judge, as the fuzz target's oracle.
func unreadNode(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.FuncDecl, *syntax.LetClause, *syntax.CoprocClause, *syntax.TestDecl, *syntax.CStyleLoop, *syntax.ExtGlob:
		return "a function, let, coprocess, C-style loop or extended glob"
	case *syntax.Stmt:
		if n.Coprocess {
			return "a coprocess"
		}
		for _, r := range n.Redirs {
			switch r.Op {
			case syntax.RdrOut, syntax.RdrClob, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				if !readWord(r.Word).static {
					return "a write redirection to a target not known before it runs"
				}
			}
		}
	case *syntax.CallExpr:
		if len(n.Args) == 0 {
			return ""
		}
		w := readWord(n.Args[0])
		if !w.static {
			return "a command word not known before it runs"
		}
		name := w.lit
		if i := lastSlash(name); i >= 0 {
			name = name[i+1:]
		}
		if _, ok := knownSafePrograms[name]; !ok {
			if _, ok := safeWrappers[name]; !ok {
				return "the program " + w.lit + ", which is not on the known-safe list"
			}
		}
	case *syntax.ParamExp:
		if n.Excl && n.Names == 0 || n.Index != nil && !allElements(n.Index) ||
			n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull || n.Exp.Op == syntax.OtherParamOps) {
			return "an expansion that evaluates or assigns"
		}
	case *syntax.ArithmExp:
		if !numericArith(n.X) {
			return "arithmetic on variables"
		}
	case *syntax.ArithmCmd:
		if !numericArith(n.X) {
			return "arithmetic on variables"
		}
	case *syntax.CmdSubst:
		if n.TempFile || n.ReplyVar {
			return "a command substitution of mksh"
		}
	case *syntax.Assign:
		if n.Name == nil || !syntax.ValidName(n.Name.Value) || !harmlessVariable(n.Name.Value) {
			return "an assignment of " + n.Name.Value
		}
	}
	return ""
}

// lastSlash is the index of the last '/' in s, or -1.
func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
