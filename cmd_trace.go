package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"talaria/loop"
	"talaria/loop/app"
	"talaria/loop/trace"
)

// timelineCmd is `talaria timeline ID [--turn N] [--json]`.
func timelineCmd(o *options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	turn := fs.Int("turn", 0, "the turn to show (default the last one)")
	asJSON := fs.Bool("json", false, "print the span log as JSON")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return app.ExitUsage
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	}
	if id == "" {
		fmt.Fprintln(stderr, "talaria: usage: talaria timeline ID [--turn N] [--json]")
		return app.ExitUsage
	}
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	rec, err := st.ResolveSession(id)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: timeline:", err)
		return 1
	}
	l, err := app.LoadTimeline(st, rec.ID, *turn)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: timeline:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(l)
		return 0
	}
	_ = trace.WriteTable(stdout, l)
	return 0
}

// replayCmd is `talaria replay FILE [--json] [--fast] [--live-tools]`: exit
// 0 when the run matches its recording, 1 at the first divergence, 2 for a
// file that cannot be read.
func replayCmd(o *options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "JSON Lines events on stdout, then a replay.result line")
	fast := fs.Bool("fast", false, "serve the recorded responses without their timing")
	live := fs.Bool("live-tools", false, "run the tools for real in the current directory instead of the recorded results")
	file, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return app.ExitUsage
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	if file == "" {
		fmt.Fprintln(stderr, "talaria: usage: talaria replay FILE [--json] [--fast] [--live-tools]")
		return app.ExitUsage
	}
	rec, err := trace.ReadRecording(file)
	if err != nil {
		fmt.Fprintf(stderr, "talaria: replay %s: %v\n", file, err)
		return app.ExitUsage
	}
	ropts := trace.ReplayOptions{Wires: app.Transports(), Fast: *fast, Sink: app.ProgressPrinter(stderr)}
	if *asJSON {
		ropts.Sink = jsonlSink(stdout)
	}
	if *live {
		cwd := o.flags.Cwd
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		fmt.Fprintf(stderr, "talaria: replay --live-tools: the recorded tool calls run for real in %s, without asking\n", cwd)
		reg, env, stop := app.LiveTools(cwd)
		defer stop()
		ropts.Live, ropts.ToolEnv = reg, env
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := trace.Replay(ctx, rec, ropts)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: replay:", err)
		if errors.Is(err, loop.ErrBusy) {
			return 1
		}
		return app.ExitUsage
	}
	if *asJSON {
		b, _ := json.Marshal(struct {
			Type      string         `json:"type"`
			SessionID string         `json:"session_id"`
			TS        loop.Timestamp `json:"ts"`
			*trace.ReplayResult
		}{"replay.result", rec.Header.SessionID, loop.Timestamp(time.Now()), res})
		fmt.Fprintln(stdout, string(b))
	}
	if res.Divergence != nil {
		fmt.Fprintln(stderr, "talaria: replay", res.Divergence.String())
		return 1
	}
	fmt.Fprintf(stderr, "talaria: replay matched the recording: %d turn(s), %d request(s), %d tool call(s), exit %s\n",
		res.Turns, res.Requests, res.ToolCalls, res.ExitReason)
	return 0
}
