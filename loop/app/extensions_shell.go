package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"talaria/loop/ext"
)

// Bounds of a custom command's !`cmd`.
const (
	// bangTimeout is each command's timeout (Claude Code's 2 minutes).
	bangTimeout = 120
	// bangTotal bounds all of one expansion's commands, approvals
	// included.
	bangTotal = 10 * time.Minute
	// maxBangOutput caps what one command's output adds to the prompt
	// (its end is kept: where a command's result is).
	maxBangOutput = 16 << 10
)

// bangRunner returns the shell that runs a command's !`cmd` before its
// prompt is sent: approved exactly like the model's terminal call (the
// permission rules, the known-safe list, the approvals mode; in the TUI
// a dialog, headless a refusal), then run by the terminal tool (the
// session's sandbox, scrubbed environment, working directory, a 2-minute
// timeout, capped output). A project's command runs them only once the
// folder is trusted. What did not run is replaced by a note saying why;
// nothing aborts the prompt. nil when the session has no tools.
func (s *Session) bangRunner(ctx context.Context, c *ext.Command) func(string) string {
	if s.tools == nil || s.tools.approver == nil {
		return nil
	}
	return func(cmd string) string {
		notRun := func(why string) string { return "[!`" + cmd + "` not run: " + why + "]" }
		if c.Source.Origin == ext.OriginProject && !s.projectTrusted() {
			return notRun("a project's command runs shell commands only once the folder is trusted (--trust, or the trust dialog)")
		}
		tl, ok := s.tools.registry.Get("terminal")
		if !ok {
			return notRun("the terminal tool is not available")
		}
		args, err := json.Marshal(map[string]any{"command": cmd, "timeout": bangTimeout})
		if err != nil {
			return notRun(err.Error())
		}
		if allowed, denial := s.tools.approver.Check(ctx, "terminal", string(args)); !allowed {
			why, _, _ := strings.Cut(strings.TrimPrefix(oneLineText(denial.Output), "Error: "), " Meanwhile, ")
			return notRun(why)
		}
		env := s.tools.env
		res := tl.Run(ctx, &env, args)
		return bangOutput(res.Output)
	}
}

// bangOutput is a terminal result as a prompt takes it: without the
// trailing "exit code: 0", capped at its last maxBangOutput bytes.
func bangOutput(out string) string {
	out = strings.TrimRight(out, "\n")
	if rest, ok := strings.CutSuffix(out, "exit code: 0"); ok {
		out = strings.TrimRight(rest, "\n")
		if out == "(no output)" {
			return ""
		}
	}
	if len(out) > maxBangOutput {
		cut := len(out) - maxBangOutput
		for cut < len(out) && out[cut]&0xC0 == 0x80 {
			cut++
		}
		out = fmt.Sprintf("[… the first %d bytes of the output were cut]\n", cut) + out[cut:]
	}
	return out
}

// projectTrusted reports whether the project's own settings apply in
// this session (--trust, trusted_projects, or the trust dialog).
func (s *Session) projectTrusted() bool {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	return s.hooks != nil && s.hooks.trusted
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
