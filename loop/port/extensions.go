package port

// CustomCommand is a user's slash command from a commands/ folder, or a
// skill run as one (CONTRACT.md, "Extending talaria").
type CustomCommand struct {
	// Name is what follows the slash ("review", "git:commit").
	Name string
	// ArgumentHint is the front matter's argument-hint, "" when none.
	ArgumentHint string
	// Description is shown in /help and in completion.
	Description string
	// Path is the file it came from.
	Path string
	// Skill marks a skill run as a command.
	Skill bool
}

// ExtensionItem is one skill or subagent that /skills or /agents lists.
type ExtensionItem struct {
	Name        string
	Description string
	// Path is the file it came from (SKILL.md, agents/NAME.md).
	Path string
}

// TrustRequest is what a project's own settings would add once the user
// trusts its folder (CONTRACT.md, "Project settings and trust"): the
// screen asks once, at start, when there is anything.
type TrustRequest struct {
	// Root is the project's folder (its git root).
	Root string
	// Hooks are the hook commands it would run.
	Hooks []TrustHook
	// Rules are the permission rules it would add.
	Rules []TrustRule
}

// TrustHook is one hook of a project's settings.
type TrustHook struct {
	Event, Matcher, Command string
	// Path is the settings file it came from.
	Path string
}

// TrustRule is one permission rule of a project's settings.
type TrustRule struct {
	// List is allow or ask.
	List, Rule string
	// Path is the settings file it came from.
	Path string
}

// Empty reports a request that would add nothing (nil included).
func (r *TrustRequest) Empty() bool { return r == nil || len(r.Hooks)+len(r.Rules) == 0 }
