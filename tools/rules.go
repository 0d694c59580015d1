package tools

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Rule is one permission rule, in Claude Code's syntax: TOOL or
// TOOL(SPECIFIER). TOOL is talaria's tool name or Claude Code's (Bash,
// Read, Edit, Write, WebFetch, mcp__SERVER__TOOL, mcp__SERVER for every
// tool of a server). The specifier depends on the tool:
//
//   - terminal (Bash): a command. "git diff:*" or "git diff *" matches
//     every command whose words begin with git diff; "ls" matches exactly
//     ls; "*" matches every command. A command line matches only when
//     each simple command in it (&&, ||, ;, |, subshells) does.
//   - read_file, search_files, write_file, patch (Read, Edit, Write): a
//     gitignore-style glob of paths from the project root ("src/**",
//     "./docs/*.md", "*.env"); "//abs/**" is absolute, "~/p" is below the
//     user's home.
//   - web_fetch (WebFetch): "domain:example.com" (that host) or
//     "domain:*.example.com" (its subdomains).
//
// Create one with ParseRule.
type Rule struct {
	// Text is the rule as written.
	Text string
	// tools are the talaria tool names it covers (a name may end in "*").
	tools []string
	kind  ruleKind
	// words and prefix: a command rule's words, matched as a prefix or
	// exactly.
	words  []string
	prefix bool
	// glob, base: a path rule's pattern and what it is relative to.
	glob ignoreRules
	base pathBase
	// absBase is the directory of an absolute pattern ("/").
	absBase string
	// domain, subdomains: a domain rule.
	domain     string
	subdomains bool
}

// ruleKind is what a rule's specifier matches.
type ruleKind int

const (
	ruleAny     ruleKind = iota // no specifier: every call of the tool
	ruleCommand                 // a command prefix or exact command
	rulePath                    // a path glob
	ruleDomain                  // a web_fetch domain
)

// pathBase is the directory a path rule's glob is relative to.
type pathBase int

const (
	baseProject pathBase = iota // the project root (the working directory)
	baseHome                    // the user's home directory (~/)
	baseAbs                     // the file system root (//)
)

// String returns the rule as written.
func (r Rule) String() string { return r.Text }

// Tools returns the talaria tool names the rule covers (a name ending in
// "*" covers every tool of an MCP server).
func (r Rule) Tools() []string { return append([]string(nil), r.tools...) }

// ParseRules parses each rule of list (see Rule); the error names the
// first malformed one and its index.
func ParseRules(list []string) ([]Rule, error) {
	out := make([]Rule, 0, len(list))
	for i, s := range list {
		r, err := ParseRule(s)
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", i, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// ParseRule parses one rule (see Rule). A malformed rule is an error
// naming it and saying what is wrong.
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	bad := func(msg string) (Rule, error) {
		return Rule{}, fmt.Errorf("%q: %s", s, msg)
	}
	if text == "" {
		return bad("an empty rule (write TOOL or TOOL(SPECIFIER), e.g. Bash(git diff:*))")
	}
	name, spec, hasSpec := text, "", false
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return bad("the specifier must end with ) (write TOOL(SPECIFIER))")
		}
		name, spec, hasSpec = strings.TrimSpace(text[:i]), text[i+1:len(text)-1], true
	} else if strings.ContainsAny(text, ")") {
		return bad("a ) without ( (write TOOL(SPECIFIER))")
	}
	if err := checkRuleToolName(name); err != nil {
		return bad(err.Error())
	}
	r := Rule{Text: text, tools: ruleTools(name)}
	if !hasSpec {
		return r, nil
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return bad("an empty specifier (leave out the parentheses to cover every call of the tool)")
	}
	var err error
	switch r.tools[0] {
	case "terminal":
		err = r.parseCommand(spec)
	case "read_file", "search_files", "write_file", "patch":
		err = r.parsePath(spec)
	case "web_fetch":
		err = r.parseDomain(spec)
	default:
		return bad(fmt.Sprintf("%s takes no specifier (only terminal/Bash, the file tools Read/Edit/Write and web_fetch/WebFetch do); write %s alone", name, name))
	}
	if err != nil {
		return bad(err.Error())
	}
	return r, nil
}

// checkRuleToolName accepts tool names of letters, digits, _ and -, and
// mcp__SERVER__* style names ending in "__*".
func checkRuleToolName(name string) error {
	if name == "" {
		return errors.New("no tool name before the specifier")
	}
	body := strings.TrimSuffix(name, "__*")
	if body == "" {
		return errors.New("no tool name before __*")
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%q is not a tool name (letters, digits, _ and -; mcp__SERVER__TOOL for an MCP tool)", name)
		}
	}
	return nil
}

// parseCommand reads a terminal specifier: "*", "WORDS:*", "WORDS *" or
// "WORDS", where WORDS are plain shell words (quotes allowed, no
// expansion, operator or redirection).
func (r *Rule) parseCommand(spec string) error {
	r.kind = ruleCommand
	if spec == "*" {
		r.kind = ruleAny
		return nil
	}
	body := spec
	switch {
	case strings.HasSuffix(spec, ":*"):
		body, r.prefix = strings.TrimSuffix(spec, ":*"), true
	case strings.HasSuffix(spec, " *"):
		body, r.prefix = strings.TrimSuffix(spec, " *"), true
	}
	words, err := plainWords(body)
	if err != nil {
		return fmt.Errorf("the command %q %v (only a trailing :* or \" *\" is a wildcard)", body, err)
	}
	r.words = words
	return nil
}

// plainWords parses s as one simple command of static words: the words a
// program would get.
func plainWords(s string) ([]string, error) {
	f, err := parseShell(s)
	if err != nil {
		return nil, fmt.Errorf("does not parse as a shell command: %v", err)
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("must be one command (a compound command matches when each of its parts matches a rule)")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, errors.New("must be plain words (no operator, redirection or assignment)")
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		rw := readWord(w)
		if !rw.static {
			return nil, errors.New("holds an expansion or a glob")
		}
		words = append(words, rw.lit)
	}
	return words, nil
}

// parsePath reads a path specifier: a gitignore-style glob.
func (r *Rule) parsePath(spec string) error {
	r.kind = rulePath
	p := spec
	switch {
	case strings.HasPrefix(p, "//"):
		r.base, r.absBase, p = baseAbs, "/", p[1:] // "/abs/…", anchored at /
	case strings.HasPrefix(p, "~/"):
		r.base, p = baseHome, p[1:]
	case strings.HasPrefix(p, "./"):
		p = p[1:] // anchored at the project root
	}
	if strings.HasPrefix(p, "!") {
		return errors.New("a negated glob (!) is not a rule: put the path in another list")
	}
	if strings.Contains(p, "\n") {
		return errors.New("a glob holds a line break")
	}
	if strings.Trim(p, "/") == "" {
		p = "/**" // the whole base
	}
	g := parseIgnore(p)
	if len(g) != 1 {
		return fmt.Errorf("%q is not a valid glob (syntax: * ? [abc] **, as in .gitignore)", spec)
	}
	r.glob = g
	return nil
}

// parseDomain reads "domain:HOST" or "domain:*.HOST".
func (r *Rule) parseDomain(spec string) error {
	r.kind = ruleDomain
	d, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return errors.New("a WebFetch specifier is domain:HOST (e.g. WebFetch(domain:example.com))")
	}
	d = strings.ToLower(strings.TrimSpace(d))
	if rest, ok := strings.CutPrefix(d, "*."); ok {
		r.subdomains, d = true, rest
	}
	if d == "" || strings.ContainsAny(d, "/:*@?# ") {
		return fmt.Errorf("%q is not a host name", d)
	}
	r.domain = strings.TrimSuffix(d, ".")
	return nil
}

// Rules are the permission rules in force: deny beats ask beats allow.
type Rules struct {
	// Allow lists calls that run without asking (in the ask and auto-edit
	// modes); never a write of a protected path, never in read-only.
	Allow []Rule
	// Ask lists calls that are always asked for (except under yolo), even
	// when an allow rule or the known-safe list covers them.
	Ask []Rule
	// Deny lists calls that never run, in every mode (also yolo).
	Deny []Rule
}

// ParsePermissions parses the three lists of a permissions: key; the error
// names the list and the rule.
func ParsePermissions(allow, ask, deny []string) (Rules, error) {
	var rs Rules
	var err error
	for _, l := range []struct {
		name string
		in   []string
		out  *[]Rule
	}{{"allow", allow, &rs.Allow}, {"ask", ask, &rs.Ask}, {"deny", deny, &rs.Deny}} {
		if *l.out, err = ParseRules(l.in); err != nil {
			return Rules{}, fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return rs, nil
}

// Empty reports whether there is no rule at all.
func (rs Rules) Empty() bool { return len(rs.Allow)+len(rs.Ask)+len(rs.Deny) == 0 }
