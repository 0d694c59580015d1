package app_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"talaria/persist"
	"talaria/providers"
	pt "talaria/providers/providertest"
)

// TestLongSessionMemory measures the whole process's peak memory on a
// 10,000-message session (issue 31 goal 4): the TUI opened on it with
// -r ID in tmux at 120×40 until its first frame shows the session, and a
// headless resume of it (-r ID -p) for comparison. It is a measurement,
// not a check: it runs only when TALARIA_MEMORY_BENCH is set (to the
// number of runs; 5 when not a number) and logs the median, minimum and
// maximum of VmHWM (peak RSS), with RssAnon and RssFile at the first
// frame, so a change can report before and after figures:
//
//	TALARIA_MEMORY_BENCH=5 go test -run TestLongSessionMemory -v ./loop/app
//
// TALARIA_MEMORY_HOME=DIR builds the session there and keeps it;
// TALARIA_MEMORY_BINARY=PATH measures that binary instead (another
// commit's build, for a before figure).
func TestLongSessionMemory(t *testing.T) {
	runs := 0
	if v := os.Getenv("TALARIA_MEMORY_BENCH"); v == "" {
		t.Skip("a measurement: set TALARIA_MEMORY_BENCH=N to run it N times")
	} else if n, err := strconv.Atoi(v); err == nil && n > 0 {
		runs = n
	} else {
		runs = 5
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if other := os.Getenv("TALARIA_MEMORY_BINARY"); other != "" {
		defer func(b string) { binary = b }(binary)
		binary = other
	}
	home, cwd := t.TempDir(), t.TempDir()
	if keep := os.Getenv("TALARIA_MEMORY_HOME"); keep != "" {
		home = keep // kept after the test, to profile by hand
	}
	id, size := longSession(t, filepath.Join(home, ".talaria", "state.db"), cwd, 10_000)
	t.Logf("session %s: 10,000 messages, %.1f MiB of content", id, float64(size)/(1<<20))
	// Compression off: the headless turn is then the one call (its
	// summary call would be a second).
	if err := os.WriteFile(filepath.Join(home, ".talaria", "config.yaml"), []byte("compression:\n  enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)

	var tui, tuiAnon, tuiFile, headless []float64
	for i := range runs {
		st := tuiPeak(t, home, cwd, srv, id, i)
		tui, tuiAnon, tuiFile = append(tui, st.hwm), append(tuiAnon, st.anon), append(tuiFile, st.file)
		srv.Push(pt.Text("ok"))
		headless = append(headless, headlessPeak(t, home, cwd, srv, id))
	}
	t.Logf("TUI open, peak RSS (VmHWM): %s", stats(tui))
	t.Logf("TUI open, RssAnon at first frame: %s", stats(tuiAnon))
	t.Logf("TUI open, RssFile at first frame: %s", stats(tuiFile))
	t.Logf("headless resume -p, peak RSS (ru_maxrss): %s", stats(headless))
}

// procMem is what /proc/PID/status says of a process, in MiB.
type procMem struct{ hwm, anon, file float64 }

// tuiPeak opens the TUI on session id in tmux and reads its memory once
// the first frame shows the session's last message.
func tuiPeak(t *testing.T, home, cwd string, srv *pt.Server, id string, run int) procMem {
	t.Helper()
	name := fmt.Sprintf("talaria-mem-%d-%d", time.Now().UnixNano(), run)
	env := strings.Join(quoteAll(env(home, srv)), " ")
	cmd := fmt.Sprintf("cd %s && exec env -i %s TERM=xterm-256color NO_COLOR=1 %s -r %s", cwd, env, binary, id)
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() }()
	out, err := exec.Command("tmux", "display-message", "-p", "-t", name, "#{pane_pid}").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(out))
	deadline := time.Now().Add(60 * time.Second)
	for {
		screen, _ := exec.Command("tmux", "capture-pane", "-p", "-t", name).Output()
		if strings.Contains(string(screen), "resumed session") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the TUI never showed the session:\n%s", screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	return procMem{hwm: statusMiB(status, "VmHWM"), anon: statusMiB(status, "RssAnon"), file: statusMiB(status, "RssFile")}
}

// headlessPeak runs one headless turn on session id and returns the
// process's peak RSS in MiB.
func headlessPeak(t *testing.T, home, cwd string, srv *pt.Server, id string) float64 {
	t.Helper()
	cmd := exec.Command(binary, "-r", id, "-p", "one more question")
	cmd.Env, cmd.Dir = env(home, srv), cwd
	if r := runCmd(t, cmd); r.code != 0 {
		t.Fatalf("headless resume exited %d: %s", r.code, r.stderr)
	}
	return float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
}

// statusMiB reads one "Name:   N kB" line of /proc/PID/status.
func statusMiB(status []byte, name string) float64 {
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// stats formats the median, minimum and maximum of xs.
func stats(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("median %.1f MiB (min %.1f, max %.1f, %d runs)", s[len(s)/2], s[0], s[len(s)-1], len(s))
}

// longSession stores an n-message session shaped like real work: a
// question, a tool call, its result (1–6 KB of code or command output, 3 KB on average)
// and a markdown answer, over and over. It returns the id and the bytes
// of content stored.
func longSession(t *testing.T, path, cwd string, n int) (string, int) {
	t.Helper()
	st, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess := &persist.Session{Cwd: cwd, Provider: "openai", Model: "test-model"}
	if err := st.CreateSession(sess); err != nil {
		t.Fatal(err)
	}
	size := 0
	var batch []persist.Entry
	for i := 0; i < n; i++ {
		m := longSessionMessage(i)
		size += len(m.Content) + len(m.Reasoning)
		for _, c := range m.ToolCalls {
			size += len(c.Arguments)
		}
		// With its turn number, as talaria saves a turn's messages.
		batch = append(batch, persist.Entry{Message: m, Turn: i/4 + 1})
		if len(batch) == 500 || i == n-1 {
			if err := st.AppendEntries(sess.ID, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return sess.ID, size
}

// longSessionMessage is message i of longSession.
func longSessionMessage(i int) providers.Message {
	g := i / 4
	switch i % 4 {
	case 0:
		return providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf(
			"Step %d: the parser still rejects input %d with a trailing comma; look at parser.go and the tests, then fix it without changing the public API.", g, g)}
	case 1:
		name, args := "read_file", fmt.Sprintf(`{"path":"internal/parser/parser_%d.go"}`, g%40)
		if g%3 == 1 {
			name, args = "terminal", fmt.Sprintf(`{"command":"go test ./internal/parser/... -run TestParse%d -v"}`, g)
		}
		return providers.Message{Role: providers.RoleAssistant, Content: "Let me look at that first.",
			ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("call_%d", g), Name: name, Arguments: args}}}
	case 2:
		var b strings.Builder
		lines := 12 + (g*37)%60 // 1–6 KB
		for l := range lines {
			fmt.Fprintf(&b, "%4d\tfunc (p *Parser) parseField%d(tok Token) (Node, error) { return p.expect(tok, %d) }\n", l+1, l, g)
		}
		return providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("call_%d", g), Content: b.String()}
	default:
		return providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf(
			"## What I found (%d)\n\nThe parser **fails** because `parseList` consumes the trailing comma and then expects another element.\n\n"+
				"- `parseList` now stops at a comma followed by `]`\n- the error names the position of the stray token\n- tests cover `[1,]` and `[1,,2]`\n\n"+
				"```go\nfunc (p *Parser) parseList%d() ([]Node, error) {\n\tvar out []Node\n\tfor !p.at(']') {\n\t\tn, err := p.parseValue()\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\tout = append(out, n)\n\t\tif !p.accept(',') {\n\t\t\tbreak\n\t\t}\n\t}\n\treturn out, p.expect(']')\n}\n```\n\n"+
				"| case | before | after |\n|---|---|---|\n| `[1,]` | error | `[1]` |\n| `[1,,2]` | panic | error at 4 |\n", g, g)}
	}
}

// quoteAll quotes each NAME=VALUE for the shell.
func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		out[i] = "'" + strings.ReplaceAll(e, "'", `'\''`) + "'"
	}
	return out
}
