package ext

import (
	"strings"

	"talaria/tools"
)

// ToolName returns talaria's name for a tool written in talaria's or
// Claude Code's spelling ("Bash" is "terminal", "mcp__S__T" is "S__T",
// "mcp__S" is "S__*"): tools.ToolName, the one alias table that subagent
// tool lists, hook matchers and permission rules share.
func ToolName(name string) string { return tools.ToolName(name) }

// ClaudeToolNames returns the Claude Code names that mean talaria's tool,
// sorted: tools.ClaudeToolNames.
func ClaudeToolNames(tool string) []string { return tools.ClaudeToolNames(tool) }

// toolMatches reports whether pattern (a canonical name, possibly ending
// in "*") names tool.
func toolMatches(pattern, tool string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(tool, p)
	}
	return pattern == tool
}
