package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The "don't ask again" scopes of RememberOption.
const (
	// RememberCommand covers this exact command (terminal).
	RememberCommand = "command"
	// RememberPrefix covers commands beginning with this one's first
	// words, up to the first argument that looks like a path or a value
	// (terminal).
	RememberPrefix = "prefix"
	// RememberTool covers the whole tool (for write_file and patch: their
	// edits inside the project).
	RememberTool = "tool"
)

// RememberOption is one "don't ask again" choice the approval dialog may
// offer for a request.
type RememberOption struct {
	// Scope is RememberCommand, RememberPrefix or RememberTool.
	Scope string
	// Rule is the allow rule the choice adds, as it would be saved to the
	// project's .talaria/config.yaml; "" when it cannot be written as one
	// (a compound command: remembered for the session only, exactly).
	Rule string
	// Label says in a few words what it covers, for the dialog.
	Label string
}

// rememberOptions lists what a request may be remembered as, narrowest
// first; none for a request with NoSessionScope.
func rememberOptions(v verdict) []RememberOption {
	if v.req.NoSessionScope {
		return nil
	}
	switch {
	case v.cmd != "":
		cmd := v.cmd
		var out []RememberOption
		words, single := singlePlainCommand(cmd)
		exact := RememberOption{Scope: RememberCommand, Label: "this exact command"}
		if single {
			exact.Rule = commandRule(words, false)
		}
		out = append(out, exact)
		if single {
			if pre := commandPrefix(words); len(pre) > 0 {
				r := commandRule(pre, true)
				out = append(out, RememberOption{Scope: RememberPrefix, Rule: r, Label: "commands starting with " + strings.Join(pre, " ")})
			}
		}
		return append(out, RememberOption{Scope: RememberTool, Rule: v.req.Tool, Label: "every command"})
	case v.edits:
		return []RememberOption{{Scope: RememberTool, Rule: v.req.Tool + "(/**)", Label: v.req.Tool + " edits inside the project"}}
	}
	if !validRuleToolName(v.req.Tool) {
		return nil
	}
	return []RememberOption{{Scope: RememberTool, Rule: v.req.Tool, Label: "every " + v.req.Tool + " call"}}
}

// validRuleToolName reports whether name can stand as a rule.
func validRuleToolName(name string) bool { return checkRuleToolName(name) == nil }

// singlePlainCommand returns the words of cmd when it is one plain simple
// command (see cmdView).
func singlePlainCommand(cmd string) ([]string, bool) {
	v := viewCommand(cmd)
	if v.unreadable || !v.plain || len(v.parts) != 1 {
		return nil, false
	}
	return v.parts[0].words, true
}

// subcommandWord is a word that names a subcommand rather than a path or
// a value: lower-case letters, digits and - or _, starting with a letter.
var subcommandWord = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// commandPrefix returns the first words of a command up to the first
// argument that looks like a path or a value (an option, a number, a
// path, anything with = . / ~ or upper case), at most 3 words.
func commandPrefix(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	out := []string{words[0]}
	for _, w := range words[1:] {
		if len(out) == 3 || !subcommandWord.MatchString(w) {
			break
		}
		out = append(out, w)
	}
	return out
}

// commandRule writes the terminal rule for words; "" when a word cannot
// be quoted.
func commandRule(words []string, prefix bool) string {
	q := make([]string, len(words))
	for i, w := range words {
		s, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return ""
		}
		q[i] = s
	}
	spec := strings.Join(q, " ")
	if prefix {
		spec += ":*"
	}
	r := "Bash(" + spec + ")"
	if _, err := ParseRule(r); err != nil {
		return ""
	}
	return r
}

// Remember records the user's "don't ask again" choice for req (one of
// req.Remember's scopes) for the rest of the session and, with save, in
// the project's rules through SaveRule. It returns the rule added ("" for
// an exact compound command, kept for the session only). A request with
// NoSessionScope cannot be remembered.
func (a *Approver) Remember(req ApprovalRequest, scope string, save bool) (string, error) {
	if req.NoSessionScope {
		return "", fmt.Errorf("this call cannot be remembered (destructive, protected, or outside the working directory)")
	}
	var opt *RememberOption
	for i := range req.Remember {
		if req.Remember[i].Scope == scope {
			opt = &req.Remember[i]
		}
	}
	if opt == nil {
		return "", fmt.Errorf("%q is not a scope offered for this call", scope)
	}
	if opt.Rule == "" {
		if save {
			return "", fmt.Errorf("this command cannot be saved as a rule (it is not one plain command); it is remembered for this session only")
		}
		v := a.classify(req.Tool, req.Args)
		a.mu.Lock()
		a.allowed[v.key] = true
		a.mu.Unlock()
		return "", nil
	}
	r, err := ParseRule(opt.Rule)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	a.sessionRules = append(a.sessionRules, r)
	a.mu.Unlock()
	if save {
		if a.SaveRule == nil {
			return r.Text, fmt.Errorf("no project config to save %s to; it holds for this session", r.Text)
		}
		if err := a.SaveRule(r.Text); err != nil {
			return r.Text, fmt.Errorf("saving %s: %w (it holds for this session)", r.Text, err)
		}
	}
	return r.Text, nil
}

// hasRules reports whether any rule is in force.
func (a *Approver) hasRules() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.Rules.Empty() || len(a.sessionRules) > 0
}

// matchRule returns the first rule of list that covers c on side.
func matchRule(list []Rule, c *ruleCall, side matchSide) (Rule, bool) {
	for i := range list {
		if list[i].matches(c, side) {
			return list[i], true
		}
	}
	return Rule{}, false
}

// allowRule returns the configured or session allow rule covering c.
func (a *Approver) allowRule(c *ruleCall) (Rule, bool) {
	if r, ok := matchRule(a.rules().Allow, c, sideAllow); ok {
		return r, true
	}
	a.mu.Lock()
	session := a.sessionRules
	a.mu.Unlock()
	return matchRule(session, c, sideAllow)
}

// ruleCallFor builds what the rules see of a call (nil without rules),
// from its tool's traits: the parsed shell command of a command call, the
// paths of a path-scoped tool as the tool resolves them, the URL of a
// fetch.
func (a *Approver) ruleCallFor(toolName, args string) *ruleCall {
	if !a.hasRules() {
		return nil
	}
	c := &ruleCall{tool: toolName}
	c.root = a.Root
	if c.root == "" {
		c.root = a.Cwd
	}
	if c.root == "" {
		c.root, _ = os.Getwd()
	}
	c.home, _ = os.UserHomeDir()
	raw := json.RawMessage(args)
	tr, _ := a.traits(toolName)
	var view CallView
	if tr.Describe != nil {
		view, _ = tr.Describe(raw) // Check refused a call it cannot read
	}
	var given []string
	switch {
	case view.Command != "":
		c.cmd = viewCommand(view.Command)
		return c
	case view.URL != "":
		c.rawURL = view.URL
		return c
	case tr.Paths != nil:
		given, _ = tr.Paths(raw)
	default:
		return c
	}
	c.pathsKnown = len(given) > 0
	cwd := a.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	for _, p := range given {
		abs, err := ResolvePath(cwd, p) // as the tool resolves it
		if err != nil {
			c.pathsKnown = false
			continue
		}
		c.paths = append(c.paths, abs)
		c.resolved = append(c.resolved, resolveExistingPrefix(abs))
	}
	return c
}
