package app_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// fileNode is what the rewind tests compare of one path.
type fileNode struct {
	Mode fs.FileMode
	Data string
}

// snapshotTree reads every path under root but .git/ and the paths for
// which skip is true, without talaria's help.
func snapshotTree(t *testing.T, root string, skip func(rel string) bool) map[string]fileNode {
	t.Helper()
	out := map[string]fileNode{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Name() == ".git" || (skip != nil && skip(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n := fileNode{Mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			n.Data, _ = os.Readlink(p)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n.Data = string(b)
		}
		out[rel] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitState is what talaria must never change in the project's
// repository: HEAD, the index file's bytes, stashes and refs (read
// without git's optional index refresh, which would rewrite the index).
func gitState(t *testing.T, dir string) string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return git(t, dir, "rev-parse", "HEAD") + "\n--index " + string(index) + "\n--stash " + git(t, dir, "stash", "list") +
		"\n--refs " + git(t, dir, "for-each-ref")
}

// gitStatus is `git status --porcelain --ignored`, without an index refresh.
func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	return git(t, dir, "--no-optional-locks", "status", "--porcelain", "--ignored")
}

func writeFile(t *testing.T, dir, rel, data string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func sessionID(t *testing.T, home, cwd string) string {
	t.Helper()
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) == 0 {
		t.Fatalf("sessions --json: %q %v", ls.stdout, err)
	}
	return list[0]["id"].(string)
}

func TestRewindCodeInARealRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, "tracked.txt", "alpha\nbeta\n", 0o644)
	writeFile(t, cwd, "del.txt", "delete me\n", 0o644)
	writeFile(t, cwd, "mod.txt", "modify me\n", 0o644)
	writeFile(t, cwd, "script.sh", "#!/bin/sh\necho hi\n", 0o644)
	writeFile(t, cwd, ".gitignore", "ignored/\n", 0o644)
	writeFile(t, cwd, "ignored/keep.txt", "ignored content\n", 0o644)
	git(t, cwd, "init", "-q")
	git(t, cwd, "add", ".")
	git(t, cwd, "commit", "-qm", "init")
	// A dirty tree, as users have: a staged change and an untracked file.
	writeFile(t, cwd, "mod.txt", "modify me\nstaged\n", 0o644)
	git(t, cwd, "add", "mod.txt")
	writeFile(t, cwd, "untracked.txt", "mine\n", 0o644)
	repo, status := gitState(t, cwd), gitStatus(t, cwd)
	notIgnored := func(rel string) bool { return strings.HasPrefix(rel, "ignored") || rel == "big.bin" }
	original := snapshotTree(t, cwd, notIgnored)
	ignoredBefore := snapshotTree(t, filepath.Join(cwd, "ignored"), nil)

	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(
			pt.Call{ID: "w", Name: "write_file", Args: `{"path":"new.txt","content":"created\n"}`},
			pt.Call{ID: "p", Name: "patch", Args: `{"mode":"replace","path":"tracked.txt","old_string":"beta","new_string":"BETA"}`},
		),
		pt.ToolCalls(pt.Call{ID: "t", Name: "terminal", Args: `{"command":"rm del.txt && echo more >> mod.txt && chmod +x script.sh"}`}),
		pt.Text("turn one done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "first ask", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var cps int
	for _, e := range events(t, r.stdout) {
		if e["type"] == "checkpoint.created" {
			cps++
			if e["turn"] != 1.0 || e["checkpoint"] == "" || e["iteration"] == nil {
				t.Fatalf("checkpoint event: %v", e)
			}
		}
	}
	if cps != 2 {
		t.Fatalf("%d checkpoint.created events, want 2", cps)
	}
	if gitState(t, cwd) != repo {
		t.Fatal("turn 1 changed the project's git state")
	}
	afterTurn1, status1 := snapshotTree(t, cwd, notIgnored), gitStatus(t, cwd)
	if afterTurn1["script.sh"].Mode&0o100 == 0 || afterTurn1["new.txt"].Data != "created\n" {
		t.Fatalf("turn 1 did not run as scripted: %v", afterTurn1)
	}

	srv.Push(
		pt.ToolCalls(pt.Call{ID: "t2", Name: "terminal", Args: `{"command":"echo gamma >> tracked.txt && mkdir -p d/e && ln -s ../../new.txt d/e/link && echo gen > ignored/gen.txt && head -c 11000000 /dev/zero > big.bin"}`}),
		pt.Text("turn two done"),
	)
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "second ask", "--yolo"); r.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", r.code, r.stderr)
	}
	id := sessionID(t, home, cwd)

	ls := talaria(t, home, cwd, nil, "", "checkpoints", id, "--json")
	var turns []struct {
		Turn    int
		Changes []struct{ Path, Kind string }
	}
	if err := json.Unmarshal([]byte(ls.stdout), &turns); err != nil || len(turns) != 2 {
		t.Fatalf("checkpoints --json: %v\n%s\n%s", err, ls.stdout, ls.stderr)
	}
	got := map[string]string{}
	for _, c := range turns[0].Changes {
		got[c.Path] = c.Kind
	}
	want := map[string]string{"new.txt": "created", "tracked.txt": "changed", "del.txt": "deleted", "mod.txt": "changed", "script.sh": "changed"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("turn 1 changes: %v", got)
	}

	rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "2", "--code")
	if rw.code != 0 {
		t.Fatalf("rewind to 2: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if !strings.Contains(rw.stdout, "big.bin") {
		t.Fatalf("the file over 10 MiB is not reported:\n%s", rw.stdout)
	}
	if now := snapshotTree(t, cwd, notIgnored); !reflect.DeepEqual(now, afterTurn1) {
		t.Fatalf("after rewind to 2:\n got %v\nwant %v", now, afterTurn1)
	}
	if gitStatus(t, cwd) != strings.Replace(status1, "?? new.txt\n", "?? big.bin\n?? new.txt\n", 1) {
		t.Fatalf("git status after rewind to 2:\n%s\nwant\n%s", gitStatus(t, cwd), status1)
	}
	if _, err := os.Stat(filepath.Join(cwd, "d")); !os.IsNotExist(err) {
		t.Fatal("the directories the turn created are still there")
	}
	if gitState(t, cwd) != repo {
		t.Fatal("rewind changed the project's git state")
	}
	rw = talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code")
	if rw.code != 0 {
		t.Fatalf("rewind to 1: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if now := snapshotTree(t, cwd, notIgnored); !reflect.DeepEqual(now, original) {
		t.Fatalf("after rewind to 1:\n got %v\nwant %v", now, original)
	}
	if gitState(t, cwd) != repo {
		t.Fatal("rewind changed the project's git state")
	}
	// big.bin, over 10 MiB, stays: the rest is as it was.
	if got := gitStatus(t, cwd); strings.Replace(got, "?? big.bin\n", "", 1) != status {
		t.Fatalf("git status after rewind to 1:\n%s\nwant\n%s", got, status)
	}
	ignoredNow := snapshotTree(t, filepath.Join(cwd, "ignored"), func(rel string) bool { return rel == "gen.txt" })
	if !reflect.DeepEqual(ignoredNow, ignoredBefore) {
		t.Fatal("an ignored file was touched")
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "ignored/gen.txt")); err != nil || string(b) != "gen\n" {
		t.Fatal("rewind removed an ignored file")
	}
}

func TestRewindConversationThenContinue(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir() // not a git repository
	srv := pt.New(t)
	srv.Push(pt.Text("answer one"))
	if r := talaria(t, home, cwd, srv, "", "-p", "first ask"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"f.txt","content":"two\n"}`}), pt.Text("answer two"))
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "second ask", "--yolo"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	id := sessionID(t, home, cwd)
	rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "2")
	if rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, "f.txt")); !os.IsNotExist(err) {
		t.Fatal("rewinding both left the file turn 2 created")
	}
	srv.Push(pt.Text("answer three"))
	r := talaria(t, home, cwd, srv, "", "-c", "-p", "third ask", "--json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	reqs := srv.RawRequests()
	last := reqs[len(reqs)-1]
	if strings.Contains(last, "second ask") || strings.Contains(last, "answer two") || !strings.Contains(last, "first ask") || !strings.Contains(last, "third ask") {
		t.Fatalf("the request after the rewind: %s", last)
	}
	for _, e := range events(t, r.stdout) {
		if e["type"] == "turn.started" && e["turn"] != 2.0 {
			t.Fatalf("the turn after a rewind to 2 is numbered %v", e["turn"])
		}
	}
	ex := talaria(t, home, cwd, nil, "", "export", id)
	if !strings.Contains(ex.stdout, "second ask") || !strings.Contains(ex.stdout, `"type":"rewind"`) || !strings.Contains(ex.stdout, "third ask") {
		t.Fatalf("export:\n%s", ex.stdout)
	}
	if i, j := strings.Index(ex.stdout, `"type":"rewind"`), strings.Index(ex.stdout, "third ask"); i > j {
		t.Fatal("the rewind record is not where it happened")
	}
}

func TestRewindRefusesOutsideChangeUntilForced(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"f.txt","content":"talaria\n"}`}), pt.Text("ok"))
	if r := talaria(t, home, cwd, srv, "", "-p", "write f", "--yolo"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	writeFile(t, cwd, "f.txt", "edited by hand\n", 0o644)
	id := sessionID(t, home, cwd)
	rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code")
	if rw.code != 1 || !strings.Contains(rw.stdout, "refused") || !strings.Contains(rw.stdout, "f.txt") {
		t.Fatalf("rewind over a hand edit: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(b) != "edited by hand\n" {
		t.Fatal("the hand edit was overwritten")
	}
	rw = talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code", "--force")
	if rw.code != 0 {
		t.Fatalf("forced rewind: exit %d\n%s", rw.code, rw.stdout)
	}
	if _, err := os.Stat(filepath.Join(cwd, "f.txt")); !os.IsNotExist(err) {
		t.Fatal("--force did not restore")
	}
}

func TestTwoSessionsInOneDirectory(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, "a.txt", "base\n", 0o644)
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"from A\n"}`}), pt.Text("ok"))
	if r := talaria(t, home, cwd, srv, "", "-p", "session A", "--yolo"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	a := sessionID(t, home, cwd)
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"from B\n"}`}), pt.Text("ok"))
	if r := talaria(t, home, cwd, srv, "", "-p", "session B", "--yolo"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	b := sessionID(t, home, cwd)
	if a == b {
		t.Fatal("one session")
	}
	// A's rewind would undo B's work: refused.
	if rw := talaria(t, home, cwd, nil, "", "rewind", a, "--to", "1", "--code"); rw.code != 1 || !strings.Contains(rw.stdout, "a.txt") {
		t.Fatalf("rewind A: exit %d\n%s", rw.code, rw.stdout)
	}
	// B's own rewind goes back to A's version.
	if rw := talaria(t, home, cwd, nil, "", "rewind", b, "--to", "1", "--code"); rw.code != 0 {
		t.Fatalf("rewind B: exit %d\n%s", rw.code, rw.stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(got) != "from A\n" {
		t.Fatalf("a.txt = %q", got)
	}
}

// TestRewindKeepsAFileTheTurnUnignored: .gitignore holds .env; the model
// rewrites .gitignore without that line (auto-edit). .env existed before
// the turn: it is not "created", and the rewind must not delete it.
func TestRewindKeepsAFileTheTurnUnignored(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, home, ".talaria/config.yaml", "approvals: auto-edit\n", 0o644)
	writeFile(t, cwd, ".gitignore", ".env\n", 0o644)
	writeFile(t, cwd, ".env", "API_TOKEN=mine\n", 0o600)
	writeFile(t, cwd, "main.go", "package main\n", 0o644)
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":".gitignore","content":"node_modules/\n"}`}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "-p", "tidy the ignore file"); r.code != 0 {
		t.Fatalf("turn: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, ".gitignore")); string(b) != "node_modules/\n" {
		t.Fatalf("the turn did not run as scripted: .gitignore %q", b)
	}
	id := sessionID(t, home, cwd)
	ls := talaria(t, home, cwd, nil, "", "checkpoints", id, "--json")
	var turns []struct {
		Changes []struct{ Path, Kind string }
	}
	if err := json.Unmarshal([]byte(ls.stdout), &turns); err != nil || len(turns) != 1 {
		t.Fatalf("checkpoints --json: %v\n%s\n%s", err, ls.stdout, ls.stderr)
	}
	if got := fmt.Sprint(turns[0].Changes); got != "[{.gitignore changed}]" {
		t.Fatalf("turn 1 changes: %s (.env existed before the turn)", got)
	}
	rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code")
	if rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, ".env")); err != nil || string(b) != "API_TOKEN=mine\n" {
		t.Fatalf("the rewind took .env: %q %v\n%s", b, err, rw.stdout)
	}
	if st, _ := os.Stat(filepath.Join(cwd, ".env")); st.Mode().Perm() != 0o600 {
		t.Fatalf(".env mode %v", st.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, ".gitignore")); string(b) != ".env\n" {
		t.Fatalf(".gitignore not restored: %q", b)
	}
}

// TestRewindNeverChmodsThroughASymlinkTheTurnMade: the model replaces
// directory d (0777) by a symlink to a directory outside the tree (0700)
// and ignores d. The rewind brings d back as a directory and leaves the
// outside directory as it was.
func TestRewindNeverChmodsThroughASymlinkTheTurnMade(t *testing.T) {
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Chmod(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cwd, ".gitignore", "*.log\n", 0o644)
	writeFile(t, cwd, "d/f.txt", "inside\n", 0o644)
	if err := os.Chmod(filepath.Join(cwd, "d"), 0o777); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	cmd := fmt.Sprintf("rm -rf d && ln -s %s d && echo d >> .gitignore", outside)
	call, _ := json.Marshal(map[string]string{"command": cmd})
	srv.Push(pt.ToolCalls(pt.Call{ID: "t", Name: "terminal", Args: string(call)}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "-p", "swap d", "--yolo"); r.code != 0 {
		t.Fatalf("turn: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Lstat(filepath.Join(cwd, "d")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the turn did not run as scripted: %v %v", st, err)
	}
	id := sessionID(t, home, cwd)
	rw := talaria(t, home, cwd, nil, "", "rewind", id, "--to", "1", "--code")
	if st, err := os.Lstat(outside); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the rewind changed the directory outside the tree: %v %v\n%s", st.Mode(), err, rw.stdout)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the rewind wrote outside the tree: %v", ents)
	}
	if rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	st, err := os.Lstat(filepath.Join(cwd, "d"))
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o777 {
		t.Fatalf("d is not the directory it was: %v %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "d/f.txt")); err != nil || string(b) != "inside\n" {
		t.Fatalf("d/f.txt: %q %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, ".gitignore")); string(b) != "*.log\n" {
		t.Fatalf(".gitignore not restored: %q", b)
	}
}

// dirSize sums the sizes of the files below dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// TestCheckpointStoreIsPruned: five sessions one after another, each
// writing 3 MB of random bytes (and removing the previous file). With
// checkpoints.keep_sessions 2 the store is pruned as each session opens
// and stays at three files' worth; `talaria checkpoints prune` prunes to
// its flags, and a pruned session says so instead of failing.
func TestCheckpointStoreIsPruned(t *testing.T) {
	const runs, size = 5, 3_000_000
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, home, ".talaria/config.yaml", "checkpoints:\n  keep_sessions: 2\n", 0o644)
	store := filepath.Join(home, ".talaria", "checkpoints")
	srv := pt.New(t)
	var ids []string
	for i := range runs {
		cmd := fmt.Sprintf("head -c %d /dev/urandom > b%d.bin && rm -f b%d.bin", size, i, i-1)
		call, _ := json.Marshal(map[string]string{"command": cmd})
		srv.Push(pt.ToolCalls(pt.Call{ID: "t", Name: "terminal", Args: string(call)}), pt.Text("done"))
		if r := talaria(t, home, cwd, srv, "", "-p", fmt.Sprint("batch ", i), "--yolo"); r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		ids = append(ids, sessionID(t, home, cwd))
		if n := dirSize(t, store); n > 3*size+256<<10 {
			t.Fatalf("after run %d the store holds %d bytes (keep_sessions 2: at most three files' worth)", i, n)
		}
	}
	t.Logf("%d sessions of %d random bytes each, keep_sessions 2: store %d bytes (unpruned it would hold about %d)", runs, size, dirSize(t, store), runs*size)
	pr := talaria(t, home, cwd, nil, "", "checkpoints", "prune", "--keep-sessions", "1", "--json")
	var rep struct {
		BytesBefore int64    `json:"bytes_before"`
		BytesAfter  int64    `json:"bytes_after"`
		Pruned      []string `json:"pruned"`
		Kept        []string `json:"kept"`
	}
	if err := json.Unmarshal([]byte(pr.stdout), &rep); err != nil || pr.code != 0 {
		t.Fatalf("prune: exit %d %v\n%s\n%s", pr.code, err, pr.stdout, pr.stderr)
	}
	// (An older session whose last checkpoint a newer one shares is still
	// in the store in part, and listed again.)
	if fmt.Sprint(rep.Kept) != fmt.Sprint(ids[runs-1:]) || len(rep.Pruned) == 0 || rep.Pruned[0] != ids[runs-2] ||
		rep.BytesBefore-rep.BytesAfter < size {
		t.Fatalf("prune --keep-sessions 1: %+v (sessions %v)", rep, ids)
	}
	ls := talaria(t, home, cwd, nil, "", "checkpoints", ids[0])
	if ls.code != 0 || !strings.Contains(ls.stdout, "checkpoints pruned") {
		t.Fatalf("checkpoints of a pruned session: exit %d\n%s\n%s", ls.code, ls.stdout, ls.stderr)
	}
	rw := talaria(t, home, cwd, nil, "", "rewind", ids[0], "--to", "1", "--code")
	if rw.code == 0 || !strings.Contains(rw.stderr, "pruned") {
		t.Fatalf("code rewind of a pruned session: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	// The newest session still rewinds.
	if rw := talaria(t, home, cwd, nil, "", "rewind", ids[runs-1], "--to", "1", "--code"); rw.code != 0 {
		t.Fatalf("rewind of the kept session: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, fmt.Sprintf("b%d.bin", runs-2))); err != nil {
		t.Fatal("the kept session's rewind did not bring the previous file back")
	}
}
