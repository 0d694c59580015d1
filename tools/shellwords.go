package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"mvdan.cc/sh/v3/syntax"
)

// segment is one simple command of a parsed line, as the destructive
// heuristic reads it: its words with quotes removed (ANSI-C quotes
// decoded), and for each whether any part was ANSI-C quoted ($'…') or
// holds an expansion known only when it runs.
type segment struct {
	words   []string
	ansiC   []bool
	dynamic []bool
	// procSubst: a word is a process substitution <(…) or >(…).
	procSubst bool
	// stdin is the static text of a here-string or here-document fed to
	// the command; stdinDynamic says one holds an expansion.
	stdin        string
	stdinDynamic bool
	// dir is where the line runs, "" when unknown: with it, a write of a
	// file that does not exist yet creates it and is not destructive.
	dir string
}

// from returns the segment of the words from index k on.
func (sg segment) from(k int) segment {
	out := sg
	out.words, out.ansiC, out.dynamic = sg.words[k:], sg.ansiC[k:], sg.dynamic[k:]
	return out
}

// callSegment makes the segment of a simple command (its assignments are
// left out: the shell reads them apart) with the here-strings and
// here-documents of redirs.
func callSegment(c *syntax.CallExpr, redirs []*syntax.Redirect, dir string) segment {
	sg := segment{dir: dir}
	for _, w := range c.Args {
		rw := readWord(w)
		sg.words = append(sg.words, rw.lit)
		sg.ansiC = append(sg.ansiC, rw.ansiC)
		sg.dynamic = append(sg.dynamic, !rw.static)
		for _, p := range w.Parts {
			if _, ok := p.(*syntax.ProcSubst); ok {
				sg.procSubst = true
			}
		}
	}
	for _, r := range redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.WordHdoc:
			body = r.Word
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		}
		if body == nil {
			continue
		}
		if r.Op == syntax.WordHdoc {
			rw := readWord(body)
			sg.stdin += rw.lit + "\n"
			sg.stdinDynamic = sg.stdinDynamic || !rw.static
			continue
		}
		if hasExpansion(body) {
			sg.stdinDynamic = true
			continue
		}
		for _, p := range body.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				sg.stdin += l.Value
			}
		}
	}
	return sg
}

// hasExpansion reports whether w holds a parameter, command, arithmetic
// or process substitution.
func hasExpansion(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// overwriteTarget returns the file an overwriting redirection of r writes
// (> >| &> >& FILE, not >>, nor a duplication like 2>&1), or "" when it
// writes none or only to /dev/null and the like. A target known only when
// it runs is "(a file not known before it runs)". When dir is set, a
// static target that does not exist below it is created, not
// overwritten, and is "" too.
func overwriteTarget(r *syntax.Redirect, dir string) string {
	switch r.Op {
	case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
	case syntax.DplOut:
		if t := readWord(r.Word); t.static && (t.lit == "-" || t.lit != "" && isDigits(t.lit)) {
			return ""
		}
	default:
		return ""
	}
	t := readWord(r.Word)
	switch {
	case !t.static:
		return "(a file not known before it runs)"
	case isDevNull(t.lit):
		return ""
	case dir != "" && createsFile(dir, t.lit):
		return ""
	}
	return t.lit
}

// createsFile reports whether p (relative to dir) does not exist, so that
// writing it creates it and overwrites nothing.
func createsFile(dir, p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
