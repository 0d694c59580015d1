package ui

import (
	"strings"
)

// command is one slash command.
type command struct {
	name string // without the slash
	args string // argument synopsis, "" when it takes none
	desc string
}

// commandList returns the slash commands in the order /help and the
// completion popup list them.
func commandList() []command {
	return []command{
		{"help", "", "show keys and commands"},
		{"stop", "", "interrupt the running turn"},
		{"steer", "TEXT", "inject TEXT into the running turn"},
		{"queue", "TEXT", "run TEXT as the next turn"},
		{"new", "", "start a new session"},
		{"resume", "[ID]", "continue a session (no ID: pick one)"},
		{"sessions", "", "pick a session to resume"},
		{"rename", "TITLE", "rename this session (shown in /sessions; -r TITLE resumes it)"},
		{"fork", "[TITLE]", "continue in a copy of this session (history and checkpoints); the original stays"},
		{"model", "[[PROVIDER/]NAME]", "switch the model (no name: pick from the provider's list)"},
		{"compress", "", "compress the context now"},
		{"rewind", "[TURN]", "take back turns: code, conversation or both (esc esc)"},
		{"undo", "", "rewind code and conversation to before the last turn"},
		{"diff", "", "show the session's changes to the working tree"},
		{"usage", "", "show token usage"},
		{"timeline", "[TURN]", "show where a turn's time went"},
		{"cancel", "[ID]", "stop one running tool call; the batch goes on"},
		{"status", "", "show the session, model, context and settings"},
		{"init", "", "write a starter AGENTS.md for this project (a model turn)"},
		{"skills", "", "list the skills, each with its SKILL.md"},
		{"agents", "", "list the subagents delegate_task can run"},
		{"theme", "[NAME]", "switch the colour theme"},
		{"approvals", "[MODE]", "ask, auto-edit, read-only or yolo"},
		{"copy", "[N]", "copy the last (or N-th last) answer to the clipboard"},
		{"quit", "", "leave talaria"},
	}
}

// parseCommand splits "/name args" when name is a known command. Text like
// "/usr/bin is missing" is a message, not a command.
func parseCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if cmd, ok := strings.CutPrefix(t, "!"); ok && strings.TrimSpace(cmd) != "" {
		return "!", strings.TrimSpace(cmd), true // !cmd: a shell command
	}
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	head, rest, _ := strings.Cut(t[1:], " ")
	head = strings.ToLower(head)
	if to, ok := commandAliases()[head]; ok {
		head = to
	}
	for _, c := range commandList() {
		if c.name == head {
			return head, strings.TrimSpace(rest), true
		}
	}
	if head != "" && !strings.ContainsAny(head, "/.") && !strings.Contains(rest, "\n") {
		return head, rest, true // unknown command: answered with a notice
	}
	return "", "", false
}
