package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeManager returns a Manager whose .fk files go to the fake server in
// mode, and the pids it tracked.
func fakeManager(t *testing.T, mode string, wait time.Duration) (*Manager, string, *tracked) {
	t.Helper()
	dir := t.TempDir()
	tr := &tracked{live: map[int]bool{}}
	m := New(Options{
		Servers: []ServerConfig{{Name: "fake", Command: []string{os.Args[0]}, Filetypes: []string{"fk"}, RootMarkers: []string{"fk.mod"}}},
		Wait:    wait, MaxDiagnostics: 3, Cwd: dir,
		Environ: append(os.Environ(), fakeEnv+"="+mode),
		Track:   tr.track,
	})
	t.Cleanup(func() { m.Close() })
	return m, dir, tr
}

type tracked struct {
	mu   sync.Mutex
	all  []int
	live map[int]bool
}

func (tr *tracked) track(pgid int) func() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.all = append(tr.all, pgid)
	tr.live[pgid] = true
	return func() {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		delete(tr.live, pgid)
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckReportsTheEditsDiagnosticsThenNoneAfterTheFix(t *testing.T) {
	m, dir, tr := fakeManager(t, "ok", time.Minute)
	p := write(t, dir, "a.fk", "fine\nWARN later\nx ERR first\n")
	r := m.Check(context.Background(), p)
	if len(r.Notes) > 0 {
		t.Fatalf("notes: %v", r.Notes)
	}
	text := r.Text()
	want := "a.fk:3:3: error: x ERR first\na.fk:2:3: warning: WARN later"
	if !strings.Contains(text, want) || !strings.HasPrefix(text, "Diagnostics (fake): 2, 1 of them errors:") {
		t.Fatalf("report:\n%s\nwant errors first:\n%s", text, want)
	}
	// The same error kept and a new one: the old one is marked.
	write(t, dir, "a.fk", "y ERR second\nx ERR first\n")
	r = m.Check(context.Background(), "a.fk")
	if len(r.Diagnostics) != 2 || r.Diagnostics[0].Existing || r.Diagnostics[0].Message != "y ERR second" || !r.Diagnostics[1].Existing {
		t.Fatalf("diagnostics after the second edit: %+v", r.Diagnostics)
	}
	if got := m.Current(""); len(got) != 2 {
		t.Fatalf("Current: %+v", got)
	}
	write(t, dir, "a.fk", "fixed\n")
	r = m.Check(context.Background(), p)
	if r.Text() != "Diagnostics (fake): none." {
		t.Fatalf("after the fix: %q", r.Text())
	}
	if len(tr.all) != 1 {
		t.Fatalf("one server per root, got %d starts", len(tr.all))
	}
	pid := tr.all[0]
	m.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the server (pid %d) outlived Close: %v", pid, err)
	}
	if len(tr.live) != 0 {
		t.Fatalf("the reaper still tracks %v", tr.live)
	}
	if r := m.Check(context.Background(), p); len(r.Diagnostics) != 0 || len(r.Notes) != 1 {
		t.Fatalf("a check after Close: %+v", r)
	}
}

func TestCheckCapsTheDiagnosticsErrorsFirst(t *testing.T) {
	m, dir, _ := fakeManager(t, "noversion", time.Minute)
	p := write(t, dir, "b.fk", "WARN a\nWARN b\nERR 1\nERR 2\nERR 3\n")
	r := m.Check(context.Background(), p)
	if len(r.Diagnostics) != 3 || r.Omitted != 2 || r.Diagnostics[2].Severity != SeverityError {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.Text(), "5, 3 of them errors") || !strings.HasSuffix(r.Text(), "... and 2 more") {
		t.Fatalf("%s", r.Text())
	}
}

func TestOneServerPerRoot(t *testing.T) {
	m, dir, tr := fakeManager(t, "ok", time.Minute)
	for _, d := range []string{"x", "y"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, d), "fk.mod", "")
	}
	r := m.Check(context.Background(), write(t, dir, "x/a.fk", "ERR"), write(t, dir, "y/a.fk", "ERR"), write(t, dir, "x/b.fk", "ok"))
	if len(r.Diagnostics) != 2 || len(tr.all) != 2 {
		t.Fatalf("%+v, %d servers", r, len(tr.all))
	}
}

func TestAHangingServerNeverFailsTheEdit(t *testing.T) {
	m, dir, _ := fakeManager(t, "hang", 300*time.Millisecond)
	r := m.Check(context.Background(), write(t, dir, "a.fk", "ERR"))
	if len(r.Notes) != 1 || !(strings.Contains(r.Notes[0], "did not publish them within 300ms") || strings.Contains(r.Notes[0], "still starting")) {
		t.Fatalf("%+v", r)
	}
	// Close does not hang on it either (it answers shutdown).
	m.Close()
}

func TestACrashedServerRestartsAtMostThreeTimes(t *testing.T) {
	m, dir, tr := fakeManager(t, "crash", time.Minute)
	p := write(t, dir, "a.fk", "CRASH")
	for i := range 4 {
		r := m.Check(context.Background(), p)
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "stopped") {
			t.Fatalf("check %d: %+v", i, r)
		}
	}
	r := m.Check(context.Background(), p)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "not started again") {
		t.Fatalf("fifth check: %+v", r)
	}
	if len(tr.all) != 1+MaxRestarts {
		t.Fatalf("%d starts, want %d", len(tr.all), 1+MaxRestarts)
	}
}

func TestAMissingServerIsSaidOncePerLanguage(t *testing.T) {
	dir := t.TempDir()
	m := New(Options{Cwd: dir, LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	defer m.Close()
	p := write(t, dir, "a.go", "package a\n")
	r := m.Check(context.Background(), p)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "gopls not on PATH") {
		t.Fatalf("%+v", r)
	}
	if r := m.Check(context.Background(), p); r.Text() != "" {
		t.Fatalf("second time: %q", r.Text())
	}
	if r := m.Check(context.Background(), write(t, dir, "a.txt", "x")); r.Text() != "" {
		t.Fatalf("a file no server checks: %q", r.Text())
	}
}
