package persist

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// checkBoltFile runs bbolt's own consistency check over the whole file.
func checkBoltFile(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		var errs []string
		for err := range tx.Check() {
			errs = append(errs, err.Error())
		}
		if len(errs) > 0 {
			return fmt.Errorf("bbolt check: %s", strings.Join(errs, "; "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKillNine kills a writing child process with SIGKILL at a random
// point, several times over the same file. After each kill the file opens
// cleanly and passes bbolt's check; every batch the child reported
// committed is there, whole; at most the one batch in flight is there
// beyond that, also whole; counters and the search index agree with the
// messages.
func TestKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess := mustCreate(t, s, &Session{Cwd: "/crash"})
	rng := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := range 6 {
		after := 1 + rng.IntN(60)
		jitter := time.Duration(rng.IntN(1500)) * time.Microsecond
		reported := killWriterAfter(t, path, sess.ID, after, jitter)
		got, err := s.Entries(sess.ID)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		// Rebuild the expected history batch by batch up to what is stored:
		// it must end on a batch boundary, at or just past the report.
		n, boundary := 0, 0
		for n < len(got) {
			first := n
			for k := range crashBatch(first) {
				if n == len(got) {
					t.Fatalf("round %d: batch at %d is half-written (%d of %d messages)", round, first, k, crashBatch(first))
				}
				want := crashMessage(first, k)
				if !reflect.DeepEqual(got[n].Message, want) || got[n].Seq != uint64(n+1) {
					t.Fatalf("round %d: message %d is %+v, want %+v", round, n, got[n], want)
				}
				n++
			}
			boundary = first
		}
		if len(got) < reported || (len(got) > reported && boundary != reported) {
			t.Fatalf("round %d: %d messages stored, %d reported committed", round, len(got), reported)
		}
		back, err := s.GetSession(sess.ID)
		if err != nil || back.MessageCount != len(got) {
			t.Fatalf("round %d: counter %d, %d messages (%v)", round, back.MessageCount, len(got), err)
		}
		checkBoltFile(t, path)
		verifyIndex(t, s)
		hits, err := s.SearchSessions(context.Background(), fmt.Sprintf("uniq%d", len(got)-1), 0, "")
		if err != nil || len(hits) != 1 || hits[0].Seq != uint64(len(got)) {
			t.Fatalf("round %d: search for the last message: %+v %v", round, hits, err)
		}
		t.Logf("round %d: killed %s after report %d; %d reported, %d stored", round, jitter, after, reported, len(got))
	}
}

// killWriterAfter runs a crash writer, SIGKILLs it once it has reported
// `after` commits (plus a jitter of well under one append, which spreads
// the kill over the phases of the transaction in flight), and returns the
// last message count it reported.
func killWriterAfter(t *testing.T, path, id string, after int, jitter time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := helperCmd(ctx, "crash-writer", "DB="+path, "SESSION="+id)
	lines, err := readLines(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reported, commits := -1, 0
	var killOnce sync.Once
	for line := range lines {
		var n int
		switch {
		case strings.HasPrefix(line, "ready "):
			_, err = fmt.Sscanf(line, "ready %d", &n)
		case strings.HasPrefix(line, "committed "):
			_, err = fmt.Sscanf(line, "committed %d", &n)
			commits++
		default:
			continue
		}
		if err != nil {
			t.Fatalf("child line %q: %v", line, err)
		}
		reported = n
		if commits >= after {
			killOnce.Do(func() {
				time.Sleep(jitter)
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("the crash writer hung")
	}
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !st.Signaled() || st.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v", err)
	}
	return reported
}

// TestThreeProcesses runs three writer processes at once on one state.db,
// each appending N messages to its own session and N to a shared one,
// while a fourth process lists and searches. Nothing is lost, counters are
// exact, each writer's order holds, and every process finishes in bounded
// time.
func TestThreeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const writers, n = 3, 120
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared := mustCreate(t, s, &Session{Cwd: "/shared"})
	own := make([]string, writers)
	for w := range own {
		own[w] = mustCreate(t, s, &Session{Cwd: fmt.Sprintf("/w%d", w)}).ID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	stop := filepath.Join(dir, "stop")
	type child struct {
		name  string
		cmd   *exec.Cmd
		lines <-chan string
	}
	var children []child
	start := func(name string, cmd *exec.Cmd) {
		lines, err := readLines(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, child{name, cmd, lines})
	}
	began := time.Now()
	start("reader", helperCmd(ctx, "mp-reader", "DB="+path, "STOP="+stop))
	for w := range writers {
		start(fmt.Sprint("writer", w), helperCmd(ctx, "mp-writer", "DB="+path, fmt.Sprint("NAME=", w),
			"OWN="+own[w], "SHARED="+shared.ID, fmt.Sprint("N=", n)))
	}
	wait := func(c child) {
		var report []string
		for line := range c.lines {
			report = append(report, line)
		}
		if err := c.cmd.Wait(); err != nil || ctx.Err() != nil {
			t.Fatalf("%s: %v (context: %v)", c.name, err, ctx.Err())
		}
		t.Logf("%s: %s", c.name, strings.Join(report, " | "))
	}
	for _, c := range children[1:] {
		wait(c)
	}
	writersDone := time.Since(began)
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wait(children[0])
	t.Logf("%d writers x %d appends finished in %s (%.0f appends/s overall)", writers, 2*n,
		writersDone.Round(time.Millisecond), float64(writers*2*n)/writersDone.Seconds())

	msgs, err := s.Messages(shared.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != writers*n {
		t.Fatalf("shared session has %d messages, want %d", len(msgs), writers*n)
	}
	next := map[string]int{}
	for _, m := range msgs {
		var w string
		var i int
		if _, err := fmt.Sscanf(m.Content, "writer%s shared %d", &w, &i); err != nil {
			t.Fatalf("%q: %v", m.Content, err)
		}
		if i != next[w] {
			t.Fatalf("writer %s: shared message %d out of order (want %d)", w, i, next[w])
		}
		next[w]++
	}
	for w, id := range own {
		msgs, err := s.Messages(id)
		if err != nil || len(msgs) != n {
			t.Fatalf("writer %d: %d messages, %v", w, len(msgs), err)
		}
		for i, m := range msgs {
			if want := fmt.Sprintf("writer%d own %d", w, i); m.Content != want {
				t.Fatalf("writer %d message %d: %q", w, i, m.Content)
			}
		}
	}
	list, err := s.ListSessions()
	if err != nil || len(list) != writers+1 {
		t.Fatalf("%d sessions, %v", len(list), err)
	}
	for _, sess := range list {
		want := n
		if sess.ID == shared.ID {
			want = writers * n
		}
		if sess.MessageCount != want || sess.ToolCallCount != want {
			t.Fatalf("session %s: counters %d/%d, want %d", sess.ID, sess.MessageCount, sess.ToolCallCount, want)
		}
	}
	hits, err := s.SearchSessions(context.Background(), "writer1 shared", 1000, "")
	if err != nil || len(hits) != n {
		t.Fatalf("search found %d of writer 1's shared messages: %v", len(hits), err)
	}
	checkBoltFile(t, path)
	verifyIndex(t, s)
}
