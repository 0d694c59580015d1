package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestCheckpointsFromFileEvents: a turn of several write batches takes
// its later checkpoints from file events (the log says so as the session
// closes, with no fallback), and they are right: the turn's changes are
// listed as a walk sees them and a rewind puts the tree back.
func TestCheckpointsFromFileEvents(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, "keep.txt", "keep\n", 0o644)
	writeFile(t, cwd, "old/x.txt", "x\n", 0o644)
	writeFile(t, cwd, ".gitignore", "*.log\n", 0o644)
	original := snapshotTree(t, cwd, nil)
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{ID: "a", Name: "terminal", Args: `{"command":"mkdir -p a/b && echo 1 > a/b/f && echo top > top.txt && echo l > x.log"}`}),
		pt.ToolCalls(pt.Call{ID: "b", Name: "terminal", Args: `{"command":"mv a/b c && chmod 600 c/f && ln -s c/f link && rm top.txt && mv old renamed"}`}),
		pt.ToolCalls(pt.Call{ID: "c", Name: "terminal", Args: `{"command":"echo 2 >> c/f && mkdir -p n/m && echo deep > n/m/g && echo more >> renamed/x.txt"}`}),
		pt.Text("done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "change things", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	logged, err := os.ReadFile(filepath.Join(home, ".talaria", "logs", "talaria.log"))
	if err != nil {
		t.Fatal(err)
	}
	// Four checkpoints: the first walks, the second is verified by a walk,
	// the third and the closing one come from events.
	if !strings.Contains(string(logged), "checkpoints: 3 from file events, 2 by walking the tree\n") ||
		strings.Contains(string(logged), "events off") || strings.Contains(string(logged), "not using file events") {
		t.Fatalf("the log does not show checkpoints from file events:\n%s", logged)
	}
	id := sessionID(t, home, cwd)
	ls := talaria(t, home, cwd, nil, "", "checkpoints", id, "--json")
	var turns []struct {
		Turn    int
		Changes []struct{ Path, Kind string }
	}
	if err := json.Unmarshal([]byte(ls.stdout), &turns); err != nil || len(turns) != 1 {
		t.Fatalf("checkpoints --json: %v\n%s\n%s", err, ls.stdout, ls.stderr)
	}
	got := map[string]string{}
	for _, c := range turns[0].Changes {
		got[c.Path] = c.Kind
	}
	want := map[string]string{"c/f": "created", "link": "created", "n/m/g": "created",
		"old/x.txt": "deleted", "renamed/x.txt": "created"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("turn 1 changes: %v\nwant %v", got, want)
	}
	if rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code"); rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	now := snapshotTree(t, cwd, func(rel string) bool { return rel == "x.log" })
	if !reflect.DeepEqual(now, original) {
		t.Fatalf("after the rewind:\n got %v\nwant %v", now, original)
	}
}
