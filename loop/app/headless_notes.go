package app

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"talaria/loop"
)

// WithDenialNotes passes events on to sink and, the first time in a turn
// that a tool call is denied (headless, nobody can approve it), writes to
// w what the call needed and how to allow it: the result the model got
// says so, but a person reading the run would otherwise see only "✗".
func WithDenialNotes(sink loop.Sink, w io.Writer) loop.Sink {
	var mu sync.Mutex
	noted := -1
	return func(e loop.Event) {
		sink(e)
		tc, ok := e.(*loop.ToolCompleted)
		if !ok || !tc.Denied {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if noted == tc.Turn {
			return
		}
		noted = tc.Turn
		fmt.Fprintln(w, "talaria: "+denialNote(tc))
	}
}

// denialNote is the first line of a denied call's result, which names the
// call and how to allow it, without the "Error: " the model reads.
func denialNote(tc *loop.ToolCompleted) string {
	line, _, _ := strings.Cut(strings.TrimSpace(tc.Output), "\n")
	line = strings.TrimPrefix(line, "Error: ")
	if i := strings.Index(line, " Meanwhile,"); i > 0 {
		line = line[:i] // what follows is advice to the model
	}
	if line == "" {
		line = tc.Name + " was not run: it needs approval; rerun with --yolo or set `approvals: auto-edit` in config.yaml"
	}
	return line
}

// answerOnStdout reports whether a headless turn's final response is an
// answer (printed on stdout) rather than the text of a failure, which
// goes to stderr with the explanation so that stdout carries the answer
// or nothing.
func answerOnStdout(res loop.Result) bool {
	switch res.ExitReason.Kind {
	case loop.ExitRetriesExhausted, loop.ExitErrorNearMaxKind, loop.ExitContentPolicyBlocked, loop.ExitContextOverflow,
		loop.ExitInvalidStructuredOutput:
		return false
	}
	return true
}
