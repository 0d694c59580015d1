package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchTree writes n small source-like files in directories of 100 and
// dates them an hour back (older than the racy window, as a real tree's
// files are).
func benchTree(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%03d.go", i%100))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package pkg\n\n// File %d.\nfunc F%d() int { return %d }\n", i, i, i*i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// storeBytes sums the sizes of the files in the store.
func storeBytes(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// changeFiles rewrites files [from, from+k) of a benchTree with new
// contents dated in the past (distinct per round).
func changeFiles(b *testing.B, root string, from, k, round int) {
	b.Helper()
	when := time.Now().Add(-time.Hour + time.Duration(round)*time.Millisecond)
	for i := from; i < from+k; i++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%03d.go", i%100))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package pkg\n// round %d\n", round)), 0o644); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(p, when, when)
	}
}

// BenchmarkTakeUnchanged20k is a checkpoint of an unchanged 20,000-file
// tree with a warm stat cache: no file is read.
func BenchmarkTakeUnchanged20k(b *testing.B) {
	root := benchTree(b, 20000)
	s := Open(b.TempDir())
	if _, err := s.Take(context.Background(), root); err != nil {
		b.Fatal(err)
	}
	before := storeBytes(b, s.dir)
	n := 0
	for b.Loop() {
		if _, err := s.Take(context.Background(), root); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(storeBytes(b, s.dir)-before)/float64(n), "store-B/op")
}

// BenchmarkTake10Changed20k is a checkpoint of the 20,000-file tree after
// 10 files changed; store-B/op is how much the store grew per checkpoint.
func BenchmarkTake10Changed20k(b *testing.B) {
	root := benchTree(b, 20000)
	s := Open(b.TempDir())
	if _, err := s.Take(context.Background(), root); err != nil {
		b.Fatal(err)
	}
	before := storeBytes(b, s.dir)
	round := changeAndTake(b, s, root)
	b.ReportMetric(float64(storeBytes(b, s.dir)-before)/float64(round), "store-B/op")
}

// BenchmarkTakeCold20k is the first checkpoint of a 20,000-file tree:
// every file read, hashed and stored.
func BenchmarkTakeCold20k(b *testing.B) {
	root := benchTree(b, 20000)
	for b.Loop() {
		b.StopTimer()
		s := Open(b.TempDir())
		b.StartTimer()
		if _, err := s.Take(context.Background(), root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestore1000Changed is a rewind of 1,000 changed files (of a
// 5,000-file tree) back to their checkpoint, the checkpoint of the tree
// before the restore included.
func BenchmarkRestore1000Changed(b *testing.B) {
	root := benchTree(b, 5000)
	s := Open(b.TempDir())
	target, err := s.Take(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		changeFiles(b, root, 0, 1000, round)
		latest, err := s.Take(context.Background(), root)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := s.Restore(context.Background(), target, latest, false)
		if err != nil || !rep.OK() || len(rep.Restored) != 1000 {
			b.Fatalf("restore: %v %d restored", err, len(rep.Restored))
		}
	}
}

// BenchmarkTake10Changed20kWatched is BenchmarkTake10Changed20k with the
// store watching the tree: the checkpoint lists again only the
// directories file events name (the first checkpoint and the one
// verification walk happen before the timer).
func BenchmarkTake10Changed20kWatched(b *testing.B) {
	root := benchTree(b, 20000)
	s := Open(b.TempDir())
	w := s.Watch(root, WatchOptions{})
	defer w.Close()
	for round := range 2 { // the first checkpoint, then the verified one
		changeFiles(b, root, 0, 10, -1-round)
		if _, err := s.Take(context.Background(), root); err != nil {
			b.Fatal(err)
		}
	}
	before := storeBytes(b, s.dir)
	round := changeAndTake(b, s, root)
	b.StopTimer()
	if st := w.Stats(); st.Stopped != "" || st.Events != round+1 {
		b.Fatalf("not taken from events: %+v", st)
	}
	b.ReportMetric(float64(storeBytes(b, s.dir)-before)/float64(round), "store-B/op")
}

// changeAndTake is the timed part of the 10-changed benchmarks: per
// round, 10 files of root change (untimed), then a checkpoint; it returns
// the number of rounds.
func changeAndTake(b *testing.B, s *Store, root string) int {
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		changeFiles(b, root, (round*10)%19990, 10, round)
		b.StartTimer()
		if _, err := s.Take(context.Background(), root); err != nil {
			b.Fatal(err)
		}
	}
	return round
}
