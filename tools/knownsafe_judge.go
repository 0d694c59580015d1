package tools

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// KnownSafeCommand reports whether the shell command line cmd, run by
// bash -c in the directory dir, is known not to destroy, and if not, why.
// It is the inverse of a denylist: the line is parsed (mvdan.cc/sh, as
// bash reads it) and every simple command in it, in pipes, lists,
// subshells, loops, conditions and command or process substitutions,
// must be a program of knownSafePrograms called without its writing
// options, or a safe wrapper of one; every word must be read without
// running anything not judged (no eval or source, no function
// definition, no arithmetic on variables, no indirect or assigning
// expansion, no command name made by an expansion); an assignment may set
// only a variable that no known-safe program reads (harmlessVariable);
// and a redirection may write only to /dev/null and the like or to a
// file that does not exist yet (checked with Lstat below dir; after a cd
// in the line, or with dir empty, a write to a relative path asks).
// Appending (>>) to an existing file asks too: a known-safe command
// changes no file that exists. A line the parser cannot read is not
// known safe.
func KnownSafeCommand(cmd, dir string) (bool, string) {
	return knownSafe(cmd, dir, false)
}

// KnownSafeUnsandboxed is KnownSafeCommand for a command that runs
// outside any sandbox, as the known-safe list of the ask mode uses it: on
// top of KnownSafeCommand's checks, no redirection may write anything
// (only n>&m, n>&-, writes to /dev/null, /dev/stdout or /dev/stderr,
// here-documents and reads of a file that is not bash's /dev/tcp or
// /dev/udp), programs that create files (touch, mkdir, tee) are not on
// the list, and neither are those that may reach the network (git
// ls-remote, git remote show, go list and go vet, which may download
// modules).
func KnownSafeUnsandboxed(cmd, dir string) (bool, string) {
	return knownSafe(cmd, dir, true)
}

// strictOut lists the programs KnownSafeUnsandboxed leaves out, with why.
var strictOut = map[string]string{
	"touch": "it creates files", "mkdir": "it creates directories", "tee": "it writes files",
}

func knownSafe(cmd, dir string, strict bool) (bool, string) {
	if strings.HasPrefix(cmd, "-") || strings.HasPrefix(cmd, "+") {
		return false, "bash -c would take the command for its own options"
	}
	f, err := parseShell(cmd)
	if err != nil {
		return false, "the command cannot be parsed: " + err.Error()
	}
	if len(f.Stmts) == 0 {
		return false, "the command is empty"
	}
	j := &safeJudge{src: cmd, dir: dir, moved: changesDir(f), strict: strict}
	if why := j.stmts(f.Stmts); why != "" {
		return false, why
	}
	return true, ""
}

// safeJudge walks a parsed command line for KnownSafeCommand.
type safeJudge struct {
	// src is the line.
	src string
	// dir is where the line starts; "" when unknown.
	dir string
	// moved: the line changes directory somewhere (cd, pushd, popd), so
	// a relative path cannot be placed.
	moved bool
	// strict: the command runs outside the sandbox (KnownSafeUnsandboxed).
	strict bool
}

// changesDir reports whether any command of f is cd, pushd or popd (also
// behind a wrapper): then no relative path of the line can be placed.
func changesDir(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, w := range c.Args {
				switch readWord(w).lit {
				case "cd", "pushd", "popd":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// stmts judges a list of statements; it returns why one is not known
// safe, or "".
func (j *safeJudge) stmts(ss []*syntax.Stmt) string {
	for _, s := range ss {
		if why := j.stmt(s); why != "" {
			return why
		}
	}
	return ""
}

func (j *safeJudge) stmt(s *syntax.Stmt) string {
	if s == nil {
		return ""
	}
	if s.Coprocess {
		return "a coprocess"
	}
	for _, r := range s.Redirs {
		if why := j.redirect(r); why != "" {
			return why
		}
	}
	if s.Cmd == nil {
		return ""
	}
	return j.command(s.Cmd)
}

func (j *safeJudge) command(c syntax.Command) string {
	switch c := c.(type) {
	case *syntax.CallExpr:
		return j.call(c)
	case *syntax.BinaryCmd:
		if why := j.stmt(c.X); why != "" {
			return why
		}
		return j.stmt(c.Y)
	case *syntax.Subshell:
		return j.stmts(c.Stmts)
	case *syntax.Block:
		return j.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			if why := j.stmts(ic.Cond); why != "" {
				return why
			}
			if why := j.stmts(ic.Then); why != "" {
				return why
			}
		}
		return ""
	case *syntax.WhileClause:
		if why := j.stmts(c.Cond); why != "" {
			return why
		}
		return j.stmts(c.Do)
	case *syntax.ForClause:
		it, ok := c.Loop.(*syntax.WordIter)
		if !ok || c.Select {
			return "a C-style for loop or select (arithmetic or a prompt)"
		}
		if !harmlessVariable(it.Name.Value) {
			return "a loop that sets " + it.Name.Value
		}
		if why := j.words(it.Items); why != "" {
			return why
		}
		return j.stmts(c.Do)
	case *syntax.CaseClause:
		if why := j.word(c.Word); why != "" {
			return why
		}
		for _, it := range c.Items {
			if why := j.words(it.Patterns); why != "" {
				return why
			}
			if why := j.stmts(it.Stmts); why != "" {
				return why
			}
		}
		return ""
	case *syntax.TimeClause:
		return j.stmt(c.Stmt)
	case *syntax.TestClause:
		return j.test(c.X)
	case *syntax.DeclClause:
		return j.decl(c)
	case *syntax.ArithmCmd:
		if numericArith(c.X) {
			return ""
		}
		return "arithmetic on variables ((( … ))), which can run a command substitution held in a value"
	case *syntax.FuncDecl:
		return "it defines a function"
	case *syntax.LetClause:
		return "let (arithmetic on variables)"
	}
	return "a shell construct the classifier does not know"
}

// call judges a simple command: its assignments, every word's
// substitutions, and the program it runs.
func (j *safeJudge) call(c *syntax.CallExpr) string {
	for _, as := range c.Assigns {
		if why := j.assign(as); why != "" {
			return why
		}
	}
	if why := j.words(c.Args); why != "" {
		return why
	}
	if len(c.Args) == 0 {
		return ""
	}
	return j.program(c.Args, false)
}

// assign judges NAME=VALUE (before a command, alone, or in declare).
func (j *safeJudge) assign(as *syntax.Assign) string {
	if as.Name == nil || !syntax.ValidName(as.Name.Value) {
		return "an assignment the classifier does not know"
	}
	if !harmlessVariable(as.Name.Value) {
		return "it sets " + as.Name.Value + ", which changes what programs do"
	}
	if as.Index != nil {
		return "an array element assignment (its subscript is arithmetic)"
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				return "an array element assignment (its subscript is arithmetic)"
			}
			if why := j.word(e.Value); why != "" {
				return why
			}
		}
	}
	return j.word(as.Value)
}

// decl judges export, local, declare, typeset and readonly: plain
// assignments of harmless variables, without options (declare -i makes
// later assignments arithmetic, -n makes a reference).
func (j *safeJudge) decl(c *syntax.DeclClause) string {
	switch c.Variant.Value {
	case "export", "local", "declare", "typeset", "readonly":
	default:
		return c.Variant.Value + " is not on the known-safe list"
	}
	for _, as := range c.Args {
		if as.Naked && as.Name == nil {
			return c.Variant.Value + " with options"
		}
		if why := j.assign(as); why != "" {
			return why
		}
	}
	return ""
}

// redirect judges a redirection: reading is harmless; writing goes only
// to a device such as /dev/null or to a file that does not exist yet.
func (j *safeJudge) redirect(r *syntax.Redirect) string {
	if r.N != nil && strings.Trim(r.N.Value, "0123456789") != "" {
		return "a redirection to a named descriptor {var}>"
	}
	if why := j.word(r.Word); why != "" {
		return why
	}
	if r.Word != nil {
		// ">0>f": bash takes the 0 for the descriptor of the next
		// redirection (a syntax error) where the parser reads a target.
		if end := int(r.Word.End().Offset()); end < len(j.src) && (j.src[end] == '<' || j.src[end] == '>') && isDigits(readWord(r.Word).lit) {
			return "a redirection bash reads differently"
		}
	}
	if why := j.word(r.Hdoc); why != "" {
		return why
	}
	if j.strict {
		return strictRedirect(r)
	}
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return ""
	case syntax.DplOut:
		if t := readWord(r.Word); t.static && (t.lit == "-" || strings.Trim(t.lit, "0123456789") == "" && t.lit != "") {
			return ""
		}
	case syntax.RdrOut, syntax.RdrClob, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut,
		syntax.RdrAllClob, syntax.AppClob, syntax.AppAllClob:
	default:
		return "a redirection the classifier does not know"
	}
	t := readWord(r.Word)
	if !t.static {
		return "a redirection " + r.Op.String() + " to a file not known before it runs"
	}
	return j.newFile(t.lit, "a redirection "+r.Op.String())
}

// newFile says why writing the file p is not known safe: it exists (or
// cannot be checked), or cannot be placed. A device that discards or
// passes output on is always fine.
func (j *safeJudge) newFile(p, what string) string {
	switch {
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/"):
		return ""
	case p == "":
		return what + " to an empty file name"
	case !filepath.IsAbs(p) && j.moved:
		return what + " to " + p + " after a change of directory"
	case !filepath.IsAbs(p) && j.dir == "":
		return what + " to " + p + " in an unknown directory"
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(j.dir, p)
	}
	_, err := os.Lstat(full)
	switch {
	case err == nil:
		return what + " onto " + p + ", which exists"
	case errors.Is(err, fs.ErrNotExist):
		return ""
	}
	return what + " to " + p + ", which cannot be checked"
}

// trustedBinDirs are the directories a program named by path may come
// from and still be judged by its base name.
var trustedBinDirs = map[string]bool{"/bin/": true, "/usr/bin/": true, "/usr/local/bin/": true, "/sbin/": true, "/usr/sbin/": true}

// program judges the command made of words (static or not): a safe
// wrapper and what it runs, or a known-safe program and its arguments.
// extra says that xargs adds arguments nobody can see.
func (j *safeJudge) program(words []*syntax.Word, extra bool) string {
	nw := readWord(words[0])
	if !nw.static || nw.lit == "" {
		return "the command name is not known before it runs"
	}
	name := nw.lit
	if strings.Contains(name, "/") {
		d, base := path.Split(name)
		if !trustedBinDirs[d] {
			return "it runs " + name + ", a program named by its path"
		}
		name = base
	}
	if spec, ok := safeWrappers[name]; ok {
		return j.wrapper(name, spec, words[1:], extra)
	}
	if name == "test" || name == "[" {
		return testWords(words[1:])
	}
	if name == "printf" {
		// Options stand only before the format: its words after are
		// printed, whatever they hold.
		if len(words) > 1 {
			if w := readWord(words[1]); !w.noOption || strings.HasPrefix(w.lit, "-v") {
				return "printf's first word is an option or not known before it runs (-v sets a variable)"
			}
		}
		return ""
	}
	if why, out := strictOut[name]; out && j.strict {
		return name + " is not on the known-safe list outside the sandbox: " + why
	}
	rule, ok := knownSafePrograms[name]
	if !ok {
		return name + " is not on the known-safe list"
	}
	if rule.anyArgs {
		return ""
	}
	if extra {
		return "xargs gives " + name + " arguments not known before it runs"
	}
	args := make([]string, 0, len(words)-1)
	for _, w := range words[1:] {
		rw := readWord(w)
		switch {
		case rw.static:
			args = append(args, rw.lit)
		case rw.noOption && rule.check == nil:
			args = append(args, rw.lit) // an operand, whatever it holds
		default:
			return "an argument of " + name + " is not known before it runs"
		}
	}
	return rule.judge(j, name, args)
}

// judge applies the rule to the arguments args of the program name.
// Every word that looks like an option is checked, also after "--" (which
// may be the value of an option).
func (r safeRule) judge(j *safeJudge, name string, args []string) string {
	operands, after := 0, false
	for _, a := range args {
		for _, d := range r.denyWords {
			if a == d || strings.HasPrefix(a, d+"=") {
				return name + " " + d
			}
		}
		switch {
		case a == "--":
			after = true
			continue
		case len(a) > 2 && strings.HasPrefix(a, "--"):
			opt, _, _ := strings.Cut(a, "=")
			for _, d := range r.denyLong {
				if d == opt || len(opt) >= 3 && strings.HasPrefix(d, opt) {
					return name + " " + d
				}
			}
		case len(a) > 1 && a[0] == '-':
			for _, c := range a[1:] {
				if strings.ContainsRune(r.denyShort, c) {
					return name + " -" + string(c)
				}
			}
		}
		if after || a == "-" || !strings.HasPrefix(a, "-") {
			operands++
		}
	}
	switch {
	case r.maxOperands == noOperands && operands > 0, r.maxOperands > 0 && operands > r.maxOperands:
		return name + " with that many operands (one of them may be written)"
	}
	if r.check != nil {
		return r.check(j, args)
	}
	return ""
}

// wrapper judges a wrapper that runs a command: its options must all be
// known (so that none of their values is taken for the command), env's
// assignments harmless, timeout's duration known; then the wrapped
// command is judged. A wrapper with no command runs nothing (env prints
// the environment, exec redirects the shell).
func (j *safeJudge) wrapper(name string, spec []string, rest []*syntax.Word, extra bool) string {
	i := 0
	for i < len(rest) {
		w := readWord(rest[i])
		if !w.static {
			if w.noOption {
				break
			}
			return "an option of " + name + " is not known before it runs"
		}
		a := w.lit
		if a == "--" {
			i++
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		takes, ok := wrapperOption(spec, a)
		if !ok {
			return name + " " + a + " is not on the known-safe list"
		}
		if name == "command" && (a == "-v" || a == "-V") {
			return "" // prints what the name is; runs nothing
		}
		i++
		if takes {
			// One field, known: a glob or an unquoted expansion could
			// spread into the command.
			if i >= len(rest) || !readWord(rest[i]).static {
				return "the value of " + name + " " + a + " is not known before it runs"
			}
			i++
		}
	}
	if name == "env" {
		for i < len(rest) {
			w := readWord(rest[i])
			n, _, isAssign := strings.Cut(w.lit, "=")
			if !isAssign || !syntax.ValidName(n) {
				break
			}
			if !harmlessVariable(n) {
				return "env sets " + n + ", which changes what programs do"
			}
			i++
		}
	}
	if name == "timeout" {
		if i >= len(rest) || !readWord(rest[i]).static {
			return "timeout's duration is not known"
		}
		i++
	}
	if i >= len(rest) {
		return ""
	}
	return j.program(rest[i:], extra || name == "xargs")
}

// wrapperOption looks a up in spec: whether it is known and takes a
// value given as the next word (an attached value, "-n5" or
// "--signal=KILL", is part of a).
func wrapperOption(spec []string, a string) (takesNext, ok bool) {
	for _, s := range spec {
		opt, value := strings.CutSuffix(s, "=")
		switch {
		case a == opt:
			return value, true
		case value && strings.HasPrefix(opt, "--") && strings.HasPrefix(a, opt+"="):
			return false, true
		case value && !strings.HasPrefix(opt, "--") && len(opt) == 2 && strings.HasPrefix(a, opt):
			return false, true // -n5
		}
	}
	if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "0123456789") == "" {
		return false, slices.Contains(spec, "-n=") // nice -5
	}
	return false, false
}

// strictRedirect judges a redirection outside the sandbox: it may write
// nothing and reach no network (see KnownSafeUnsandboxed).
func strictRedirect(r *syntax.Redirect) string {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "" // its words were judged
	}
	if r.Word == nil {
		return "a redirection the classifier does not know"
	}
	t := readWord(r.Word)
	if !t.static {
		return "a redirection " + r.Op.String() + " to a file not known before it runs"
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		if t.lit == "-" || t.lit != "" && strings.Trim(t.lit, "0123456789") == "" {
			return ""
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob:
		switch t.lit {
		case "/dev/null", "/dev/stdout", "/dev/stderr":
			return ""
		}
		return "a redirection " + r.Op.String() + " " + t.lit + " (outside the sandbox a known-safe command writes no file)"
	case syntax.RdrIn:
		if t.lit != "" && !bashNetPath(t.lit) {
			return ""
		}
		return "a redirection from " + t.lit + " (a network connection)"
	}
	return "a redirection " + r.Op.String() + " (outside the sandbox a known-safe command writes no file)"
}

// bashNetPath reports whether bash may take a redirection's target p for
// a network connection (/dev/tcp/HOST/PORT, /dev/udp/…), judged loosely:
// any path that cleans to /dev/tcp or /dev/udp or below.
func bashNetPath(p string) bool {
	c := path.Clean(p)
	for _, n := range []string{"/dev/tcp", "/dev/udp"} {
		if c == n || strings.HasPrefix(c, n+"/") {
			return true
		}
	}
	return false
}
