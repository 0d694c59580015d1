package ext

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Agent is a subagent: agents/NAME.md whose body is the child's system
// prompt.
type Agent struct {
	// Name is what delegate_task's agent argument names.
	Name string `json:"name"`
	// Description says when to delegate to it.
	Description string `json:"description"`
	// Tools are the tools it may use, in talaria's names (aliases
	// resolved; "S__*" for a whole MCP server); nil when the file lists
	// none (then: all the parent's but delegate_task).
	Tools []string `json:"tools,omitempty"`
	// DisallowedTools are removed from what it gets (Claude Code's
	// disallowedTools).
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	// Model is a model id sent as is; empty: the parent's.
	Model string `json:"model,omitempty"`
	// Prompt is the body: the child's system prompt.
	Prompt string `json:"-"`
	// Source is the file.
	Source Source `json:"source"`
}

var agentNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func (s *Set) loadAgents(dir string, src Source) {
	s.walkMarkdown(dir, 0, "", func(path, name string) bool {
		if len(s.Agents) >= MaxPerKind {
			s.note(path, 0, fmt.Sprintf("more than %d agents; the rest are skipped", MaxPerKind))
			return false
		}
		a := &Agent{Source: src}
		a.Source.Path = path
		if err := a.parse(path, strings.TrimSuffix(name, ".md"), s.read); err != nil {
			s.noteErr(path, err)
			return true
		}
		s.Agents[a.Name] = a
		return true
	})
}

// parse reads an agent file. Claude Code's other keys (permissionMode,
// maxTurns, skills, mcpServers, hooks, memory, ...) are tolerated and
// ignored.
func (a *Agent) parse(path, stem string, read func(string) ([]byte, error)) error {
	data, err := read(path)
	if err != nil {
		return err
	}
	header, first, body, err := splitFrontMatter(data)
	if err != nil {
		return err
	}
	if header == nil {
		return &fileError{line: 1, msg: "an agent file needs front matter with name and description"}
	}
	fm, err := parseFrontMatter(header, first)
	if err != nil {
		return err
	}
	if a.Name, err = fm.str("name"); err != nil {
		return err
	}
	if a.Name == "" {
		a.Name = stem
	}
	if !agentNameRE.MatchString(a.Name) {
		return &fileError{line: fm.line("name", first), msg: fmt.Sprintf("%q is not an agent name (lowercase letters, digits, - and _, at most 64)", a.Name)}
	}
	if a.Description, err = fm.str("description"); err != nil {
		return err
	}
	if a.Description = strings.TrimSpace(a.Description); a.Description == "" {
		return &fileError{line: first, msg: "description is required (when to delegate to this agent)"}
	}
	tools, set, err := fm.list("tools", ",")
	if err != nil {
		return err
	}
	if set {
		a.Tools = canonicalTools(tools)
		if a.Tools == nil {
			a.Tools = []string{} // listed as empty: no tools
		}
	}
	deny, _, err := fm.list("disallowedTools", ",")
	if err != nil {
		return err
	}
	a.DisallowedTools = canonicalTools(deny)
	if a.Model, err = fm.str("model"); err != nil {
		return err
	}
	if strings.EqualFold(a.Model, "inherit") {
		a.Model = ""
	}
	a.Prompt = strings.TrimSpace(string(body))
	return nil
}

func canonicalTools(names []string) []string {
	var out []string
	for _, n := range names {
		if c := ToolName(n); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// AllowedTools returns the tools the child gets out of the parent's:
// those the agent lists (all the parent's but delegate_task when it lists
// none), less its disallowed tools — never one the parent lacks. Sorted.
func (a *Agent) AllowedTools(parent []string) []string {
	var out []string
	for _, t := range parent {
		ok := false
		if a.Tools == nil {
			ok = t != "delegate_task"
		} else {
			for _, p := range a.Tools {
				ok = ok || toolMatches(p, t)
			}
		}
		for _, d := range a.DisallowedTools {
			ok = ok && !toolMatches(d, t)
		}
		if ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// AgentsDescription renders the agents for delegate_task's description:
// one "- name: description" line each, sorted. Empty when there are none.
func (s *Set) AgentsDescription() string {
	if s == nil || len(s.Agents) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range s.AgentNames() {
		fmt.Fprintf(&b, "- %s: %s\n", name, oneLine(s.Agents[name].Description))
	}
	return b.String()
}
