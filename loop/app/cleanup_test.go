package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/loop"
	"talaria/loop/app"
	"talaria/loop/config"
	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// childProcesses lists this process's children (pid and state), zombies
// included: a child not reaped is a leak too.
func childProcesses(t *testing.T) []string {
	t.Helper()
	self := strconv.Itoa(os.Getpid())
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := string(raw)[strings.LastIndexByte(string(raw), ')')+1:]
		f := strings.Fields(rest)
		if len(f) >= 2 && f[1] == self {
			out = append(out, e.Name()+" "+f[0])
		}
	}
	return out
}

// openFiles lists this process's open file descriptors and what they name.
func openFiles(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	out := map[string]string{}
	for _, e := range ents {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		out[e.Name()] = target
	}
	return out
}

// leftovers compares what runs and is open now with before, waiting
// (bounded) for what the cleanup ends asynchronously to go.
func leftovers(t *testing.T, fds map[string]string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		kids, now := childProcesses(t), openFiles(t)
		var extra []string
		for fd, target := range now {
			if _, ok := fds[fd]; !ok {
				extra = append(extra, fd+" -> "+target)
			}
		}
		if len(kids) == 0 && len(extra) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a failed Open left child processes %v and open files %v", kids, extra)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// failingOpenFixture is a home with a stdio MCP server configured (this
// test binary, see TestMain) and a provider, and the flags of a headless
// Open (which waits for the MCP server to be up).
func failingOpenFixture(t *testing.T, extraConfig string) (app.Flags, string) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	cmd, _ := json.Marshal(os.Args[0])
	writeConfig(t, home, "mcp_servers:\n  probe:\n    command: "+string(cmd)+"\n    args: [\"-test.run=^$\"]\n"+
		"    env: {"+mcptest.EnvServer+": \"1\"}\n    startup_timeout: 60s\n"+extraConfig)
	talariaHome := filepath.Join(home, ".talaria")
	f := app.Flags{Home: talariaHome, Cwd: cwd, Headless: true,
		Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1", Yolo: true}}
	return f, talariaHome
}

// TestFailedOpenReleasesWhatItStarted fails Open at steps after the MCP
// server started (the --record file cannot be created; the OTLP endpoint
// is not a URL) and checks that nothing is left: no child process (the
// MCP server), no open file, no lease, no session record.
func TestFailedOpenReleasesWhatItStarted(t *testing.T) {
	if len(childProcesses(t)) != 0 {
		t.Skip("this test process already has children")
	}
	cases := map[string]struct {
		config string
		flags  func(*app.Flags)
		want   string
	}{
		"record": {flags: func(f *app.Flags) { f.Record = filepath.Join(t.TempDir(), "no-such-dir", "run.jsonl") }, want: "--record"},
		"otlp":   {config: "telemetry:\n  otlp_endpoint: \"::not a url\"\n", flags: func(*app.Flags) {}, want: "otlp"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, home := failingOpenFixture(t, c.config)
			c.flags(&f)
			// A first failure warms what the runtime opens once (epoll,
			// the resolver), so the second is measured alone.
			if _, err := app.Open(context.Background(), f, func(loop.Event) {}); err == nil {
				t.Fatal("Open succeeded")
			}
			leftovers(t, openFiles(t))
			fds := openFiles(t)
			s, err := app.Open(context.Background(), f, func(loop.Event) {})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(strings.ToLower(err.Error()), c.want) {
				t.Fatalf("Open failed with %v, want the %s step's error", err, c.want)
			}
			leftovers(t, fds)
			st, err := app.OpenStore(home)
			if err != nil {
				t.Fatal(err)
			}
			if busy, err := app.BusySessions(st); err != nil || len(busy) != 0 {
				t.Fatalf("leases left: %v %v", busy, err)
			}
			if list, err := st.ListSessions(); err != nil || len(list) != 0 {
				t.Fatalf("a failed Open left %d session record(s): %v", len(list), err)
			}
		})
	}
}

// TestOpenOnALockedStoreLeavesNothing holds state.db's lock as another
// process would: Open fails with the store's error and leaves no process
// and no open file.
func TestOpenOnALockedStoreLeavesNothing(t *testing.T) {
	if len(childProcesses(t)) != 0 {
		t.Skip("this test process already has children")
	}
	f, home := failingOpenFixture(t, "")
	if _, err := app.OpenStore(home); err != nil { // the file exists, at the current schema
		t.Fatal(err)
	}
	s, err := app.Open(context.Background(), f, func(loop.Event) {}) // warms up what the runtime opens once
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	f.Continue = true // resume it: the lease is the step that needs the store
	db, err := bolt.Open(filepath.Join(home, "state.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fds := openFiles(t)
	_, err = app.Open(context.Background(), f, func(loop.Event) {})
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("Open on a locked store: %v", err)
	}
	leftovers(t, fds)
	_ = db.Close()
}
