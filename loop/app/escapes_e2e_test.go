package app_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	pt "talaria/providers/providertest"
)

const (
	osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"    // write the clipboard
	osc0  = "\x1b]0;owned\x1b\\"            // set the window title
	csi   = "\x1b[2J"                       // clear the screen
	evil  = osc52 + osc0 + csi + "\u009b1m" // and a C1 CSI
)

// scriptEscapes has the model use a tool name, invalid arguments and a
// provider error that all carry escape sequences, then answer with some.
func scriptEscapes(srv *pt.Server) {
	srv.Push(
		pt.Error(500, `{"error":{"message":"upstream broke `+strings.ReplaceAll(evil, "\x1b", `\u001b`)+`","type":"server_error"}}`, nil),
		pt.ToolCalls(
			pt.Call{Name: "read" + evil + "_file", Args: `{"path":"x"}`},
			pt.Call{Name: "read_file", Args: `{"path": "` + strings.ReplaceAll(evil, "\x1b", `\u001b`) + `", oops`},
		),
		pt.Text("answer "+strings.ReplaceAll(evil, "\x1b", "\x1b")+" end"),
	)
}

// Headless stderr never carries an escape, whatever the model, the tools
// or the provider put in their text; the answer on a pipe stays byte-exact.
func TestHeadlessStderrHasNoEscapes(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(home+"/.talaria", 0o755)
	os.WriteFile(home+"/.talaria/config.yaml", []byte("agent:\n  retry_base_delay: 1ms\n  retry_max_delay: 2ms\n"), 0o644)
	srv := pt.New(t)
	scriptEscapes(srv)
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %q", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stderr, "\x1b\u009b") {
		t.Fatalf("stderr carries an escape: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, "read_file") || !strings.Contains(r.stderr, "server_error") {
		t.Fatalf("stderr lost the progress: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "answer "+evil+" end") {
		t.Fatalf("the answer on a pipe was changed: %q", r.stdout)
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	return m, s
}

// On a terminal the answer is sanitised: nothing on stdout can write the
// clipboard or retitle the window.
func TestHeadlessAnswerOnATerminalIsSanitised(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("answer " + evil + " end"))
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(binary, "-p", "go")
	cmd.Env, cmd.Dir = env(home, srv), cwd
	cmd.Stdout = slave
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var out bytes.Buffer
	_, err := io.Copy(&out, master) // ends with EIO once the last writer is gone
	var pe *os.PathError
	if err != nil && !errors.As(err, &pe) {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, "answer ") || !strings.Contains(got, " end") || strings.ContainsAny(got, "\x1b\u009b") {
		t.Fatalf("terminal got %q", got)
	}
}
