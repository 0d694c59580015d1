package app

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The log rotates at its size: talaria.log and talaria.log.1 each stay
// under the cap, no third file appears, and the newest lines are kept.
func TestLogRotatesAtItsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "talaria.log")
	l := &logFile{path: path, max: 4096}
	for i := range 1000 {
		l.write(fmt.Sprintf("line %04d %s", i, strings.Repeat("x", 40)))
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatal("no talaria.log.1 after writing past the cap")
	}
	if len(cur) > 4096 || len(old) > 4096 {
		t.Errorf("sizes %d and %d, cap 4096", len(cur), len(old))
	}
	if !strings.Contains(string(cur), "line 0999 ") {
		t.Error("the newest line is not in talaria.log")
	}
	if all := string(old) + string(cur); !strings.Contains(all, "line 0950 ") {
		t.Error("the last lines before the rotation are lost")
	}
	if m, _ := filepath.Glob(path + "*"); len(m) != 2 {
		t.Errorf("files %v", m)
	}
}

// Writers in several processes share one log (here: several loggers of
// one file, each opening it on its own, as processes do): lines never
// mix, and no file passes the cap.
func TestLogSharedByWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "talaria.log")
	var wg sync.WaitGroup
	for w := range 4 {
		l := &logFile{path: path, max: 8192}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				l.write(fmt.Sprintf("writer %d line %03d %s", w, i, strings.Repeat("y", 30)))
			}
		}()
	}
	wg.Wait()
	line := regexp.MustCompile(`^\S+ writer \d line \d{3} y{30}$`)
	for _, f := range []string{path, path + ".1"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 8192 {
			t.Errorf("%s: %d bytes, cap 8192", f, len(b))
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !line.MatchString(l) {
				t.Fatalf("%s: mixed line %q", f, l)
			}
		}
	}
}

// A line longer than logLineCap is cut.
func TestLogLineCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "talaria.log")
	l := &logFile{path: path, max: logMaxBytes}
	l.write(strings.Repeat("z", 3*logLineCap))
	b, _ := os.ReadFile(path)
	if len(b) > logLineCap+100 || !strings.HasSuffix(string(b), "… [line cut]\n") {
		t.Errorf("%d bytes: %q", len(b), b[len(b)-20:])
	}
}
