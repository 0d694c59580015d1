// Command streamcpu measures what streaming a long answer costs the whole
// talaria process, TUI against headless, as issue 31 measured it: a
// scripted OpenAI-compatible server streams an answer in 24-byte chunks
// 1 ms apart; the TUI runs in tmux at 120×40, the same stream runs
// headless (-p). For each run it reports the process's CPU (utime+stime),
// how long after the stream's end the answer's last line is on the screen
// (TUI) or the process has exited (headless), and, in the TUI, the key
// echo: how long a letter typed during the stream takes to appear.
//
// It lives under testdata so that go test ./... and go vet leave it
// alone; run it by hand on a quiet machine:
//
//	go build -o /tmp/talaria . && go run ./ui/testdata/streamcpu -bin /tmp/talaria \
//	    -runs 5 ui/testdata/answers/11-review-43k.md ui/testdata/answers/12-review-86k.md
//
// tmux must be installed. Nothing leaves the machine: the server listens
// on 127.0.0.1 and the binary's home is a temporary directory.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Settings of the measurement, from the issue.
const (
	chunkBytes = 24
	chunkGap   = time.Millisecond
	// runLimit bounds one run: start, the stream, and the last line.
	runLimit = 60 * time.Second
	// clkTck is the kernel's clock tick for /proc/PID/stat (USER_HZ,
	// 100 on every Linux that Go supports).
	clkTck = 100
)

// Settings from the command line: perfOut, when set (-perf), runs the
// TUI under perf record; show (-show) prints the pane once the last line
// is on it; paneWidth and paneHeight (-size) are the pane's size.
var (
	perfOut               string
	show                  bool
	paneWidth, paneHeight = 120, 40
)

func main() {
	bin := flag.String("bin", "", "the talaria binary to measure (required)")
	runs := flag.Int("runs", 5, "runs per answer and mode")
	mode := flag.String("mode", "both", "tui | headless | both")
	keys := flag.Bool("keys", true, "in the TUI, type a letter every 150 ms during the stream and time its echo")
	flag.StringVar(&perfOut, "perf", "", "profile the TUI with perf record into this file (its CPU figure is then perf's)")
	flag.BoolVar(&show, "show", false, "print the TUI's pane once the answer's last line is on it")
	size := flag.String("size", "120x40", "the TUI pane's size, COLSxROWS")
	flag.Parse()
	if _, err := fmt.Sscanf(*size, "%dx%d", &paneWidth, &paneHeight); err != nil || paneWidth < 20 || paneHeight < 10 {
		fmt.Fprintln(os.Stderr, "streamcpu: -size wants COLSxROWS, at least 20x10")
		os.Exit(2)
	}
	if *bin == "" || flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: streamcpu -bin TALARIA [-runs N] [-mode tui|headless|both] ANSWER.md...")
		os.Exit(2)
	}
	if err := measure(*bin, *runs, *mode, *keys, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "streamcpu:", err)
		os.Exit(1)
	}
}

// result is one run's figures.
type result struct {
	cpu  time.Duration   // the process's utime+stime
	lag  time.Duration   // last line on screen (TUI) or exit (headless) after the stream's end
	echo []time.Duration // key echo latencies (TUI)
}

func measure(bin string, runs int, mode string, keys bool, answers []string) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load before: %s", load)
	}
	for _, path := range answers {
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name := filepath.Base(path)
		var head, tui []result
		for i := 0; i < runs; i++ {
			if mode == "both" || mode == "headless" {
				r, err := runHeadless(abs, string(text))
				if err != nil {
					return fmt.Errorf("%s headless: %w", name, err)
				}
				head = append(head, r)
			}
			if mode == "both" || mode == "tui" {
				r, err := runTUI(abs, string(text), keys)
				if err != nil {
					return fmt.Errorf("%s tui: %w", name, err)
				}
				tui = append(tui, r)
			}
		}
		report(name, len(text), "headless", head)
		report(name, len(text), "tui", tui)
		if len(head) > 0 && len(tui) > 0 {
			fmt.Printf("%s: TUI/headless CPU (medians) %.2f×\n", name,
				float64(median(cpus(tui)))/float64(median(cpus(head))))
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load after: %s", load)
	}
	return nil
}

func cpus(rs []result) []time.Duration {
	out := make([]time.Duration, len(rs))
	for i, r := range rs {
		out[i] = r.cpu
	}
	return out
}

func report(name string, size int, mode string, rs []result) {
	if len(rs) == 0 {
		return
	}
	var lags, echo []time.Duration
	var each []string
	for _, r := range rs {
		lags = append(lags, r.lag)
		echo = append(echo, r.echo...)
		each = append(each, fmt.Sprintf("%.0f", ms(r.cpu)))
	}
	lagName := "exit after stream end"
	if mode == "tui" {
		lagName = "last line after stream end"
	}
	fmt.Printf("%s %s (%d bytes, %d runs): CPU median %.0f ms (%s) = %.2f ms/KB; %s median %.0f ms",
		name, mode, size, len(rs), ms(median(cpus(rs))), strings.Join(each, " "),
		ms(median(cpus(rs)))/(float64(size)/1024), lagName, ms(median(lags)))
	if len(echo) > 0 {
		fmt.Printf("; key echo median %.0f ms, max %.0f ms over %d keys", ms(median(echo)), ms(maxOf(echo)), len(echo))
	}
	fmt.Println()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// server is the scripted provider: every chat completion streams text.
type server struct {
	text  string
	srv   *http.Server
	url   string
	mu    sync.Mutex
	start chan struct{} // closed when the first chunk is sent
	end   time.Time     // when the last chunk was sent
	done  chan struct{} // closed then
}

func newServer(text string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{text: text, url: "http://" + ln.Addr().String() + "/v1",
		start: make(chan struct{}), done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *server) close() { _ = s.srv.Close() }

func chunk(delta map[string]any, finish any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion.chunk", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	return append(append([]byte("data: "), b...), '\n', '\n')
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 16<<20))
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		http.Error(w, "one answer per run", http.StatusTooManyRequests)
		return
	default:
	}
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(b []byte) bool {
		if _, err := w.Write(b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	if !send(chunk(map[string]any{"role": "assistant"}, nil)) {
		return
	}
	close(s.start)
	t0 := time.Now()
	for i, n := 0, 0; i < len(s.text); i, n = i+chunkBytes, n+1 {
		if d := time.Until(t0.Add(time.Duration(n) * chunkGap)); d > 0 {
			time.Sleep(d)
		}
		if !send(chunk(map[string]any{"content": s.text[i:min(len(s.text), i+chunkBytes)]}, nil)) {
			return
		}
	}
	send(chunk(map[string]any{}, "stop"))
	send([]byte("data: [DONE]\n\n"))
	s.end = time.Now()
	close(s.done)
}

// setup starts the server streaming text and makes a home for one run,
// its environment pointing talaria at the server; cleanup undoes both.
func setup(text string) (s *server, dir string, env []string, cleanup func(), err error) {
	if s, err = newServer(text); err != nil {
		return nil, "", nil, nil, err
	}
	if dir, env, err = home(); err != nil {
		s.close()
		return nil, "", nil, nil, err
	}
	env = append(env, "OPENAI_BASE_URL="+s.url)
	return s, dir, env, func() { s.close(); os.RemoveAll(dir) }, nil
}

// home makes a talaria home and working directory for one run.
func home() (dir string, env []string, err error) {
	dir, err = os.MkdirTemp("", "streamcpu-")
	if err != nil {
		return "", nil, err
	}
	for _, d := range []string{".talaria", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", nil, err
		}
	}
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TALARIA_HOME=" + filepath.Join(dir, ".talaria"),
		"TERM=xterm-256color", "COLORTERM=truecolor", "OPENAI_API_KEY=sk-streamcpu"}
	return dir, env, nil
}

func runHeadless(bin, text string) (result, error) {
	s, dir, env, cleanup, err := setup(text)
	if err != nil {
		return result{}, err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "review the service module")
	cmd.Env = env
	cmd.Dir = filepath.Join(dir, "work")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%v: %s", err, errb.String())
	}
	exit := time.Now()
	select {
	case <-s.done:
	default:
		return result{}, errors.New("the process ended before the stream did")
	}
	if !strings.Contains(out.String(), lastLine(text)) {
		return result{}, fmt.Errorf("the answer's last line is not in the output (%d bytes)", out.Len())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return result{}, errors.New("no rusage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return result{cpu: cpu, lag: exit.Sub(s.end)}, nil
}

// lastLine is the answer's last non-blank line, as text on the screen.
func lastLine(text string) string {
	ls := strings.Split(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}

// tmux runs tmux on the run's private socket.
type tmux struct{ sock string }

func (t tmux) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", t.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
	}
	return string(out), nil
}

func (t tmux) capture() string {
	out, _ := t.run("capture-pane", "-p", "-t", "m")
	return out
}

// waitFor polls the pane every step until ok holds, up to limit.
func (t tmux) waitFor(limit, step time.Duration, ok func(string) bool) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		if ok(t.capture()) {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("not on screen after %v; the pane:\n%s", limit, t.capture())
		}
		time.Sleep(step)
	}
}

// procCPU is a live process's utime+stime from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("bad /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	// After the command: state is field 3; utime and stime are 14 and 15.
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad utime/stime")
	}
	return time.Duration(u+st) * time.Second / clkTck, nil
}

func runTUI(bin, text string, keys bool) (result, error) {
	s, dir, env, cleanup, err := setup(text)
	if err != nil {
		return result{}, err
	}
	defer cleanup()
	t := tmux{sock: filepath.Join(dir, "tmux.sock")}
	argv := []string{"new-session", "-d", "-s", "m", "-x", strconv.Itoa(paneWidth), "-y", strconv.Itoa(paneHeight),
		"-c", filepath.Join(dir, "work")}
	for _, e := range env {
		argv = append(argv, "-e", e)
	}
	if perfOut != "" {
		argv = append(argv, "exec perf record -q -g -F 2000 -o "+perfOut+" -- "+bin)
	} else {
		argv = append(argv, "exec "+bin)
	}
	if _, err := t.run(argv...); err != nil {
		return result{}, err
	}
	defer func() { _, _ = t.run("kill-server") }()
	out, err := t.run("display-message", "-p", "-t", "m", "#{pane_pid}")
	if err != nil {
		return result{}, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return result{}, fmt.Errorf("pane pid %q: %v", out, err)
	}
	// The composer is up when the status line shows the model.
	if _, err := t.waitFor(20*time.Second, 20*time.Millisecond, func(p string) bool {
		return strings.Contains(p, "openai/")
	}); err != nil {
		return result{}, err
	}
	if _, err := t.run("send-keys", "-t", "m", "-l", "review the service module"); err != nil {
		return result{}, err
	}
	if _, err := t.run("send-keys", "-t", "m", "Enter"); err != nil {
		return result{}, err
	}
	select {
	case <-s.start:
	case <-time.After(20 * time.Second):
		return result{}, fmt.Errorf("no request came; the pane:\n%s", t.capture())
	}
	var echo []time.Duration
	if keys {
		echo, err = typeDuring(t, s.done)
		if err != nil {
			return result{}, err
		}
	}
	select {
	case <-s.done:
	case <-time.After(runLimit):
		return result{}, errors.New("the stream did not end")
	}
	last := lastLine(text)
	seen, err := t.waitFor(runLimit, 5*time.Millisecond, func(p string) bool { return strings.Contains(p, last) })
	if err != nil {
		return result{}, err
	}
	cpu, err := procCPU(pid)
	if err != nil {
		return result{}, err
	}
	if show {
		fmt.Print(t.capture())
	}
	if perfOut != "" {
		stopPerf(pid)
	}
	return result{cpu: cpu, lag: seen.Sub(s.end), echo: echo}, nil
}

// stopPerf ends perf record (SIGINT, so it writes its file) and waits,
// up to 20 s, for it to exit.
func stopPerf(pid int) {
	_ = syscall.Kill(pid, syscall.SIGINT)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
	}
}

// typeDuring types a letter every 150 ms until done closes and times
// each one's echo: until the composer's line shows every letter typed.
func typeDuring(t tmux, done <-chan struct{}) ([]time.Duration, error) {
	var out []time.Duration
	typed := ""
	for {
		select {
		case <-done:
			return out, nil
		case <-time.After(150 * time.Millisecond):
		}
		typed += "q"
		sent := time.Now()
		if _, err := t.run("send-keys", "-t", "m", "-l", "q"); err != nil {
			return nil, err
		}
		at, err := t.waitFor(10*time.Second, 2*time.Millisecond, func(p string) bool {
			return strings.Contains(p, "│ "+typed+" ")
		})
		if err != nil {
			return nil, err
		}
		out = append(out, at.Sub(sent))
		if len(typed) >= 40 {
			// Clear the composer (ctrl+u) so the line never wraps.
			if _, err := t.run("send-keys", "-t", "m", "C-u"); err != nil {
				return nil, err
			}
			typed = ""
		}
	}
}
