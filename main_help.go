package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"talaria/ui"
)

// providersSection is the title of --help's section on configuring a
// provider, which the no-provider error points to.
const providersSection = "Providers and keys"

// subcommandHelp lists the subcommands for --help, in order.
func subcommandHelp() [][2]string {
	return [][2]string{
		{"sessions [--json]", "list sessions: id, title, cwd, updated, messages"},
		{"sessions rm ID", "delete a session"},
		{"sessions rename ID TITLE", "rename a session"},
		{"sessions search QUERY", "search past sessions (--session ID, --limit N, --json)"},
		{"export ID [--format markdown]", "the session's messages as JSON Lines, or as Markdown for people"},
		{"checkpoints ID [--json]", "the session's turns, their checkpoints and changed files"},
		{"checkpoints prune", "prune the checkpoint store (--dry-run, --keep-sessions N, --max-bytes N, --json)"},
		{"rewind ID --to TURN", "undo turns: --code, --conversation (default both), --force"},
		{"timeline ID [--turn N]", "where a turn's time went (--json)"},
		{"replay FILE", "replay a --record file offline and compare (--fast, --live-tools, --json)"},
		{"extensions [--json]", "custom commands, skills, agents and hooks found here, the file of each, notices"},
		{"acp", "serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim) and acpx"},
		{"version", "print the version (also --version, -v)"},
		{"help", "this help (same as --help)"},
	}
}

// flagArgNames names the argument of the string flags in --help.
func flagArgNames() map[string]string {
	return map[string]string{"r": "ID", "resume": "ID", "base-url": "URL", "config": "FILE", "cwd": "DIR",
		"home": "DIR", "model": "NAME", "provider": "NAME", "theme": "NAME", "record": "FILE", "sandbox": "MODE",
		"o": "FILE", "output-last-message": "FILE", "output-format": "FORMAT", "output-schema": "FILE", "json-schema": "FILE",
		"permission-mode": "MODE", "append-system-prompt": "TEXT",
		"allowedTools": "RULES", "disallowedTools": "RULES"}
}

// writeHelp prints the usage, subcommands, flags and slash commands:
// `talaria --help`, `-h` and `talaria help`.
func writeHelp(w io.Writer) {
	fmt.Fprintf(w, `%s: a full-screen terminal coding agent

Usage:
  talaria [flags]              full-screen TUI in the current directory, new session
  talaria -c                   continue the most recent session of this directory
  talaria -r ID                continue session ID (a unique prefix, its suffix or its title)
  talaria -p PROMPT [--json]   one turn headless: the answer on stdout (-p - reads stdin)
  cmd | talaria -p PROMPT      piped text is attached to the prompt as context
  talaria --demo               the offline tour (no provider needed)
  talaria COMMAND [args]

Commands:
`, version)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range subcommandHelp() {
		fmt.Fprintf(tw, "  %s\t%s\n", c[0], c[1])
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nFlags:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defineFlags(&options{}).VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		switch arg {
		case "value":
			arg = "PROMPT"
		case "string":
			arg = flagArgNames()[f.Name]
			if arg == "" {
				arg = strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
			}
		case "int":
			arg = "N"
		case "float":
			arg = "USD"
		}
		if arg != "" {
			name += " " + arg
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	_ = tw.Flush()
	fmt.Fprintln(w, "\nSlash commands (in the TUI):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range ui.CommandHelp() {
		fmt.Fprintf(tw, "  %s\t%s\n", c[0], c[1])
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%s:\n  config: $TALARIA_HOME/config.yaml (default ~/.talaria), model.provider and model.name\n  keys: OPENAI_API_KEY, ANTHROPIC_API_KEY, %s (the first one set picks the provider)\n  local servers: Ollama :11434, llama.cpp :8080, LM Studio :1234, vLLM :8000 are found without a key\n",
		providersSection, strings.Join([]string{"OPENROUTER_API_KEY", "GEMINI_API_KEY"}, ", "))
	fmt.Fprintf(w, "\nHeadless (-p):\n  exit 0 completed, 1 not completed, 2 bad usage or config, 130 interrupted\n  piped stdin: attached when it is a pipe or a file (text, within the 4 MiB prompt cap); a pipe gets %s for its first byte, `< /dev/null` skips it\n", pipedWait)
}
