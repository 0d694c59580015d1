package loop

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// exitKinds reads every ExitKind constant declared in exit.go, so a kind
// added later without an explanation fails TestEveryExitHasItsExplanation.
func exitKinds(t *testing.T) []ExitKind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "exit.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []ExitKind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ExitKind" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					continue
				}
				s, _ := strconv.Unquote(lit.Value)
				kinds = append(kinds, ExitKind(s))
			}
		}
	}
	return kinds
}

// TestEveryExitHasItsExplanation: each exit reason of CONTRACT.md and
// each one talaria added gets its own explanation, never the catch-all.
func TestEveryExitHasItsExplanation(t *testing.T) {
	kinds := exitKinds(t)
	if len(kinds) < 16 {
		t.Fatalf("found only %d exit kinds in exit.go: %v", len(kinds), kinds)
	}
	f := newFixture(t, nil)
	const fallback = "The turn ended without a recognised exit path."
	seen := map[string]ExitKind{}
	for _, k := range kinds {
		tr := newTurn(f.agent, context.Background(), 1)
		tr.exit = k.Exit()
		switch k {
		case ExitMaxIterationsKind:
			tr.exit = ExitMaxIterations(10, 10)
		case ExitErrorNearMaxKind:
			tr.exit = ExitErrorNearMax("server_error")
		case ExitTextResponseKind:
			tr.exit = ExitTextResponse("length")
		}
		got := tr.explain()
		if got == "" || got == fallback {
			t.Errorf("%s: explanation %q", k, got)
			continue
		}
		// The interrupt pair and the budget pair share theirs on purpose.
		if prev, dup := seen[got]; dup && !(tr.exit.Interrupted() || tr.exit.BudgetOut()) {
			t.Errorf("%s explains itself like %s: %q", k, prev, got)
		}
		seen[got] = k
	}
}
