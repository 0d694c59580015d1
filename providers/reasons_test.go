package providers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// contractReasons are the failover reasons CONTRACT.md lists (its event
// table, and "Beyond" for reasoning_mandatory and connection_refused).
var contractReasons = []FailoverReason{"auth", "auth_permanent", "billing", "rate_limit", "overloaded",
	"server_error", "timeout", "context_overflow", "payload_too_large", "model_not_found",
	"content_policy_blocked", "format_error", "thinking_signature", "unknown",
	"reasoning_mandatory", "connection_refused"}

// declaredReasons parses classify.go for the FailoverReason constants.
func declaredReasons(t *testing.T) map[string]FailoverReason {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "classify.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]FailoverReason{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "FailoverReason" {
				continue
			}
			for i, n := range v.Names {
				lit := v.Values[i].(*ast.BasicLit)
				val, _ := strconv.Unquote(lit.Value)
				out[n.Name] = FailoverReason(val)
			}
		}
	}
	return out
}

// TestFailoverReasonsHoldTheContracts: every reason of the contract is a
// constant, spelled as the contract spells it; the others are the
// documented extras (each with its doc comment in classify.go), and no
// two constants share a value.
func TestFailoverReasonsHoldTheContracts(t *testing.T) {
	decl := declaredReasons(t)
	values := map[FailoverReason]string{}
	for name, v := range decl {
		if other, dup := values[v]; dup {
			t.Errorf("%s and %s are both %q", name, other, v)
		}
		values[v] = name
	}
	for _, r := range contractReasons {
		if _, ok := values[r]; !ok {
			t.Errorf("the contract's reason %q has no constant", r)
		}
	}
	extras := []FailoverReason{"upstream_rate_limit", "ssl_cert_verification", "image_too_large", "image_corrupt",
		"multimodal_tool_content_unsupported", "invalid_encrypted_content", "provider_policy_blocked",
		"long_context_tier", "llama_cpp_grammar_pattern", "local_error", "interrupted"}
	for v := range values {
		if !slices.Contains(contractReasons, v) && !slices.Contains(extras, v) {
			t.Errorf("reason %q is neither the contract's nor a documented extra", v)
		}
	}
}

// TestNoReasonInventedOnTheSpot: outside classify.go no Go file of the
// module makes a failover reason from a string literal: no
// FailoverReason("…") conversion, no Reason: "…" field or .Reason = "…"
// assignment, no fallback(…, "…") call. (Exit reasons, finish reasons
// and approval reasons are other fields: ExitReason, FinishReason and
// the tools' ApprovalDecision are not looked at.)
func TestNoReasonInventedOnTheSpot(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The structs whose Reason field is a failover reason.
	failoverStructs := []string{"RetryScheduled", "FallbackActivated", "CredentialRotated", "APIAttempt", "Classified", "KeyState"}
	var bad []string
	fset := token.NewFileSet()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		isLit := func(e ast.Expr) bool {
			l, ok := e.(*ast.BasicLit)
			return ok && l.Kind == token.STRING
		}
		report := func(n ast.Node, what string) {
			bad = append(bad, fset.Position(n.Pos()).String()+": "+what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := x.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				if (name == "FailoverReason" || name == "fallback") && slices.ContainsFunc(x.Args, isLit) && rel != "providers/classify.go" {
					report(x, name+" with a string literal")
				}
			case *ast.CompositeLit:
				typ := ""
				switch tt := x.Type.(type) {
				case *ast.Ident:
					typ = tt.Name
				case *ast.SelectorExpr:
					typ = tt.Sel.Name
				}
				if !slices.Contains(failoverStructs, typ) {
					return true
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Reason" && isLit(kv.Value) {
							report(kv, typ+"{Reason: literal}")
						}
					}
				}
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if s, ok := l.(*ast.SelectorExpr); ok && s.Sel.Name == "Reason" && i < len(x.Rhs) && isLit(x.Rhs[i]) {
						if lit := x.Rhs[i].(*ast.BasicLit); lit.Value != `""` {
							report(x, ".Reason = literal")
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if len(bad) > 0 {
		t.Fatalf("failover reasons made from string literals:\n%s", strings.Join(bad, "\n"))
	}
}
