package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestTimelineAfterRewindShowsTheLatestLiveTurn: `talaria timeline ID`
// without --turn shows the latest turn still in the conversation, not a
// turn a rewind took back (issue 24 defect 7); a turn number used again
// after the rewind shows its new run.
func TestTimelineAfterRewindShowsTheLatestLiveTurn(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	for i, ask := range []string{"first ask", "second ask", "third ask"} {
		srv.Push(pt.Text("answer " + ask))
		args := []string{"-p", ask}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		if r := talaria(t, home, cwd, srv, "", args...); r.code != 0 {
			t.Fatalf("%s: %d %s", ask, r.code, r.stderr)
		}
	}
	id := sessionID(t, home, cwd)
	if rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "2", "--conversation"); rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	timeline := func() (int, string) {
		t.Helper()
		r := talaria(t, home, cwd, nil, "", "timeline", id, "--json")
		var l struct {
			Turn  int
			Input string
		}
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
			t.Fatalf("timeline: %v %q %s", err, r.stdout, r.stderr)
		}
		return l.Turn, l.Input
	}
	if turn, input := timeline(); turn != 1 || input != "first ask" {
		t.Errorf("after the rewind to 2, timeline shows turn %d %q, want turn 1 \"first ask\"", turn, input)
	}
	table := talaria(t, home, cwd, nil, "", "timeline", id)
	if table.code != 0 || strings.Contains(table.stdout, "third ask") {
		t.Errorf("the table shows a rewound turn: %d\n%s%s", table.code, table.stdout, table.stderr)
	}
	srv.Push(pt.Text("answer again"))
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "second again"); r.code != 0 {
		t.Fatalf("after the rewind: %d %s", r.code, r.stderr)
	}
	if turn, input := timeline(); turn != 2 || input != "second again" {
		t.Errorf("after a new turn 2, timeline shows turn %d %q, want turn 2 \"second again\"", turn, input)
	}
}
