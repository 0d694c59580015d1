//go:build linux && (amd64 || arm64)

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// runArgv runs argv in the sandbox and returns its combined output and
// whether it exited 0.
func runArgv(t testing.TB, s *Sandbox, dir string, argv ...string) (string, bool) {
	t.Helper()
	w, err := s.Wrap(argv, dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(w[0], w[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// probe runs the test binary's probe in the sandbox (see probeMain).
func probe(t testing.TB, s *Sandbox, dir string, args ...string) (string, bool) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runArgv(t, s, dir, append([]string{exe, probeArg}, args...)...)
}

// greeter listens on the pathname stream socket path, outside any
// sandbox, and writes "hello" to each client, as a user's tmux server or
// ssh-agent would answer.
func greeter(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
}

// dgramSink listens on the pathname datagram socket path, outside any
// sandbox, and hands on what it receives.
func dgramSink(t *testing.T, path string) <-chan string {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	done := make(chan struct{})
	t.Cleanup(func() { c.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 256)
		for {
			n, _, err := c.ReadFromUnix(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
		}
	}()
	return got
}

// TestUnixSocketsRefused: a sandboxed command, in either mode, cannot
// reach a Unix socket a process outside the sandbox listens on — not
// through socket(2), not with AF_UNIX hidden in the low half of the
// argument, not by sending from a datagram socketpair, not through
// io_uring — and the result says why; stream and seqpacket socketpairs
// still work. With allow_unix_sockets the same connections go through.
func TestUnixSocketsRefused(t *testing.T) {
	cwd, outside, _ := tree(t)
	stream, dgram := filepath.Join(outside, "s.sock"), filepath.Join(outside, "d.sock")
	greeter(t, stream)
	got := dgramSink(t, dgram)
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		s := newOrSkip(t, Config{Mode: mode, Cwd: cwd})
		for _, p := range [][]string{{"dial", stream}, {"raw-dial", stream}, {"dgram-pair", dgram}} {
			out, ok := probe(t, s, cwd, p...)
			if ok || strings.Contains(out, "hello") {
				t.Errorf("%s: %v reached the socket outside: %s", mode, p, out)
			}
			if !strings.Contains(strings.ToLower(out), "address family not supported") {
				t.Errorf("%s: %v: not refused by the filter: %s", mode, p, out)
			}
			if h := s.StoppedHint(out); !strings.Contains(h, "Unix-domain socket") || !strings.Contains(h, "allow_unix_sockets") {
				t.Errorf("%s: %v: hint %q for %q", mode, p, h, out)
			}
		}
		if out, ok := probe(t, s, cwd, "uring"); ok || !strings.Contains(out, "function not implemented") {
			t.Errorf("%s: io_uring_setup: %v %s", mode, ok, out)
		}
		for _, p := range []string{"pairs", "other-sockets"} {
			if out, ok := probe(t, s, cwd, p); !ok {
				t.Errorf("%s: %s: %s", mode, p, out)
			}
		}
		if out, ok := runIn(t, s, cwd, "echo piped | cat | tr a-z A-Z"); !ok || !strings.Contains(out, "PIPED") {
			t.Errorf("%s: a pipeline: %v %s", mode, ok, out)
		}

		allowed := newOrSkip(t, Config{Mode: mode, Cwd: cwd, AllowUnixSockets: true})
		for _, p := range [][]string{{"dial", stream}, {"raw-dial", stream}} {
			if out, ok := probe(t, allowed, cwd, p...); !ok || !strings.Contains(out, `"hello\n"`) {
				t.Errorf("%s, allowed: %v: %s", mode, p, out)
			}
		}
		if out, ok := probe(t, allowed, cwd, "dgram-pair", dgram); !ok {
			t.Errorf("%s, allowed: dgram-pair: %s", mode, out)
		}
		select {
		case m := <-got:
			if m != "escaped\n" {
				t.Errorf("datagram %q", m)
			}
		case <-time.After(probeWait):
			t.Errorf("%s, allowed: no datagram arrived", mode)
		}
	}
	select {
	case m := <-got:
		t.Errorf("a refused sandbox sent a datagram: %q", m)
	default:
	}
}

// TestSocketEnvNotPassed: the variables that point at sockets outside do
// not reach sandboxed commands, unless Unix sockets are allowed.
func TestSocketEnvNotPassed(t *testing.T) {
	cwd, _, _ := tree(t)
	vars := map[string]string{"TMUX": "/tmp/tmux-0/default,1,0", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus", "DOCKER_HOST": "unix:///var/run/docker.sock", "XDG_RUNTIME_DIR": "/run/user/0", "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		for _, allow := range []bool{false, true} {
			s := newOrSkip(t, Config{Mode: mode, Cwd: cwd, AllowUnixSockets: allow})
			out, ok := runArgv(t, s, cwd, "env")
			if !ok {
				t.Fatalf("env: %s", out)
			}
			lines := strings.Split(out, "\n")
			for k, v := range vars {
				if has := slices.Contains(lines, k+"="+v); has != allow {
					t.Errorf("%s, allow_unix_sockets=%v: %s passed: %v", mode, allow, k, has)
				}
			}
		}
	}
}

// TestTmuxServerUnreachable is the reported escape: a tmux server of the
// user's, on a private socket, is asked to run a shell command outside
// the sandbox. Refused in both modes; allowed, it runs (the control).
func TestTmuxServerUnreachable(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	cwd, outside, _ := tree(t)
	sock := filepath.Join(outside, "tmux.sock")
	outsideEnv := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
	start := exec.Command(tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "talaria-test", "sleep 600")
	start.Env = outsideEnv
	if out, err := start.CombinedOutput(); err != nil {
		t.Skipf("cannot start a tmux server: %v %s", err, out)
	}
	t.Cleanup(func() {
		stop := exec.Command(tmux, "-S", sock, "kill-server")
		stop.Env = outsideEnv
		_ = stop.Run()
	})
	t.Setenv("TMUX", sock+",1,0")
	for i, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		escaped := filepath.Join(outside, "escaped"+string(rune('0'+i)))
		s := newOrSkip(t, Config{Mode: mode, Cwd: cwd})
		out, ok := runArgv(t, s, cwd, tmux, "-S", sock, "run-shell", "id > "+escaped)
		if _, err := os.Stat(escaped); err == nil || ok {
			t.Errorf("%s: tmux ran a command outside the sandbox (ok=%v): %s", mode, ok, out)
		}
		if !strings.Contains(s.StoppedHint(out), "Unix-domain socket") {
			t.Errorf("%s: hint %q for %q", mode, s.StoppedHint(out), out)
		}
		// With TMUX in the environment, and no -S, tmux would use it.
		out, ok = runArgv(t, s, cwd, tmux, "run-shell", "id > "+escaped)
		if _, err := os.Stat(escaped); err == nil || ok {
			t.Errorf("%s: tmux through $TMUX ran a command outside (ok=%v): %s", mode, ok, out)
		}
		allowed := newOrSkip(t, Config{Mode: mode, Cwd: cwd, AllowUnixSockets: true})
		out, ok = runArgv(t, allowed, cwd, tmux, "-S", sock, "run-shell", "id > "+escaped)
		if _, err := os.Stat(escaped); err != nil || !ok {
			t.Errorf("%s, allowed: the control did not reach tmux (ok=%v): %s", mode, ok, out)
		}
	}
}

// TestCompatABIRefused: on amd64 a 64-bit program can still make i386
// system calls (int 0x80), which a filter of the native calls alone would
// not examine: socket(AF_UNIX) through them ends the process. The control
// with the filter off shows the kernel does run such calls here.
func TestCompatABIRefused(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the i386 probe is amd64 code")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	// mmap a page of code: push rbx; mov eax,359 (i386 socket); mov
	// ebx,1 (AF_UNIX); mov ecx,1 (SOCK_STREAM); xor edx,edx; int 0x80;
	// pop rbx; ret — and print what it returned.
	script := `import ctypes, mmap
code = bytes([0x53, 0xb8,0x67,0x01,0,0, 0xbb,1,0,0,0, 0xb9,1,0,0,0, 0x31,0xd2, 0xcd,0x80, 0x5b, 0xc3])
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
print("i386 socket returned", f())
`
	cwd, _, _ := tree(t)
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		allowed := newOrSkip(t, Config{Mode: mode, Cwd: cwd, AllowUnixSockets: true})
		out, ok := runArgv(t, allowed, cwd, py, "-c", script)
		if !ok || !strings.Contains(out, "i386 socket returned") {
			t.Skipf("python cannot run the probe here: %s", out)
		}
		if strings.Contains(out, "returned -") {
			t.Skipf("this kernel runs no i386 calls: %s", out)
		}
		s := newOrSkip(t, Config{Mode: mode, Cwd: cwd})
		out, ok = runIn(t, s, cwd, py+" -c '"+script+"'")
		if ok || strings.Contains(out, "returned") {
			t.Errorf("%s: an i386 socket(AF_UNIX) went through: %s", mode, out)
		}
		if !strings.Contains(s.StoppedHint(out), "seccomp filter ended it") {
			t.Errorf("%s: hint %q for %q", mode, s.StoppedHint(out), out)
		}
	}
}

// TestSocketFilterAssembles: each filter assembles within the kernel's
// limit of 4096 instructions and sets no_new_privs.
func TestSocketFilterAssembles(t *testing.T) {
	fs, err := socketFilters()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		insts, err := f.Policy.Assemble()
		if err != nil {
			t.Fatal(err)
		}
		if len(insts) > 4096 {
			t.Errorf("filter %d: %d instructions, over the kernel's limit", i, len(insts))
		}
		if !f.NoNewPrivs {
			t.Errorf("filter %d: no_new_privs is not set", i)
		}
	}
}

// BenchmarkSocketFilters is what building the filters costs the helper
// once per command (loading them is one seccomp call each).
func BenchmarkSocketFilters(b *testing.B) {
	for b.Loop() {
		fs, err := socketFilters()
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			if _, err := f.Policy.Assemble(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
