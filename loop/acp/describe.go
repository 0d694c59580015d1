package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// described is how a tool call is shown: title, kind, the files it
// touches, its arguments as JSON.
type described struct {
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
	raw       any
}

// callArgs are the argument fields the titles and locations use.
type callArgs struct {
	Path    string `json:"path"`
	Command string `json:"command"`
	Pattern string `json:"pattern"`
	Query   string `json:"query"`
	Offset  any    `json:"offset"`
	Goal    string `json:"goal"`
}

// describe names a call by its tool: read → read, edits → edit, commands
// → execute, searches → search, todo and delegation → think, the rest
// (clarify, MCP tools) → other.
func describe(name, args, cwd string) described {
	var a callArgs
	var raw any
	if json.Unmarshal([]byte(args), &raw) == nil {
		_ = json.Unmarshal([]byte(args), &a)
	}
	d := described{title: name, kind: sdk.ToolKindOther, raw: raw}
	loc := func() {
		if a.Path == "" {
			return
		}
		l := sdk.ToolCallLocation{Path: absPath(a.Path, cwd)}
		if n, ok := a.Offset.(float64); ok && n >= 1 {
			line := int(n)
			l.Line = &line
		}
		d.locations = []sdk.ToolCallLocation{l}
	}
	switch name {
	case "read_file":
		d.kind, d.title = sdk.ToolKindRead, "Read "+a.Path
		loc()
	case "write_file":
		d.kind, d.title = sdk.ToolKindEdit, "Write "+a.Path
		loc()
	case "patch":
		d.kind, d.title = sdk.ToolKindEdit, "Edit "+a.Path
		loc()
	case "terminal", "execute_code":
		d.kind, d.title = sdk.ToolKindExecute, "Run: "+oneLine(a.Command, 120)
		if a.Command == "" {
			d.title = "Run code"
		}
	case "process":
		d.kind, d.title = sdk.ToolKindExecute, "Background process"
	case "search_files":
		d.kind, d.title = sdk.ToolKindSearch, "Search "+oneLine(a.Pattern, 80)
		loc()
	case "session_search":
		d.kind, d.title = sdk.ToolKindSearch, "Search past sessions: "+oneLine(a.Query, 80)
	case "todo":
		d.kind, d.title = sdk.ToolKindThink, "Update the plan"
	case "delegate_task":
		d.kind, d.title = sdk.ToolKindThink, "Delegate: "+oneLine(a.Goal, 80)
	case "clarify":
		d.title = "Ask a question"
	}
	d.title = strings.TrimSpace(d.title)
	if d.title == "" {
		d.title = name
	}
	return d
}

func absPath(p, cwd string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// fileDiff is one file's change as ACP diff content.
type fileDiff struct {
	path             string
	oldText, newText string
}

// parseDiff reads a unified diff (tool.completed's diff of write_file and
// patch) as ACP diffs: one per hunk, old text the hunk's context and
// removed lines, new text its context and added lines. A new file has
// an empty old text.
func parseDiff(diff, cwd string) []fileDiff {
	if diff == "" {
		return nil
	}
	var out []fileDiff
	var path string
	var cur *fileDiff
	var oldB, newB strings.Builder
	flush := func() {
		if cur != nil {
			cur.oldText, cur.newText = oldB.String(), newB.String()
			out = append(out, *cur)
			cur = nil
		}
		oldB.Reset()
		newB.Reset()
	}
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "--- "):
			flush()
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimSpace(strings.TrimPrefix(line, "+++ "))
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			p = strings.TrimPrefix(p, "b/")
			path = absPath(p, cwd)
		case strings.HasPrefix(line, "@@"):
			flush()
			cur = &fileDiff{path: path}
		case cur == nil:
		case strings.HasPrefix(line, "+"):
			newB.WriteString(line[1:])
		case strings.HasPrefix(line, "-"):
			oldB.WriteString(line[1:])
		case strings.HasPrefix(line, " "):
			oldB.WriteString(line[1:])
			newB.WriteString(line[1:])
		case line == "\n":
			oldB.WriteString("\n")
			newB.WriteString("\n")
		}
	}
	flush()
	return out
}
