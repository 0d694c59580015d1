package ext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// Runner bounds.
const (
	// MaxHookOutput is how much of a hook's stdout and of its stderr is
	// kept (each); the rest is counted and discarded.
	MaxHookOutput = 1 << 20
	// hookKillWait bounds the wait for a killed hook's pipes to close
	// (a grandchild that escaped the group may hold them).
	hookKillWait = 2 * time.Second
)

// Runner runs hooks. Its zero value is not usable; fill Hooks, Dir, Env.
type Runner struct {
	// Hooks are the hooks that apply (the user's, and a trusted project's).
	Hooks []Hook
	// Dir is the project directory: the hooks' working directory and
	// TALARIA_PROJECT_DIR / CLAUDE_PROJECT_DIR.
	Dir string
	// Env is the environment hooks start with (the scrubbed one terminal
	// commands get); the project variables are added.
	Env []string
	// Shell runs the command with -c; empty: bash on PATH, else /bin/sh.
	Shell string
}

// Outcome is one hook's run.
type Outcome struct {
	// Hook is the hook that ran.
	Hook Hook `json:"hook"`
	// ExitCode is the exit status (-1 when killed or not started).
	ExitCode int `json:"exit_code"`
	// Duration is the wall time of the run.
	Duration time.Duration `json:"duration"`
	// TimedOut is set when the hook ran past its timeout and was killed.
	TimedOut bool `json:"timed_out,omitempty"`
	// Canceled is set when the caller's context ended the run.
	Canceled bool `json:"canceled,omitempty"`
	// StartErr says why the command could not start.
	StartErr string `json:"start_error,omitempty"`
	// Stdout and Stderr are the first MaxHookOutput bytes of each.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// StdoutDropped and StderrDropped count the bytes beyond the cap.
	StdoutDropped int64 `json:"stdout_dropped,omitempty"`
	StderrDropped int64 `json:"stderr_dropped,omitempty"`
	// Output is stdout parsed as JSON, when it was a JSON object.
	Output *Output `json:"output,omitempty"`
}

// Failed reports a hook that did not complete normally: timed out,
// canceled, not started, or a non-zero exit other than 2 (2 is a block).
func (o *Outcome) Failed() bool {
	return o.TimedOut || o.Canceled || o.StartErr != "" || (o.ExitCode != 0 && o.ExitCode != 2)
}

// Output is the JSON a hook may print on stdout.
type Output struct {
	// Continue false stops the turn (Claude Code's "continue").
	Continue *bool `json:"continue,omitempty"`
	// StopReason is shown when Continue is false.
	StopReason string `json:"stopReason,omitempty"`
	// Decision "block" blocks (with Reason); "approve" is the old allow.
	Decision string `json:"decision,omitempty"`
	// Reason explains a block to the model.
	Reason string `json:"reason,omitempty"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
	// HookSpecificOutput holds the event's own fields.
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is hookSpecificOutput.
type SpecificOutput struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// PermissionDecision is allow | deny | ask (PreToolUse).
	PermissionDecision string `json:"permissionDecision,omitempty"`
	// PermissionDecisionReason explains it.
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// AdditionalContext is text added for the model.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Result is every matching hook's outcome for one event and their
// combined decision.
type Result struct {
	// Event is the event run.
	Event string `json:"event"`
	// Outcomes are in the hooks' order.
	Outcomes []Outcome `json:"outcomes"`
	// Decision combines them.
	Decision Decision `json:"decision"`
}

// Matching returns the hooks that run for event with in.
func (r *Runner) Matching(event string, in *Input) []Hook {
	if r == nil {
		return nil
	}
	target, filtered := matchTarget(event, in)
	var out []Hook
	seen := map[string]bool{}
	for _, h := range r.Hooks {
		if h.Event != event || (filtered && !h.Matches(target)) {
			continue
		}
		if seen[h.Command] {
			continue // the same command twice runs once, as in Claude Code
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

// Run runs every hook matching event in parallel, each under its timeout,
// and combines their decisions. It returns when all have ended; a hook
// that hangs is killed at its timeout or when ctx ends (its whole process
// group), so Run is bounded by the longest timeout plus a short grace.
// It never panics. With no matching hook it returns an empty Result.
func (r *Runner) Run(ctx context.Context, event string, in Input) Result {
	res := Result{Event: event}
	hooks := r.Matching(event, &in)
	if len(hooks) == 0 {
		return res
	}
	in.HookEventName = event
	if (event == Stop || event == SubagentStop) && in.StopHookActive == nil {
		f := false
		in.StopHookActive = &f
	}
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		stdin = []byte("{}")
	}
	res.Outcomes = make([]Outcome, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					res.Outcomes[i] = Outcome{Hook: h, ExitCode: -1, StartErr: fmt.Sprintf("hook runner crashed: %v", p)}
				}
			}()
			res.Outcomes[i] = r.runOne(ctx, h, stdin)
		}()
	}
	wg.Wait()
	res.Decision = Combine(event, res.Outcomes)
	return res
}

// shell returns the program run with -c.
func (r *Runner) shell() string {
	if r.Shell != "" {
		return r.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

func (r *Runner) runOne(ctx context.Context, h Hook, stdin []byte) Outcome {
	out := Outcome{Hook: h, ExitCode: -1}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, r.shell(), "-c", h.Command)
	cmd.Dir = r.Dir
	cmd.Env = append(append([]string(nil), r.Env...), "TALARIA_PROJECT_DIR="+r.Dir, "CLAUDE_PROJECT_DIR="+r.Dir)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &capWriter{max: MaxHookOutput}, &capWriter{max: MaxHookOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = hookKillWait
	start := time.Now()
	if err := cmd.Start(); err != nil {
		out.StartErr = err.Error()
		out.Duration = time.Since(start)
		return out
	}
	err := cmd.Wait()
	out.Duration = time.Since(start)
	// Children left in the group (a background job) end with the hook.
	_ = killGroup(cmd)
	out.Stdout, out.StdoutDropped = stdout.String(), stdout.dropped
	out.Stderr, out.StderrDropped = stderr.String(), stderr.dropped
	switch {
	case hctx.Err() != nil && ctx.Err() != nil:
		out.Canceled = true
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		out.TimedOut = true
	}
	if cmd.ProcessState != nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
	} else if err != nil {
		out.StartErr = err.Error()
	}
	if out.TimedOut || out.Canceled {
		out.ExitCode = -1
	}
	out.Output = parseOutput(out.Stdout)
	return out
}

// capWriter keeps the first max bytes written and counts the rest; it
// never fails a write, so the hook is never blocked on a full pipe.
type capWriter struct {
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		n := min(room, len(p))
		w.buf.Write(p[:n])
		w.dropped += int64(len(p) - n)
	} else {
		w.dropped += int64(len(p))
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }
