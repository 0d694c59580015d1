package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
)

// rememberKeys are the letters of the "don't ask again" scopes.
var rememberKeys = map[string]string{tools.RememberCommand: "a", tools.RememberPrefix: "p", tools.RememberTool: "t"}

// rememberOptions are the approval dialog's "don't ask again" answers, one
// per scope the approver offers for the call (this exact command, its
// prefix, the whole tool), narrowest first. Each holds for the session;
// with the save toggle on (s) its rule is also saved to the project's
// .talaria/config.yaml.
func rememberOptions(req tools.ApprovalRequest) []dialogOption {
	out := make([]dialogOption, 0, len(req.Remember))
	for _, r := range req.Remember {
		key := rememberKeys[r.Scope]
		if len(req.Remember) == 1 {
			key = "a" // the one session answer keeps its letter
		}
		out = append(out, dialogOption{label: "Yes, don't ask again: " + sanitize(r.Label), key: key, act: actRemember, text: r.Scope, rule: r.Rule})
	}
	return out
}

// canSave reports whether the request offers a rule that can be saved.
func canSave(opts []dialogOption) bool {
	for _, o := range opts {
		if o.act == actRemember && o.rule != "" {
			return true
		}
	}
	return false
}

// rememberLabel is an option's label as drawn: with saving on, the rule
// it saves, or why it holds for the session only.
func (d *modalState) rememberLabel(o dialogOption) string {
	if o.act != actRemember || !d.save {
		return o.label
	}
	if o.rule == "" {
		return o.label + " (this session only: not one plain command)"
	}
	return o.label + " → saves " + sanitize(o.rule)
}

// saveLine is the toggle under the options: whether a "don't ask again"
// answer is also saved to the project's rules.
func (d *modalState) saveLine(env *boxEnv, opts []dialogOption, w int) []string {
	if !canSave(opts) {
		return nil
	}
	box := "[ ]"
	if d.save {
		box = "[x]"
	}
	return []string{env.st.Muted.Render(ansi.Truncate("  "+box+" s: also save to .talaria/config.yaml (permissions.allow)", w, "…"))}
}

// rememberedNote is the transcript's note of what a "don't ask again"
// answer covers from now on.
func rememberedNote(o dialogOption, saved bool) string {
	what := strings.TrimPrefix(o.label, "Yes, don't ask again: ")
	text := "approvals: not asking again this session for " + what
	if saved {
		text += " · saved " + sanitize(o.rule) + " to the project's .talaria/config.yaml (later sessions apply it when the folder is trusted)"
	}
	return text
}
