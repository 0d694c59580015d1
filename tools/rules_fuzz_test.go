package tools

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzRuleMatchAgreesWithParser: a command rule never matches, as an
// allow rule, a command the parser cannot fully read as matching: the
// line parses, holds only simple commands of static words (no
// expansion, substitution, assignment or writing redirection), and each
// of them begins with the rule's words. Whatever an allow rule matches,
// the same rule as a deny rule matches too (deny takes the safe side).
func FuzzRuleMatchAgreesWithParser(f *testing.F) {
	for _, s := range [][2]string{
		{"git status:*", "git status"},
		{"git status:*", "git status; rm -rf /"},
		{"git status:*", "git status $(rm -rf /)"},
		{"git status:*", "git status `id`"},
		{"git status:*", "git status > out"},
		{"git status:*", "git status <(rm x)"},
		{"git status:*", "git status && git status | git status"},
		{"git status:*", "GIT_DIR=/x git status"},
		{"git status:*", "git status\nrm x"},
		{"git status:*", "git st\\\natus"},
		{"git status:*", "g''it status"},
		{"git status:*", "git status & rm x"},
		{"ls", "ls"},
		{"ls", "ls $'\\x2d'la"},
		{"ls", "ls *"},
		{"ls", "{ ls; } 2>&1"},
		{"ls", "(ls) >/dev/null"},
		{"ls", "ls <<EOF\n$(rm x)\nEOF"},
		{"npm run test:*", "npm run test -- a"},
		{"npm run test:*", "npm run test${IFS}x"},
		{"echo:*", "echo a > /dev/tcp/x/1"},
		{"cat:*", "cat < /dev/tcp/x/1"},
		{"rm:*", "sudo rm x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, command string) {
		r, err := ParseRule("Bash(" + spec + ")")
		if err != nil || r.kind != ruleCommand {
			return
		}
		c := &ruleCall{tool: "terminal", cmd: viewCommand(command)}
		if !r.matches(c, sideAllow) {
			return
		}
		if !r.matches(c, sideDeny) {
			t.Fatalf("%q matches %q as an allow but not as a deny", r.Text, command)
		}
		if strings.HasPrefix(command, "-") || strings.HasPrefix(command, "+") {
			t.Fatalf("%q allowed %q, which bash -c takes for options", r.Text, command)
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
		if err != nil {
			t.Fatalf("%q allowed %q, which does not parse: %v", r.Text, command, err)
		}
		calls := 0
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ArithmCmd,
				*syntax.ExtGlob, *syntax.BraceExp, *syntax.FuncDecl, *syntax.DeclClause, *syntax.LetClause,
				*syntax.TestClause, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
				*syntax.CoprocClause, *syntax.TimeClause, *syntax.Assign:
				t.Fatalf("%q allowed %q, which holds a %T", r.Text, command, n)
			case *syntax.Redirect:
				w := readWord(n.Word)
				if !w.static {
					t.Fatalf("%q allowed %q with a redirection to an expansion", r.Text, command)
				}
				switch n.Op {
				case syntax.DplOut, syntax.DplIn, syntax.RdrIn:
				default:
					if w.lit != "/dev/null" {
						t.Fatalf("%q allowed %q, which writes %q", r.Text, command, w.lit)
					}
				}
			case *syntax.CallExpr:
				calls++
				if len(n.Args) < len(r.words) {
					t.Fatalf("%q allowed %q: a command shorter than the rule", r.Text, command)
				}
				for i, w := range n.Args {
					rw := readWord(w)
					if !rw.static {
						t.Fatalf("%q allowed %q: word %d is not static", r.Text, command, i)
					}
					if i < len(r.words) && rw.lit != r.words[i] {
						t.Fatalf("%q allowed %q: word %d is %q", r.Text, command, i, rw.lit)
					}
				}
				if !r.prefix && len(n.Args) != len(r.words) {
					t.Fatalf("%q (exact) allowed %q", r.Text, command)
				}
			}
			return true
		})
		if calls == 0 {
			t.Fatalf("%q allowed %q, which runs no command", r.Text, command)
		}
	})
}
