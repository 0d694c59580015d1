package checkpoint

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// randomBatch writes n files of size random bytes under root/batch<i>
// (random: nothing compresses or dedupes).
func randomBatch(t testing.TB, root string, i, n, size int) {
	t.Helper()
	for j := range n {
		b := make([]byte, size)
		rand.Read(b)
		p := filepath.Join(root, fmt.Sprintf("batch%d", i), fmt.Sprintf("f%d.bin", j))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// storeSize is the checkpoint store's size on disk.
func storeSize(t testing.TB, s *Store) int64 {
	t.Helper()
	n, err := dirBytes(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// allBlobsThere fails when a manifest names a missing object.
func allBlobsThere(t *testing.T, s *Store, id string) {
	t.Helper()
	m, err := s.Load(id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	for _, e := range m.Entries {
		if e.Blob != "" && !s.hasBlob(e.Blob) {
			t.Fatalf("checkpoint %s names missing blob of %s", id, e.Path)
		}
	}
}

// TestPruneBoundsTheStore: 8 sessions, one after another in one tree,
// each a batch of 4 MiB of new random files (the tree keeps growing and
// the files are removed again by the next batch). Pruned after each with
// keep_sessions 2, the store holds about two sessions' worth; unpruned
// it holds all eight.
func TestPruneBoundsTheStore(t *testing.T) {
	const batches, files, size = 8, 4, 1 << 20
	s, root := setup(t)
	unpruned := Open(t.TempDir())
	var sessions []Session
	var peak int64
	at := time.Now()
	for i := range batches {
		os.RemoveAll(filepath.Join(root, fmt.Sprintf("batch%d", i-1)))
		randomBatch(t, root, i, files, size)
		m := take(t, s, root)
		take(t, unpruned, root)
		at = at.Add(time.Second)
		sessions = append(sessions, Session{ID: fmt.Sprintf("s%d", i), Checkpoints: []string{m.ID}, Last: at})
		rep, err := s.Prune(context.Background(), sessions, Limits{KeepSessions: 2}, false)
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, rep.BytesAfter)
		if i >= 2 && !reflect.DeepEqual(rep.Pruned, []string{fmt.Sprintf("s%d", i-2)}) {
			t.Fatalf("batch %d pruned %v", i, rep.Pruned)
		}
		allBlobsThere(t, s, m.ID)
	}
	bound := int64(2*files*size) + 64<<10 // two sessions' files, plus listings
	if peak > bound {
		t.Fatalf("the store reached %s with keep_sessions 2 (bound %s)", Bytes(peak), Bytes(bound))
	}
	un := storeSize(t, unpruned)
	if un < int64(batches*files*size) {
		t.Fatalf("unpruned store %s: the batches did not land", Bytes(un))
	}
	t.Logf("%d batches of %s: unpruned store %s, pruned (keep_sessions 2) at most %s", batches, Bytes(files*size), Bytes(un), Bytes(peak))

	// max_bytes alone: the newest sessions that fit in 5 MiB (one).
	rep, err := s.Prune(context.Background(), sessions, Limits{MaxBytes: 5 << 20}, false)
	if err != nil || !reflect.DeepEqual(rep.Kept, []string{"s7"}) || rep.BytesAfter > 5<<20 {
		t.Fatalf("max_bytes prune: %v %+v", err, rep)
	}
}

// TestPruneKeepsLiveSessionsAndSaysSo: a live session over both limits
// keeps every checkpoint, with a note; the dead one's go and free bytes;
// what the live one may rewind to still restores, and the next
// checkpoint stores again what the pruned one alone held.
func TestPruneKeepsLiveSessionsAndSaysSo(t *testing.T) {
	s, root := setup(t)
	randomBatch(t, root, 0, 2, 256<<10)
	dead := take(t, s, root)
	os.RemoveAll(filepath.Join(root, "batch0"))
	randomBatch(t, root, 1, 2, 256<<10)
	live1 := take(t, s, root)
	want := treeOf(t, root)
	randomBatch(t, root, 2, 2, 256<<10)
	live2 := take(t, s, root)
	sessions := []Session{
		{ID: "dead", Checkpoints: []string{dead.ID}, Last: time.Now().Add(time.Hour)}, // newer, but dead
		{ID: "live", Checkpoints: []string{live1.ID, live2.ID}, Last: time.Now(), Live: true},
	}
	// Dry first: nothing goes.
	before := storeSize(t, s)
	rep, err := s.Prune(context.Background(), sessions, Limits{KeepSessions: 1, MaxBytes: 1 << 10}, true)
	if err != nil || storeSize(t, s) != before || !reflect.DeepEqual(rep.Pruned, []string{"dead"}) {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	rep, err = s.Prune(context.Background(), sessions, Limits{KeepSessions: 1, MaxBytes: 1 << 10}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Kept, []string{"live"}) || !reflect.DeepEqual(rep.Live, []string{"live"}) ||
		!reflect.DeepEqual(rep.Pruned, []string{"dead"}) {
		t.Fatalf("report: %+v", rep)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "live") || !strings.Contains(rep.Notes[0], "max_bytes") {
		t.Fatalf("notes: %q", rep.Notes)
	}
	if freed := rep.BytesBefore - rep.BytesAfter; freed < 512<<10 {
		t.Fatalf("freed %s, want the dead session's 512 KiB", Bytes(freed))
	}
	t.Logf("dead session pruned: store %s -> %s", Bytes(rep.BytesBefore), Bytes(rep.BytesAfter))
	if _, err := s.Load(dead.ID); err == nil {
		t.Fatal("the dead session's checkpoint is still there")
	}
	allBlobsThere(t, s, live1.ID)
	allBlobsThere(t, s, live2.ID)
	r, err := s.Restore(context.Background(), live1, live2, false)
	if err != nil || !r.OK() || !reflect.DeepEqual(treeOf(t, root), want) {
		t.Fatalf("restore after prune: %v %+v", err, r)
	}
	// batch0 back as it was (the stat cache forgot its pruned blobs: they
	// are read and stored again, not assumed there).
	randomBatch(t, root, 0, 1, 1<<10)
	allBlobsThere(t, s, take(t, s, root).ID)
}

// TestPruneWaitsForTheLock: a checkpoint in progress holds the store;
// a prune gives up with ErrBusy when its context ends first.
func TestPruneWaitsForTheLock(t *testing.T) {
	s, root := setup(t)
	take(t, s, root)
	release, err := s.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Prune(ctx, nil, Limits{KeepSessions: 1}, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("prune under a held lock: %v", err)
	}
}
