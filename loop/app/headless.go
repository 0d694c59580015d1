package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// Headless exit codes (CONTRACT.md).
const (
	ExitCompleted   = 0
	ExitIncomplete  = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// HeadlessOptions configures one headless run.
type HeadlessOptions struct {
	Prompt string
	// StdinCommands reads slash commands (/steer TEXT, /stop, /queue TEXT, /cancel ID)
	// from Stdin while the turn runs.
	StdinCommands bool
	Stdin         io.Reader
	Stdout        io.Writer
	Stderr        io.Writer
	// JSON means events go to stdout (through the sink) and the final answer
	// is not printed again.
	JSON bool
	// Signals enables SIGINT/SIGTERM handling: the first interrupts the turn,
	// the second exits at once with 130.
	Signals bool
	// ResultJSON (--output-format json) prints one result object on
	// stdout at the end instead of the answer (headless_result.go).
	ResultJSON bool
	// OutputLast (-o FILE), when set, also gets the final answer, written
	// atomically, only when the run completed.
	OutputLast string
	// Started is when the run began, for the result's duration_ms (zero:
	// when RunHeadless was called).
	Started time.Time
	// Images are attached to the prompt's user message (--image).
	Images []providers.Image
}

// RunHeadless runs the prompt as one turn (then any queued turns) and
// returns the process exit code.
func RunHeadless(ctx context.Context, s *Session, o HeadlessOptions) int {
	o.Stderr = SafeWriter(o.Stderr)
	var signalled atomic.Bool
	if o.Signals {
		stop := handleSignals(s.Agent, s.Close, &signalled)
		defer stop()
	}
	if o.StdinCommands && o.Stdin != nil {
		go readCommands(o.Stdin, s.Agent, o.Stderr)
	}
	if o.Started.IsZero() {
		o.Started = time.Now()
	}
	input, note := s.ExpandPrompt(o.Prompt) // -p "/NAME args": a custom command or skill
	if note != "" {
		fmt.Fprintln(o.Stderr, "talaria:", note)
	}
	var res loop.Result
	var sum runTotals
	unsaved := false
	images := o.Images
	for {
		r, err := s.Agent.RunInput(ctx, loop.Input{Text: input, Images: images})
		if err != nil {
			fmt.Fprintln(o.Stderr, "talaria:", err)
			if usageError(err) {
				return ExitUsage
			}
			return ExitIncomplete
		}
		if note := imagesNote(s, len(images)); note != "" {
			fmt.Fprintln(o.Stderr, "talaria:", note)
		}
		images = nil // queued turns are text
		res = r
		sum.add(res)
		switch {
		case o.JSON || o.ResultJSON || res.FinalResponse == "":
		case answerOnStdout(res):
			fmt.Fprintln(o.Stdout, answerText(o.Stdout, s.mask.Mask(finalAnswer(res))))
		case res.Explanation == "":
			fmt.Fprintln(o.Stderr, "talaria:", s.mask.Mask(res.FinalResponse))
		}
		if !o.JSON {
			warnCleanup(o.Stderr, res)
		}
		unsaved = unsaved || res.Unsaved
		if res.ExitReason.Interrupted() {
			break
		}
		if signalled.Load() {
			// A signal between queued turns stops the queue.
			res.ExitReason = loop.ExitInterruptedByUser.Exit()
			break
		}
		next, ok := s.Agent.NextQueued()
		if !ok {
			break
		}
		input = next
	}
	if !o.JSON && res.Explanation != "" {
		fmt.Fprintf(o.Stderr, "talaria: %s (%s)\n", s.mask.Mask(res.Explanation), res.ExitReason)
	}
	code := exitCode(res, unsaved)
	if code == ExitCompleted && o.OutputLast != "" {
		if err := writeAtomic(o.OutputLast, []byte(s.mask.Mask(finalAnswer(res))+"\n")); err != nil {
			fmt.Fprintln(o.Stderr, "talaria: -o:", err)
			code = ExitIncomplete
		}
	}
	if o.ResultJSON {
		writeResult(o.Stdout, s, res, sum, o.Started)
	}
	return code
}

// exitCode is the process exit code of a run's last result.
func exitCode(res loop.Result, unsaved bool) int {
	switch {
	case res.ExitReason.Interrupted():
		return ExitInterrupted
	case unsaved:
		// The answer was printed but the session does not hold it.
		return ExitIncomplete
	case res.Completed:
		return ExitCompleted
	default:
		return ExitIncomplete
	}
}

// warnCleanup prints what went wrong after the answer: above all a store
// write that failed, since the session then lacks part of the turn.
func warnCleanup(w io.Writer, res loop.Result) {
	for _, ce := range res.CleanupErrors {
		fmt.Fprintln(w, "talaria: warning:", ce)
	}
	if res.Unsaved {
		fmt.Fprintln(w, "talaria: warning: this turn is not fully saved in the session (check free space and permissions under $TALARIA_HOME); exit status 1")
	}
}

// handleSignals interrupts the turn on the first SIGINT/SIGTERM and exits
// with 130 on the second, after cleanup (which ends background processes:
// they run in their own process groups and would not see the signal).
func handleSignals(a *loop.Agent, cleanup func(), signalled *atomic.Bool) (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case <-ch:
				n++
				signalled.Store(true)
				if n > 1 {
					cleanup()
					os.Exit(ExitInterrupted)
				}
				a.Interrupt()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}

// readCommands applies slash commands read line by line.
func readCommands(r io.Reader, a *loop.Agent, errw io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if err := ApplyCommand(a, line); err != nil {
			fmt.Fprintln(errw, "talaria:", err)
		}
	}
}

// ApplyCommand runs one headless slash command against the agent.
func ApplyCommand(a *loop.Agent, line string) error {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "/stop":
		a.Interrupt()
	case "/steer":
		if arg == "" {
			return fmt.Errorf("/steer needs text: /steer TEXT")
		}
		if _, err := a.TrySteer(arg); err != nil {
			return err
		}
	case "/queue":
		if arg == "" {
			return fmt.Errorf("/queue needs text: /queue TEXT")
		}
		a.Queue(arg)
	case "/cancel":
		if arg == "" {
			return fmt.Errorf("/cancel needs the tool_call_id of a running call: /cancel ID")
		}
		if !a.CancelCall(arg) {
			return fmt.Errorf("/cancel %s: no running tool call has that id", arg)
		}
	default:
		return fmt.Errorf("unknown command %q on stdin (headless understands /steer TEXT, /stop, /queue TEXT, /cancel ID)", cmd)
	}
	return nil
}

// ProgressPrinter returns a sink that writes a short human-readable trace of
// the turn (tools, retries, steers, guardrails) to w, for headless text mode.
func ProgressPrinter(w io.Writer) loop.Sink {
	var mu sync.Mutex
	return func(e loop.Event) {
		line := progressLine(e)
		if line == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, line)
	}
}

func progressLine(e loop.Event) string {
	switch ev := e.(type) {
	case *loop.ToolStarted:
		return fmt.Sprintf("→ %s %s", ev.Name, preview(ev.Arguments, 100))
	case *loop.ToolCompleted:
		mark := "✓"
		if ev.Cancelled {
			mark = "⊘"
		} else if !ev.OK {
			mark = "✗"
		}
		return fmt.Sprintf("%s %s (%s)", mark, ev.Name, time.Duration(ev.DurationMS)*time.Millisecond)
	case *loop.RetryScheduled:
		line := fmt.Sprintf("⏳ %s (status %d): retrying in %s (attempt %d/%d)", ev.Reason, ev.Status, time.Duration(ev.DelayMS)*time.Millisecond, ev.Attempt, ev.MaxAttempts)
		if ev.Message != "" {
			line += ": " + preview(ev.Message, 200)
		}
		return line
	case *loop.SteerDelivered:
		return "↪ steer delivered: " + preview(ev.Text, 100)
	case *loop.Guardrail:
		return fmt.Sprintf("⚠ guardrail %s %s: %s", ev.Action, ev.Code, ev.Message)
	case *loop.FallbackActivated:
		return fmt.Sprintf("⇄ fallback %s/%s → %s/%s (%s)", ev.From.Provider, ev.From.Model, ev.To.Provider, ev.To.Model, ev.Reason)
	case *loop.Compression:
		return fmt.Sprintf("⇲ compressed context: %d → %d tokens", ev.TokensBefore, ev.TokensAfter)
	}
	return ""
}

func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}
