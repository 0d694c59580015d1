package ext

import "strings"

// claudeToolAliases maps Claude Code's tool names to talaria's. The one
// table for subagent tool lists, hook matchers and permission rules.
var claudeToolAliases = map[string]string{
	"Bash":      "terminal",
	"Write":     "write_file",
	"Edit":      "patch",
	"MultiEdit": "patch",
	"Read":      "read_file",
	"Grep":      "search_files",
	"Glob":      "search_files",
	"Task":      "delegate_task",
	"Agent":     "delegate_task",
	"WebFetch":  "web_fetch",
	"TodoWrite": "todo",
}

// ToolName returns talaria's name for a tool written in talaria's or
// Claude Code's spelling: "Bash" is "terminal", "mcp__S__T" is "S__T",
// "mcp__S" (every tool of server S) is "S__*"; any other name is returned
// as is.
func ToolName(name string) string {
	name = strings.TrimSpace(name)
	if t, ok := claudeToolAliases[name]; ok {
		return t
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok && rest != "" {
		if strings.Contains(rest, "__") {
			return rest
		}
		return rest + "__*"
	}
	return name
}

// ClaudeToolNames returns the Claude Code names that mean talaria's tool
// (for matching a regex written against Claude Code's names).
func ClaudeToolNames(tool string) []string {
	var out []string
	for cc, t := range claudeToolAliases {
		if t == tool {
			out = append(out, cc)
		}
	}
	if strings.Contains(tool, "__") {
		out = append(out, "mcp__"+tool)
	}
	sortStrings(out)
	return out
}

// toolMatches reports whether pattern (a canonical name, possibly ending
// in "*") names tool.
func toolMatches(pattern, tool string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(tool, p)
	}
	return pattern == tool
}
