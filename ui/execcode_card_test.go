package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
)

func codeArgs(code string) string {
	b, _ := json.Marshal(map[string]string{"code": code})
	return string(b)
}

const testScript = "from talaria_tools import *\nfor f in ['a.go', 'b.go']:\n    text = read_file(path=f)\n    print(f, len(text))\nterminal(command='rm -rf build')\nprint('done')\nprint('really')\n"

// execEvents plays an execute_code call c1 with two inner calls (a read
// that ran, a terminal call a PreToolUse hook blocked) and live stdout.
func execEvents(h *harness) {
	h.events(
		&loop.TurnStarted{Header: hdr(loop.TypeTurnStarted, 1, 0), Input: "go"},
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "sequential",
			Calls: []loop.ToolCallInfo{{ID: "c1", Name: "execute_code", Arguments: codeArgs(testScript)}}}}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "c1", Name: "execute_code", Arguments: codeArgs(testScript)},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "c1.1", Name: "read_file", Arguments: `{"path":"a.go"}`, ParentID: "c1"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "c1.1", Name: "read_file", OK: true, DurationMS: 3, ParentID: "c1"},
		&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, 2*time.Second), ID: "c1", Text: "a.go 120\n"},
		&loop.HookCompleted{Header: hdr(loop.TypeHookCompleted, 1, 2*time.Second), Event: "PreToolUse", Command: "./hooks/no-rm.sh", ExitCode: 2,
			DurationMS: 12, Decision: "block", ToolCallID: "c1.2", Tool: "terminal", Message: "rm is not allowed here\nuse git clean\nthird line\nfourth"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "c1.2", Name: "terminal", Denied: true, Output: "Blocked by a PreToolUse hook: rm is not allowed here", ParentID: "c1"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 2*time.Second), ID: "c1.3", Name: "patch", Arguments: `{"path":"b.go","old_string":"x","new_string":"y"}`, ParentID: "c1"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "c1.3", Name: "patch", Output: "Error: old_string not found in b.go\nmore", DurationMS: 2, ParentID: "c1"},
	)
}

// TestExecuteCodeCard: the card shows the script highlighted and
// collapsed, the inner calls nested under it with their state (no card of
// their own), and the script's live stdout.
func TestExecuteCodeCard(t *testing.T) {
	h := newHarness(t)
	h.size(80, 24)
	execEvents(h)
	s := h.screen()
	contains(t, s, "execute_code", "┆ from talaria_tools import *", "┆ for f in ['a.go', 'b.go']:", "… +2 script lines · ctrl+t shows the script", "execute_code python · 7 lines",
		"↳ ✓ read_file a.go", "↳ ⊘ terminal", "    ⚑ PreToolUse hook ./hooks/no-rm.sh", "↳ ✗ patch b.go", "│ Error: old_string not found in b.go", "a.go 120")
	if strings.Contains(s, "print('really')") {
		t.Errorf("the script was not collapsed:\n%s", s)
	}
	if n := strings.Count(s, "✓ read_file"); n != 1 {
		t.Errorf("read_file shown %d times (a card of its own?):\n%s", n, s)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	// /cancel finds the inner call.
	h.events(&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 3*time.Second), ID: "c1.4", Name: "terminal", Arguments: `{"command":"sleep 100"}`, ParentID: "c1"})
	if ref, ok := h.m.live.calls["c1.4"]; !ok || ref.call.state != toolRunning {
		t.Fatal("the running inner call is not known to /cancel")
	}
}

// TestExecuteCodeCardManyCalls: of 50 inner calls the card lists the last
// few and counts the others.
func TestExecuteCodeCardManyCalls(t *testing.T) {
	h := newHarness(t)
	h.events(
		&loop.TurnStarted{Header: hdr(loop.TypeTurnStarted, 1, 0), Input: "go"},
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "sequential",
			Calls: []loop.ToolCallInfo{{ID: "c1", Name: "execute_code", Arguments: codeArgs("print(1)")}}}}},
	)
	var evs []loop.Event
	for i := 1; i <= 50; i++ {
		id := fmt.Sprintf("c1.%d", i)
		evs = append(evs, &loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i), ParentID: "c1"},
			&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: id, Name: "read_file", OK: i%10 != 0, ParentID: "c1"})
	}
	h.events(evs...)
	s := h.screen()
	contains(t, s, "… 44 earlier inner calls (40 ok, 4 failed or refused)", "f50.go", "f45.go")
	if strings.Contains(s, "f44.go") {
		t.Errorf("listed more than the last calls:\n%s", s)
	}
}

// TestHookCard: a hook that ran for a call is on its card (event,
// command, decision, duration, its message collapsed); a turn's hook
// (Stop) is a transcript line; a failing one says so.
func TestHookCard(t *testing.T) {
	h := newHarness(t)
	h.size(80, 30)
	execEvents(h)
	s := h.screen()
	contains(t, s, "⚑ PreToolUse hook ./hooks/no-rm.sh", "block · 12ms", "│ rm is not allowed here", "… +2 lines · ctrl+t shows the rest")
	if strings.Contains(s, "fourth") {
		t.Errorf("the hook's message was not collapsed:\n%s", s)
	}
	h.events(
		&loop.HookCompleted{Header: hdr(loop.TypeHookCompleted, 1, 3*time.Second), Event: "Stop", Command: "make lint", ExitCode: 1, DurationMS: 1500, Failed: true, Decision: "error", Message: "lint: 3 problems"},
		&loop.HookCompleted{Header: hdr(loop.TypeHookCompleted, 1, 3*time.Second), Event: "UserPromptSubmit", Command: "log-prompt", DurationMS: 4},
	)
	s = h.screen()
	contains(t, s, "⚑ Stop hook make lint", "failed · exit 1 · 1.5s", "lint: 3 problems", "⚑ UserPromptSubmit hook log-prompt", "ok · 4ms")
}

// TestExecuteCodeScriptHighlighted: in colour the script's lines are
// highlighted as Python (a keyword coloured unlike a name), one screen
// line per source line, with glamour's margins taken off.
func TestExecuteCodeScriptHighlighted(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.NoColor = false })
	rc := h.m.renderCtx()
	src := "import os\nfor f in xs:\n    print(f)"
	lines := highlightPython(rc, src, 60)
	if len(lines) != 3 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for i, want := range strings.Split(src, "\n") {
		if got := strings.TrimRight(ansi.Strip(lines[i]), " "); got != want {
			t.Errorf("line %d: %q, want %q", i, got, want)
		}
	}
	if !strings.Contains(lines[0], "\x1b[") || lines[0] == rc.st.ToolArgs.Render("import os") {
		t.Errorf("not highlighted: %q", lines[0])
	}
}
