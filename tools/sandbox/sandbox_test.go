package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools/sandbox/sandboxtest"
)

// TestMain lets the test binary serve as the sandbox helper, as the
// talaria binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == probeArg {
		os.Exit(probeMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// newOrSkip builds a sandbox, skipping where this machine cannot
// sandbox (the product refuses to start instead).
func newOrSkip(t testing.TB, cfg Config) *Sandbox {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return s
}

// runIn runs the shell script in the sandbox and returns its combined
// output and whether it exited 0.
func runIn(t testing.TB, s *Sandbox, dir, script string) (string, bool) {
	t.Helper()
	argv, err := s.Wrap([]string{"/bin/sh", "-c", script}, dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// tree makes a working directory with a .git and a nested repository, a
// $TALARIA_HOME inside it, and a directory beside it.
func tree(t *testing.T) (cwd, outside, home string) {
	// t.TempDir lies under /tmp, which workspace-write may write.
	base := sandboxtest.Scratch(t, ".sbx-test-")
	cwd, outside, home = filepath.Join(base, "cwd"), filepath.Join(base, "outside"), filepath.Join(base, "cwd", ".talaria")
	for _, d := range []string{cwd + "/.git/hooks", cwd + "/vendor/lib/.git", outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return cwd, outside, home
}

func TestWorkspaceWrite(t *testing.T) {
	cwd, outside, home := tree(t)
	s := newOrSkip(t, Config{Mode: WorkspaceWrite, Cwd: cwd, Protected: []string{home}})
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("talaria-sbx-%d", os.Getpid()))
	defer os.Remove(tmp)
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(cwd, "inside.txt"), true},
		{tmp, true},
		{filepath.Join(outside, "x"), false},
		{filepath.Join(cwd, ".git", "config"), false},
		{filepath.Join(cwd, ".git", "hooks", "x"), false},
		{filepath.Join(cwd, "vendor", "lib", ".git", "config"), false},
		{filepath.Join(home, "config.yaml"), false},
	} {
		out, ok := runIn(t, s, cwd, "echo x > "+c.path)
		_, err := os.Stat(c.path)
		if ok != c.ok || (err == nil) != c.ok {
			t.Errorf("write %s: ran ok=%v, exists=%v, want %v (%s)", c.path, ok, err == nil, c.ok, out)
		}
		if !c.ok && s.StoppedHint(out) == "" {
			t.Errorf("write %s: no hint for %q", c.path, out)
		}
	}
}

// TestEscapeAttempts: a detached child, a new session, and a new user
// namespace stay restricted.
func TestEscapeAttempts(t *testing.T) {
	cwd, outside, _ := tree(t)
	s := newOrSkip(t, Config{Mode: WorkspaceWrite, Cwd: cwd})
	for i, script := range []string{
		"setsid sh -c 'touch %s'",
		"nohup sh -c 'touch %s' >/dev/null 2>&1; sleep 0.2",
		"unshare -rm sh -c 'touch %s'",
	} {
		target := filepath.Join(outside, fmt.Sprintf("escaped%d", i))
		runIn(t, s, cwd, fmt.Sprintf(script, target))
		// A child left behind would be killed with the sandbox's PID
		// namespace; give it no chance to be mistaken for done.
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%q wrote outside the sandbox", script)
		}
	}
	// A detached child does not outlive the sandbox: its PID namespace
	// is emptied before the sandbox's first process is reaped, so once
	// the command returned, no process of it is left.
	// A sleep of its own length marks them (a shell may exec its last
	// command, dropping any other marker).
	marker := fmt.Sprintf("3600.%d", os.Getpid())
	runIn(t, s, cwd, "(setsid sleep "+marker+" &); (nohup sleep "+marker+" >/dev/null 2>&1 &); exit 0")
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			t.Errorf("a detached child outlived the sandbox: %s %q", p, b)
		}
	}
}

func TestReadOnly(t *testing.T) {
	cwd, _, _ := tree(t)
	s := newOrSkip(t, Config{Mode: ReadOnly, Cwd: cwd})
	if out, ok := runIn(t, s, cwd, "cat /etc/hostname >/dev/null && echo read"); !ok || !strings.Contains(out, "read") {
		t.Fatalf("read failed: %s", out)
	}
	for _, p := range []string{filepath.Join(cwd, "x"), filepath.Join(os.TempDir(), "talaria-ro-x")} {
		out, ok := runIn(t, s, cwd, "echo x > "+p)
		if _, err := os.Stat(p); ok || err == nil {
			os.Remove(p)
			t.Errorf("read-only sandbox wrote %s", p)
		}
		if !strings.Contains(s.StoppedHint(out), "read-only") {
			t.Errorf("hint for %q: %q", out, s.StoppedHint(out))
		}
	}
}

// TestNetwork: with the network off a TCP connect to a listener on this
// machine is refused; with it on it connects.
func TestNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash (for /dev/tcp) is not installed")
	}
	script := fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3'", port)
	cwd, _, _ := tree(t)
	off := newOrSkip(t, Config{Mode: WorkspaceWrite, Cwd: cwd})
	if out, ok := runIn(t, off, cwd, script); ok || strings.Contains(out, "hello") {
		t.Errorf("network off: connected: %s", out)
	} else if !strings.Contains(off.StoppedHint(out), "cut the network") {
		t.Errorf("network off: hint for %q: %q", out, off.StoppedHint(out))
	}
	on := newOrSkip(t, Config{Mode: WorkspaceWrite, Cwd: cwd, Network: true})
	if out, ok := runIn(t, on, cwd, script); !ok || !strings.Contains(out, "hello") {
		t.Errorf("network on: %v %s", ok, out)
	}
}

func TestProbeForcedFailure(t *testing.T) {
	t.Setenv(ProbeEnv, "fail")
	_, err := New(Config{Mode: WorkspaceWrite, Cwd: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "Landlock is unavailable") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(Config{Mode: "sometimes"}); err == nil {
		t.Fatal("a bad mode was accepted")
	}
}

// BenchmarkStartup compares running /bin/true in the sandbox with running
// it directly: the difference is the sandbox's start-up cost per command.
func BenchmarkStartup(b *testing.B) {
	cwd := b.TempDir()
	s := newOrSkip(b, Config{Mode: WorkspaceWrite, Cwd: cwd})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		argv, _ := s.Wrap([]string{"/bin/sh", "-c", "true"}, cwd)
		for b.Loop() {
			if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Without the seccomp filter: the difference is what the filter
	// costs a command.
	sockets := newOrSkip(b, Config{Mode: WorkspaceWrite, Cwd: cwd, AllowUnixSockets: true})
	b.Run("sandboxed-unix-sockets-allowed", func(b *testing.B) {
		argv, _ := sockets.Wrap([]string{"/bin/sh", "-c", "true"}, cwd)
		for b.Loop() {
			if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
