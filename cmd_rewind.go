package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"talaria/loop/app"
	"talaria/persist"
	"talaria/persist/checkpoint"
)

// checkpointsCmd runs `talaria checkpoints ID [--json]`: the session's
// turns, their checkpoints and the files each created, changed or deleted.
func checkpointsCmd(o *options, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "prune" {
		return pruneCmd(o, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("checkpoints", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON array")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil || id == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "talaria: usage: talaria checkpoints ID [--json] | talaria checkpoints prune [--dry-run] [--keep-sessions N] [--max-bytes N] [--json]")
		return app.ExitUsage
	}
	st, sess, code := openSession(o, id, "checkpoints", stderr)
	if st == nil {
		return code
	}
	turns, err := app.SessionTurnFiles(context.Background(), app.Home(o.flags.Home), st, sess.ID)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: checkpoints:", err)
		return app.ExitIncomplete
	}
	if *asJSON || o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if turns == nil {
			turns = []app.TurnFiles{}
		}
		_ = enc.Encode(turns)
		return 0
	}
	if len(turns) == 0 {
		fmt.Fprintln(stdout, "no turns yet")
	}
	for _, t := range turns {
		state := ""
		if !t.Live {
			state = " (rewound)"
		}
		fmt.Fprintf(stdout, "turn %d%s: %s\n", t.Turn, state, oneLine(t.Input, 70))
		for _, c := range t.Checkpoints {
			fmt.Fprintf(stdout, "  checkpoint %s  %s", c.ID, c.Kind)
			if c.Iteration > 0 {
				fmt.Fprintf(stdout, " iteration %d", c.Iteration)
			}
			fmt.Fprintln(stdout)
		}
		if t.Pruned {
			fmt.Fprintln(stdout, "  (checkpoints pruned: the turn's files cannot be rewound)")
		}
		for _, c := range t.Changes {
			fmt.Fprintf(stdout, "  %-8s %s\n", c.Kind, c.Path)
		}
	}
	return 0
}

// pruneCmd runs `talaria checkpoints prune [--dry-run] [--keep-sessions N]
// [--max-bytes N] [--json]`: the checkpoint store pruned to the limits
// (checkpoints.keep_sessions and checkpoints.max_bytes unless given), the
// sessions live processes run kept whole. Exit 0 when it ran, 1 when the
// store stayed busy or could not be read, 2 for bad flags or config.
func pruneCmd(o *options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("checkpoints prune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dry := fs.Bool("dry-run", false, "say what would go, remove nothing")
	keep := fs.Int("keep-sessions", -1, "keep the checkpoints of this many sessions, newest first (0: no limit)")
	maxBytes := fs.Int64("max-bytes", -1, "keep the store within this many bytes (0: no limit)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *keep < -1 || *maxBytes < -1 {
		fmt.Fprintln(stderr, "talaria: usage: talaria checkpoints prune [--dry-run] [--keep-sessions N] [--max-bytes N] [--json]")
		return app.ExitUsage
	}
	cfg, err := app.LoadConfig(o.flags)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitUsage
	}
	lim := cfg.Checkpoints
	if *keep >= 0 {
		lim.KeepSessions = *keep
	}
	if *maxBytes >= 0 {
		lim.MaxBytes = *maxBytes
	}
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return app.ExitIncomplete
	}
	ctx, cancel := context.WithTimeout(context.Background(), pruneWait)
	defer cancel()
	rep, err := app.PruneCheckpoints(ctx, app.Home(o.flags.Home), st, lim, *dry)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: checkpoints prune:", err)
		return app.ExitIncomplete
	}
	if *asJSON || o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return 0
	}
	verb := "pruned  "
	if rep.Dry {
		verb = "would go"
	}
	for _, id := range rep.Pruned {
		fmt.Fprintf(stdout, "%s %s (its files can no longer be rewound)\n", verb, id)
	}
	live := map[string]bool{}
	for _, id := range rep.Live {
		live[id] = true
	}
	for _, id := range rep.Kept {
		if live[id] {
			fmt.Fprintf(stdout, "kept     %s (live: it may still rewind)\n", id)
		} else {
			fmt.Fprintf(stdout, "kept     %s\n", id)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	fmt.Fprintf(stdout, "checkpoint store: %s before, %s after (keep_sessions %d, max_bytes %d)\n",
		checkpoint.Bytes(rep.BytesBefore), checkpoint.Bytes(rep.BytesAfter), lim.KeepSessions, lim.MaxBytes)
	return 0
}

// pruneWait bounds `talaria checkpoints prune`, waiting for the store's
// lock included.
const pruneWait = 5 * time.Minute

// rewindCmd runs `talaria rewind ID --to TURN [--code | --conversation]
// [--force]`: exit 0 when everything tracked was restored, 1 when a file
// was refused (changed outside talaria) or could not be written.
func rewindCmd(o *options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.Int("to", 0, "rewind to before this turn")
	code := fs.Bool("code", false, "rewind the files only")
	conv := fs.Bool("conversation", false, "rewind the conversation only")
	force := fs.Bool("force", false, "overwrite files changed outside talaria")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	id, rest := splitID(args)
	usage := "talaria: usage: talaria rewind ID --to TURN [--code | --conversation] [--force] [--json]"
	if err := fs.Parse(rest); err != nil || id == "" || fs.NArg() > 0 || *to < 1 {
		fmt.Fprintln(stderr, usage)
		return app.ExitUsage
	}
	if *code && *conv {
		fmt.Fprintln(stderr, "talaria: rewind: --code and --conversation exclude each other (give neither for both)")
		return app.ExitUsage
	}
	st, sess, failed := openSession(o, id, "rewind", stderr)
	if st == nil {
		return failed
	}
	req := app.RewindRequest{ToTurn: *to, Code: !*conv, Conversation: !*code, Force: *force}
	rep, err := app.Rewind(context.Background(), app.Home(o.flags.Home), st, sess.ID, req)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: rewind:", err)
		if rep == nil {
			return app.ExitUsage
		}
		return app.ExitIncomplete
	}
	if *asJSON || o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		writeRewindReport(stdout, rep, req)
	}
	if !rep.OK() {
		return app.ExitIncomplete
	}
	return 0
}

// writeRewindReport prints what a rewind did, one path a line.
func writeRewindReport(w io.Writer, rep *app.RewindReport, req app.RewindRequest) {
	if rep.Note != "" {
		fmt.Fprintln(w, rep.Note)
	}
	if f := rep.Files; f != nil {
		for _, p := range f.Restored {
			fmt.Fprintln(w, "restored   ", p)
		}
		for _, c := range f.Refused {
			fmt.Fprintf(w, "refused     %s (%s; --force overwrites it)\n", c.Path, c.Reason)
		}
		for _, c := range f.Errors {
			fmt.Fprintf(w, "failed      %s: %s\n", c.Path, c.Reason)
		}
		ignored := map[string]bool{}
		for _, p := range f.Ignored {
			ignored[p] = true
		}
		for _, p := range f.Untracked {
			why := "over 10 MiB"
			if ignored[p] {
				why = "ignored by .gitignore or not a regular file when checkpointed"
			}
			fmt.Fprintf(w, "not tracked %s (%s: not restored, left as it is)\n", p, why)
		}
		fmt.Fprintf(w, "files: %d restored; the tree before the rewind is checkpoint %s; files ignored by .gitignore are not tracked (never removed or changed)\n",
			len(f.Restored), f.Saved)
	}
	if req.Conversation {
		fmt.Fprintf(w, "conversation: the session continues from before turn %d\n", req.ToTurn)
	}
}

// openSession opens the store and finds session id (a unique prefix is
// enough) for subcommand cmd; on failure it says why on stderr and returns
// a nil store and the exit code.
func openSession(o *options, id, cmd string, stderr io.Writer) (*persist.Store, *persist.Session, int) {
	st, err := openStore(o)
	if err != nil {
		fmt.Fprintln(stderr, "talaria:", err)
		return nil, nil, app.ExitIncomplete
	}
	sess, err := st.ResolveSession(id)
	if err != nil {
		fmt.Fprintln(stderr, "talaria: "+cmd+":", err)
		return nil, nil, app.ExitUsage
	}
	return st, sess, 0
}

// splitID takes the leading non-flag argument as the session id.
func splitID(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// oneLine flattens text to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
