package tools

import (
	"sort"
	"strings"
)

// claudeToolAliases maps Claude Code's tool names to talaria's: the one
// table for permission rules, and for subagent tool lists and hook
// matchers (loop/ext may call ToolName). A rule's Edit covers write_file
// too (see ruleTools); elsewhere Edit is patch.
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
// as is (trimmed).
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

// ClaudeToolNames returns the Claude Code names that mean talaria's tool,
// sorted (for matching a pattern written against Claude Code's names).
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
	sort.Strings(out)
	return out
}

// ruleTools returns the talaria tools a rule's tool name covers: Edit
// (and MultiEdit) are every file-editing tool, write_file and patch; Read
// is read_file and search_files (a search reads the files it searches);
// any other name is ToolName's.
func ruleTools(name string) []string {
	switch name {
	case "Edit", "MultiEdit":
		return []string{"write_file", "patch"}
	case "Read":
		return []string{"read_file", "search_files"}
	}
	return []string{ToolName(name)}
}

// toolNameMatches reports whether pattern (a talaria name, possibly
// ending in "*" for every tool of an MCP server) names tool.
func toolNameMatches(pattern, tool string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(tool, p)
	}
	return pattern == tool
}
