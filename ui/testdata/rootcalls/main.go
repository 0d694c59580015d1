// Command rootcalls measures how much of package ui's component code
// calls back into the root model. Run it from the repository root:
//
//	go run ./ui/testdata/rootcalls ui
//
// It prints, for the component files (the composer, the live panes, the
// pager and the dialogs: see componentFiles), the number of call sites
// x.M(...) where x is a value of type *Model (the receiver of a *Model
// method, or a parameter or variable declared *Model) and M is a method
// of *Model; then the number of methods declared on *Model in the whole
// package. Only the AST is read: a *Model reached through a field or a
// function result is not counted (the package has none in component
// files).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// componentFiles are the files whose code belongs to a component.
var componentFiles = []string{
	"composer.go", "editor.go", "editor_external.go", "complete.go",
	"composer_intent.go", "composer_keys.go", "composer_popup.go", "history.go",
	"attach_files.go", "attach_images.go", "attach_clipboard.go",
	"live.go", "live_events.go", "panes.go",
	"pager.go", "pager_copy.go",
	"modal.go", "dialogs.go", "dialog_view.go", "dialog_command.go", "dialog_remember.go",
}

func main() {
	dir := "ui"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		fail(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			fail(err)
		}
		files[filepath.Base(n)] = f
	}
	methods := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && isModelRecv(fd) {
				methods[fd.Name.Name] = true
			}
		}
	}
	total := 0
	perFile := map[string]int{}
	for _, name := range componentFiles {
		f, ok := files[name]
		if !ok {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := countCalls(fd, methods)
			perFile[name] += n
			total += n
		}
	}
	keys := make([]string, 0, len(perFile))
	for k := range perFile {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%-22s %d\n", k, perFile[k])
	}
	fmt.Printf("root calls from component files: %d\n", total)
	fmt.Printf("methods on *Model: %d\n", len(methods))
}

// isModelRecv reports whether fd is a method of *Model.
func isModelRecv(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return false
	}
	return isModelPtr(fd.Recv.List[0].Type)
}

func isModelPtr(e ast.Expr) bool {
	s, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == "Model"
}

// countCalls counts x.M(...) in fd where x is declared *Model in fd (its
// receiver, a parameter, a var) and M is a *Model method.
func countCalls(fd *ast.FuncDecl, methods map[string]bool) int {
	models := map[string]bool{}
	addFields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			if isModelPtr(f.Type) {
				for _, n := range f.Names {
					models[n.Name] = true
				}
			}
		}
	}
	addFields(fd.Recv)
	addFields(fd.Type.Params)
	n := 0
	ast.Inspect(fd.Body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.FuncLit:
			addFields(x.Type.Params)
		case *ast.ValueSpec:
			if x.Type != nil && isModelPtr(x.Type) {
				for _, id := range x.Names {
					models[id.Name] = true
				}
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				break
			}
			if id, ok := sel.X.(*ast.Ident); ok && models[id.Name] && methods[sel.Sel.Name] {
				n++
			}
		}
		return true
	})
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rootcalls:", err)
	os.Exit(1)
}
