package tools

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ruleCall is what the rules see of one call: the tool, and what its
// specifiers are matched against.
type ruleCall struct {
	tool string
	// cmd is the parsed command of terminal (nil for other tools).
	cmd *cmdView
	// paths are the absolute paths the call reads or writes, as the tool
	// resolves them and (resolved) with symlinks of their existing prefix
	// resolved; pathsKnown is false when the call's paths could not be
	// determined.
	paths, resolved []string
	pathsKnown      bool
	// root is the project root path rules are relative to; home is the
	// user's home directory ("" when unknown).
	root, home string
	// rawURL is web_fetch's url argument.
	rawURL string
}

// matchSide says which way an uncertain match falls: an allow rule
// matches only what it surely covers; deny and ask rules also match what
// they may cover (a command the parser cannot fully read, a path that is
// not known, a URL that does not parse).
type matchSide int

const (
	sideAllow matchSide = iota
	sideDeny
)

// matches reports whether r covers the call c, judged on side.
func (r *Rule) matches(c *ruleCall, side matchSide) bool {
	covered := false
	for _, t := range r.tools {
		if toolNameMatches(t, c.tool) {
			covered = true
			break
		}
	}
	if !covered {
		return false
	}
	switch r.kind {
	case ruleAny:
		return true
	case ruleCommand:
		if c.cmd == nil {
			return false // a tool without a command (process) is not a command rule's
		}
		if side == sideAllow {
			return c.cmd.allMatch(r.words, r.prefix)
		}
		return c.cmd.mayMatch(r.words, r.prefix, 0)
	case rulePath:
		return r.matchPaths(c, side)
	case ruleDomain:
		return r.matchDomain(c, side)
	}
	return false
}

// matchPaths: allow needs every path, in both its forms, inside the glob;
// deny needs any form of any path (or paths not known).
func (r *Rule) matchPaths(c *ruleCall, side matchSide) bool {
	if !c.pathsKnown || len(c.paths) == 0 {
		return side == sideDeny
	}
	base := c.root
	switch r.base {
	case baseHome:
		base = c.home
	case baseAbs:
		base = r.absBase
	}
	if base == "" {
		return side == sideDeny
	}
	baseR := resolveExistingPrefix(base)
	for i, p := range c.paths {
		in := r.globCovers(base, p)
		inR := i < len(c.resolved) && r.globCovers(baseR, c.resolved[i])
		if side == sideDeny && (in || inR) {
			return true
		}
		if side == sideAllow && !(in && inR) {
			return false
		}
	}
	return side == sideAllow
}

// globCovers reports whether the absolute path p lies below base and the
// glob matches it or one of its parent directories (as ignoring a
// directory in .gitignore covers what it holds).
func (r *Rule) globCovers(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	segs := strings.Split(rel, "/")
	for i := 1; i <= len(segs); i++ {
		if decided, in := r.glob.match(strings.Join(segs[:i], "/"), i < len(segs)); decided && in {
			return true
		}
	}
	return false
}

// matchDomain matches web_fetch's URL host.
func (r *Rule) matchDomain(c *ruleCall, side matchSide) bool {
	u, err := url.Parse(strings.TrimSpace(c.rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return side == sideDeny
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if r.subdomains {
		return strings.HasSuffix(host, "."+r.domain)
	}
	return host == r.domain
}

// cmdView is a terminal command line as the rules read it.
type cmdView struct {
	// unreadable: the line does not parse.
	unreadable bool
	// plain: every statement is a simple command of static words, without
	// assignments, joined by && || ; | & or grouped in ( ) and { }, with
	// no redirection but duplications (2>&1), writes to /dev/null and
	// reads of a named file; only then can an allow rule match.
	plain bool
	// parts are the simple commands anywhere in the line, also inside
	// substitutions, conditions, loops and functions.
	parts []cmdPart
}

// cmdPart is one simple command: its words, and for each whether it is
// known only when it runs (an expansion, a glob).
type cmdPart struct {
	words   []string
	dynamic []bool
}

// maxRuleDepth bounds how deep bash -c 'bash -c …' nesting is read.
const maxRuleDepth = 4

// viewCommand parses cmd for the rules.
func viewCommand(cmd string) *cmdView {
	v := &cmdView{}
	if strings.HasPrefix(cmd, "-") || strings.HasPrefix(cmd, "+") {
		v.unreadable = true // bash -c would take it for its options
		return v
	}
	f, err := parseShell(cmd)
	if err != nil || len(f.Stmts) == 0 {
		v.unreadable = true
		return v
	}
	v.plain = plainStmts(f.Stmts)
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		var p cmdPart
		for _, w := range c.Args {
			rw := readWord(w)
			p.words, p.dynamic = append(p.words, rw.lit), append(p.dynamic, !rw.static)
		}
		v.parts = append(v.parts, p)
		return true
	})
	return v
}

// plainStmts reports whether every statement is plain (see cmdView).
func plainStmts(ss []*syntax.Stmt) bool {
	for _, s := range ss {
		if !plainStmt(s) {
			return false
		}
	}
	return true
}

func plainStmt(s *syntax.Stmt) bool {
	if s == nil || s.Coprocess || s.Cmd == nil {
		return false
	}
	for _, r := range s.Redirs {
		if !plainRedirect(r) {
			return false
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		for _, w := range c.Args {
			if !readWord(w).static {
				return false
			}
		}
		return true
	case *syntax.BinaryCmd:
		return plainStmt(c.X) && plainStmt(c.Y)
	case *syntax.Subshell:
		return plainStmts(c.Stmts)
	case *syntax.Block:
		return plainStmts(c.Stmts)
	}
	return false
}

// plainRedirect accepts the redirections that write nothing and run
// nothing: n>&m, n<&m, n>&- , writes to /dev/null, and reads of a static
// path that is not one of bash's network paths (/dev/tcp, /dev/udp).
func plainRedirect(r *syntax.Redirect) bool {
	if r.N != nil && strings.Trim(r.N.Value, "0123456789") != "" {
		return false
	}
	if r.Word == nil {
		return false
	}
	t := readWord(r.Word)
	if !t.static {
		return false
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		return t.lit == "-" || t.lit != "" && strings.Trim(t.lit, "0123456789") == ""
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return t.lit == "/dev/null"
	case syntax.RdrIn:
		return t.lit != "" && !bashNetPath(t.lit)
	}
	return false
}

// allMatch reports whether every part of a plain line is covered by the
// rule words (as a prefix, or exactly).
func (v *cmdView) allMatch(words []string, prefix bool) bool {
	if v.unreadable || !v.plain || len(v.parts) == 0 {
		return false
	}
	for _, p := range v.parts {
		if !wordsMatch(p.words, words, prefix) {
			return false
		}
	}
	return true
}

// wordsMatch reports whether the static words got begin with (prefix) or
// equal want.
func wordsMatch(got, want []string, prefix bool) bool {
	if len(got) < len(want) || !prefix && len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if got[i] != w {
			return false
		}
	}
	return true
}

// denyWrappers are programs that run another command given among their
// words: a deny or ask rule is also tried at every later word of theirs.
var denyWrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "nice": true, "ionice": true, "nohup": true, "setsid": true,
	"timeout": true, "stdbuf": true, "xargs": true, "time": true, "command": true, "builtin": true,
	"exec": true, "taskset": true, "chrt": true, "unbuffer": true, "watch": true, "strace": true,
	"ltrace": true, "flock": true, "chroot": true, "su": true, "runuser": true, "nsenter": true,
	"unshare": true, "firejail": true, "busybox": true, "script": true,
}

// denyShells run their -c argument as a command line.
var denyShells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

// mayMatch reports whether the rule words may cover some part of the line:
// a line that does not parse, a part whose command name or a word within
// the rule's reach is known only when it runs, a part that runs a matching
// command through a wrapper (sudo, env, xargs, timeout, …) or a shell's -c
// or eval: the safe side for deny and ask rules.
func (v *cmdView) mayMatch(words []string, prefix bool, depth int) bool {
	if v.unreadable || depth > maxRuleDepth {
		return true
	}
	for _, p := range v.parts {
		if partMayMatch(p, words, prefix, depth) {
			return true
		}
	}
	return false
}

func partMayMatch(p cmdPart, words []string, prefix bool, depth int) bool {
	wrapped := false // a wrapper stands before: any later word may start the command it runs
	for k := 0; k < len(p.words); k++ {
		if looseMatch(p.words[k:], p.dynamic[k:], words, prefix) {
			return true
		}
		if p.dynamic[k] {
			return true // a command name, or a wrapper's word, known only when it runs may be anything
		}
		name := path.Base(p.words[k])
		if denyShells[name] || name == "eval" {
			inner, ok := shellInner(p, k)
			if !ok || inner != "" && viewCommand(inner).mayMatch(words, prefix, depth+1) {
				return true // its script is not known before it runs, or matches
			}
		}
		if denyWrappers[name] {
			wrapped = true
		}
		if !wrapped {
			return false
		}
	}
	return false
}

// shellInner returns the command line a shell's -c (or eval) runs, from
// the part's words starting at k; ok is false when it is not static. A
// shell without -c (it runs a script file or reads stdin) has no line:
// "" and ok (a script, like any program, is not judged by its content).
func shellInner(p cmdPart, k int) (string, bool) {
	rest, dyn := p.words[k+1:], p.dynamic[k+1:]
	if path.Base(p.words[k]) == "eval" {
		for _, d := range dyn {
			if d {
				return "", false
			}
		}
		return strings.Join(rest, " "), true
	}
	for i, w := range rest {
		if dyn[i] {
			return "", false
		}
		if !strings.HasPrefix(w, "-") || w == "--" {
			return "", true
		}
		if strings.HasPrefix(w, "--") {
			continue
		}
		if strings.ContainsRune(w, 'c') {
			if i+1 >= len(rest) || dyn[i+1] {
				return "", i+1 >= len(rest)
			}
			return rest[i+1], true
		}
	}
	return "", true
}

// looseMatch compares the rule words with a part's words where a dynamic
// word may be anything (also several words, or none): the first one
// within the rule's reach makes it a match. The command name is also
// compared by its base name (/bin/rm is rm).
func looseMatch(got []string, dyn []bool, want []string, prefix bool) bool {
	for i, w := range want {
		if i >= len(got) {
			return false
		}
		if dyn[i] {
			return true
		}
		if got[i] != w && !(i == 0 && path.Base(got[i]) == w) {
			return false
		}
	}
	if len(got) == len(want) || prefix {
		return true
	}
	return dyn[len(want)] && len(got) == len(want)+1 // a trailing expansion may be empty
}
