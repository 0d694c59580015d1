// Command talaria is a full-screen terminal coding agent. It runs the Hermes
// conversation loop — call the model, run the tools it asks for, feed the
// results back — and shows it live, or headless with -p for scripts.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"talaria/loop"
	"talaria/loop/app"
	"talaria/loop/config"
	"talaria/persist"
	"talaria/themes"
	"talaria/tools"
	"talaria/tools/sandbox"
	"talaria/ui"
)

// version is the talaria version string.
const version = "talaria 0.1.0-dev"

// options are the parsed command line.
type options struct {
	flags         app.Flags
	prompt        string
	promptSet     bool
	json          bool
	stdinCommands bool
	demo          bool
	version       bool // --version, -v: the same as `talaria version`
	args          []string
	script        scriptOptions // main_script.go
	images        imageFlags    // --image FILE (main_image.go)
}

func main() {
	// Non-dumpable: a same-uid process cannot read talaria's environment
	// (the provider keys) or memory; commands start from the spawner.
	_ = tools.ProtectProcess()
	if len(os.Args) > 2 && os.Args[1] == tools.SpawnerArg {
		os.Exit(tools.SpawnMain(os.Args[2:])) // the parent of one command
	}
	if file := os.Getenv(tools.WatchdogEnv); file != "" {
		// The watchdog of a talaria process (see tools.Reaper).
		os.Exit(tools.RunWatchdog(file, os.Stdin))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		// Started by the sandbox to restrict itself and run a command.
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(argv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout)
			return 0
		}
		fmt.Fprintln(stderr, "talaria:", err)
		fmt.Fprintln(stderr, "talaria --help lists the commands and flags")
		return app.ExitUsage
	}
	if o.version {
		fmt.Fprintln(stdout, version)
		return 0
	}
	if len(o.args) > 0 && o.args[0] == "acp" {
		return acpCmd(o, o.args[1:], stdin, stdout, stderr)
	}
	if len(o.args) > 0 {
		return subcommand(o, stdout, stderr)
	}
	if o.promptSet {
		return headless(o, stdin, stdout, stderr)
	}
	return tui(o, stderr)
}

func parseFlags(argv []string) (*options, error) {
	o := &options{}
	fs := defineFlags(o)
	// run prints the one error line and --help the whole help, on stdout.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(argv); err != nil {
		return nil, err
	}
	return checkFlags(o, fs.Args())
}

// defineFlags declares the command line into o.
func defineFlags(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("talaria", flag.ContinueOnError)
	f := &o.flags
	fs.StringVar(&f.ConfigPath, "config", "", "config file (default $TALARIA_HOME/config.yaml)")
	fs.StringVar(&f.Home, "home", "", "talaria home directory (default $TALARIA_HOME or ~/.talaria)")
	fs.StringVar(&f.Overrides.Provider, "provider", "", "provider: "+strings.Join(config.Providers(), " | "))
	fs.StringVar(&f.Overrides.Model, "model", "", "model id sent to the provider")
	fs.StringVar(&f.Overrides.BaseURL, "base-url", "", "provider base URL (an OpenAI-compatible server: provider custom)")
	fs.IntVar(&f.Overrides.MaxIterations, "max-iterations", 0, "iteration budget per turn (default agent.max_iterations, 90)")
	fs.StringVar(&f.Cwd, "cwd", "", "working directory (default the current directory)")
	fs.BoolVar(&f.Overrides.Yolo, "yolo", false, "approve every tool call without asking")
	fs.StringVar(&f.Overrides.Sandbox, "sandbox", "", "run commands in an OS sandbox: off | read-only | workspace-write (default sandbox.mode)")
	fs.StringVar(&f.Overrides.Theme, "theme", "", "TUI theme")
	fs.BoolVar(&f.Continue, "c", false, "continue the most recent session of this directory")
	fs.BoolVar(&f.Continue, "continue", false, "same as -c")
	fs.StringVar(&f.Resume, "r", "", "resume session ID (a unique prefix or the title is enough)")
	fs.StringVar(&f.Resume, "resume", "", "same as -r")
	fs.BoolVar(&f.Trust, "trust", false, "apply this project's own hooks (.talaria/config.yaml, .claude/settings.json) for this run, without recording it in trusted_projects")
	fs.BoolVar(&f.Wait, "wait", false, "with -c/-r: wait while another talaria process runs the session, instead of refusing")
	fs.Func("p", "run one turn headless with PROMPT (- reads it from stdin)", func(s string) error {
		o.prompt, o.promptSet = s, true
		return nil
	})
	fs.BoolVar(&o.json, "json", false, "with -p: JSON Lines events on stdout")
	fs.BoolVar(&o.stdinCommands, "stdin-commands", false, "with -p: read /steer TEXT, /stop, /queue TEXT, /cancel ID lines from stdin")
	fs.BoolVar(&o.demo, "demo", false, "offline tour with a scripted provider")
	fs.BoolVar(&o.version, "version", false, "print the version (same as talaria version)")
	fs.BoolVar(&o.version, "v", false, "same as --version")
	fs.StringVar(&f.Record, "record", "", "record every provider request and response and every tool result to FILE (JSON Lines)")
	defineScriptFlags(fs, o)
	defineImageFlags(fs, o)
	f.Version = version
	f.Builtins = builtinCommandNames() // no custom command shadows one
	return fs
}

// checkFlags rejects flag combinations that make no sense.
func checkFlags(o *options, args []string) (*options, error) {
	f := &o.flags
	o.args = args
	if (o.json || o.stdinCommands) && !o.promptSet {
		return nil, fmt.Errorf("--json and --stdin-commands need -p PROMPT")
	}
	if o.stdinCommands && o.prompt == "-" {
		return nil, fmt.Errorf("-p - reads the prompt from stdin, so it cannot be combined with --stdin-commands")
	}
	if err := checkScriptFlags(o); err != nil {
		return nil, err
	}
	if err := checkImageFlags(o); err != nil {
		return nil, err
	}
	f.Headless = o.promptSet
	if exe, err := os.Executable(); err == nil {
		f.Watchdog = []string{exe}
	}
	return o, nil
}

func headless(o *options, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr = app.SafeWriter(stderr) // progress and errors carry model and provider text
	started := time.Now()
	prompt, note, err := headlessPrompt(o, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	if note != "" {
		fmt.Fprintln(stderr, "talaria:", note)
	}
	images, err := readImages(o.images)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	sink := app.ProgressPrinter(stderr)
	if o.json {
		sink = jsonlSink(stdout)
	}
	sink = app.WithDenialNotes(sink, stderr)
	ctx := context.Background()
	var s *app.Session
	if o.demo {
		s, err = app.OpenDemo(o.flags, sink)
	} else {
		s, err = app.Open(ctx, o.flags, sink)
	}
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", openErrorLine(err))
		return app.ExitUsage
	}
	defer s.Close()
	if s.Notice != "" {
		fmt.Fprintln(stderr, "talaria:", s.Notice)
	}
	s.Agent.EmitSessionStarted(s.Cwd, s.Resumed)
	return app.RunHeadless(ctx, s, app.HeadlessOptions{
		Prompt: prompt, StdinCommands: o.stdinCommands, Stdin: stdin,
		Stdout: stdout, Stderr: stderr, JSON: o.json, Signals: true,
		ResultJSON: o.script.outputFormat == formatJSON, OutputLast: o.script.outputLast, Started: started,
		Images: images,
	})
}

// jsonlSink writes each event as one JSON object per line, flushed per line
// (one Write call per event on an unbuffered writer).
func jsonlSink(w io.Writer) loop.Sink {
	var mu sync.Mutex
	return func(e loop.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
		}
		b = append(b, '\n')
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write(b)
	}
}

func subcommand(o *options, stdout, stderr io.Writer) int {
	name, rest := o.args[0], o.args[1:]
	switch name {
	case "version":
		fmt.Fprintln(stdout, version)
		return 0
	case "sessions":
		return sessions(o, rest, stdout, stderr)
	case "export":
		return export(o, rest, stdout, stderr)
	case "checkpoints":
		return checkpointsCmd(o, rest, stdout, stderr)
	case "rewind":
		return rewindCmd(o, rest, stdout, stderr)
	case "timeline":
		return timelineCmd(o, rest, stdout, stderr)
	case "replay":
		return replayCmd(o, rest, stdout, stderr)
	case "extensions":
		return extensionsCmd(o, rest, stdout, stderr)
	case "help":
		writeHelp(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "talaria: unknown command %q (commands: sessions, export, checkpoints, rewind, timeline, replay, extensions, version, help; or -p PROMPT)\n", name)
	return app.ExitUsage
}

func openStore(o *options) (*persist.Store, error) {
	return app.OpenStore(app.Home(o.flags.Home))
}

func sessions(o *options, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return sessionsManage(o, args, stdout, stderr)
	}
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := fs.Parse(args); err != nil {
		return app.ExitUsage
	}
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	list, err := st.ListSessions()
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	if busy, err := app.BusySessions(st); err == nil {
		persist.MarkBusy(list, busy)
	}
	if *asJSON || o.json {
		err = persist.WriteSessionsJSON(stdout, list)
	} else {
		err = persist.WriteSessionsTable(stdout, list)
	}
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	return 0
}

// sessionsManage runs `sessions rm ID`, `sessions rename ID TITLE` and
// `sessions search QUERY [--session ID] [--limit N] [--json]`.
func sessionsManage(o *options, args []string, stdout, stderr io.Writer) int {
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "talaria: sessions %s: %v\n", args[0], err)
		return app.ExitIncomplete
	}
	switch {
	case args[0] == "rm" && len(args) == 2:
		s, err := st.ResolveSession(args[1])
		if err == nil {
			err = st.DeleteSession(s.ID)
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, "deleted", s.ID)
	case args[0] == "rename" && len(args) >= 3:
		s, err := st.ResolveSession(args[1])
		if err == nil {
			err = st.RenameSession(s.ID, strings.Join(args[2:], " "))
		}
		if err != nil {
			return fail(err)
		}
	case args[0] == "search" && len(args) >= 2:
		return sessionsSearch(st, args[1:], stdout, stderr)
	default:
		fmt.Fprintln(stderr, "talaria: usage: talaria sessions [--json] | sessions rm ID | sessions rename ID TITLE | sessions search QUERY [--session ID] [--limit N] [--json]")
		return app.ExitUsage
	}
	return 0
}

func sessionsSearch(st *persist.Store, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "search one session")
	limit := fs.Int("limit", persist.DefaultSearchLimit, "most results")
	asJSON := fs.Bool("json", false, "JSON Lines output")
	query := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return app.ExitUsage
	}
	hits, err := st.SearchSessions(context.Background(), query, *limit, *session)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: sessions search:", err)
		return app.ExitIncomplete
	}
	for _, h := range hits {
		if *asJSON {
			b, _ := json.Marshal(h)
			fmt.Fprintln(stdout, string(b))
			continue
		}
		fmt.Fprintf(stdout, "%s  %s  %-9s %s\n", h.SessionID, h.When.Local().Format("2006-01-02 15:04"), h.Role, h.Snippet)
	}
	return 0
}

func export(o *options, args []string, stdout, stderr io.Writer) int {
	ref, format, err := exportArgs(args) // main_export.go
	if err != nil {
		fmt.Fprintln(stderr, "talaria: export:", err)
		fmt.Fprintln(stderr, "talaria: usage: talaria export ID [--format jsonl|markdown]")
		return app.ExitUsage
	}
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	sess, err := st.ResolveSession(ref)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: export:", err)
		return app.ExitUsage
	}
	write := st.ExportSession
	if format == formatMarkdown {
		write = st.ExportMarkdown
	}
	if err := write(stdout, sess.ID); err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	return 0
}

func tui(o *options, stderr io.Writer) int {
	cfg, err := app.LoadConfig(o.flags)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	if t := cfg.Display.Theme; t != "" && t != "auto" && !themes.Valid(t) {
		fmt.Fprintf(stderr, "talaria: theme %q: not one of %s (set by --theme or display.theme)\n", t, strings.Join(themes.Names(), ", "))
		return app.ExitUsage
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialogs := ui.NewDialogs()
	f := o.flags
	f.UI = app.Interactive{Approve: dialogs.Approve, Ask: dialogs.Ask}
	events, sink := ui.EventChannel(ctx, 0)
	w := app.NewSwitcher(ctx, f, sink)
	var first *app.Session
	if o.demo {
		first, err = w.OpenDemo()
	} else {
		first, err = w.Open()
	}
	// With no provider the screen offers the setup dialog.
	port := w.Screen(app.ScreenOptions{Setup: errors.Is(err, config.ErrNoProvider)})
	opts := ui.Options{Theme: cfg.Display.Theme, BusyInputMode: cfg.Display.BusyInputMode, LiveLines: cfg.Display.LiveLines, MaxIterations: cfg.Agent.MaxIterations,
		Port: port, Events: events, Dialogs: dialogs, Sandbox: cfg.Sandbox.Mode}
	opts.PrintOnExit, opts.MouseOff = cfg.Display.PrintOnExit, cfg.Display.Mouse != nil && !*cfg.Display.Mouse
	opts.Notify = ui.NotifyOptions{When: cfg.Notifications.When, Mode: cfg.Notifications.Mode, MinSeconds: cfg.Notifications.MinSeconds, Command: cfg.Notifications.Command}
	switch {
	case err == nil:
		opts.Provider, opts.Model, opts.SessionID, opts.Cwd = first.Backend.Provider, first.Backend.Model, first.Record.ID, first.Cwd
		v := first.View() // the history's tail: the screen pages the rest (Port.Older)
		opts.History, opts.HistoryBefore, opts.Title, opts.Notice, opts.Usage = v.History, v.Before, v.Title, first.Notice, v.Usage
		opts.ContextLength = first.Backend.ContextLength
		opts.InputHistory = first.InputHistory()
		if o.demo {
			opts.InitialPrompt = app.DemoPrompt
			opts.MaxIterations = 8
		}
	case errors.Is(err, config.ErrNoProvider):
		// With no provider the screen still opens and says what to do.
		opts.Notice = err.Error()
	default:
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	err = ui.Run(ctx, opts)
	// Nobody drains the events any more: the sink drops them from here on,
	// while quitting interrupts a running turn and waits (bounded) for its
	// epilogue to save the step in flight before the session closes.
	cancel()
	hint := resumeHint(w.Current(), o.demo)
	w.Close()
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	if hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	return 0
}
