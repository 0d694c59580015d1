package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// procGoneWithin waits up to d for pid to be gone (or a zombie).
func procGoneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		info, err := readProc(pid)
		if err != nil || info.zombie {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startGroup starts `sh -c script` in its own process group and returns
// its pid.
func startGroup(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd
}

// A run file left by a dead owner is cleaned up at start: the group's
// members and a descendant that left the group die; a live owner's file
// and a group whose id was reused are left alone.
func TestCleanupOrphansKillsWhatADeadOwnerLeft(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	dir := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The leader, a member, and an escapee in its own session.
	leader := startGroup(t, `sleep 300 & setsid sh -c 'echo $$ > `+fifo+`; exec sleep 300' & wait`)
	escapee := readPid(t, fifo)
	start, err := procStart(leader.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// A dead owner: a process that has exited.
	dead := exec.Command("true")
	_ = dead.Run()
	content := "owner " + strconv.Itoa(dead.Process.Pid) + " 1\ngroup " + strconv.Itoa(leader.Process.Pid) + " " + strconv.FormatUint(start, 10) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "x.groups"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	// A live owner (this process) listing the same group: left alone.
	selfStart, _ := procStart(os.Getpid())
	live := "owner " + strconv.Itoa(os.Getpid()) + " " + strconv.FormatUint(selfStart, 10) + "\ngroup 1 0\n"
	if err := os.WriteFile(filepath.Join(dir, "live.groups"), []byte(live), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := CleanupOrphans(dir)
	if err != nil || n < 3 {
		t.Fatalf("killed %d, %v", n, err)
	}
	_ = leader.Wait()
	if !procGoneWithin(escapee, 5*time.Second) {
		t.Fatal("the descendant that left the group survived")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.groups")); !os.IsNotExist(err) {
		t.Fatal("the dead owner's run file is still there")
	}
	if _, err := os.Stat(filepath.Join(dir, "live.groups")); err != nil {
		t.Fatal("a live owner's run file was removed")
	}
}

// A group whose id now belongs to a different process (its leader started
// at another time) is not touched.
func TestReusedGroupIDIsLeftAlone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	g := startGroup(t, "sleep 300")
	start, _ := procStart(g.Process.Pid)
	if n := killGroupTree(g.Process.Pid, start+1); n != 0 {
		t.Fatalf("signalled %d processes of a group with another start time", n)
	}
	if procGoneWithin(g.Process.Pid, 0) {
		t.Fatal("the process died")
	}
}

// Track and release keep the run file in step; Close kills what is left.
func TestReaperTrackReleaseClose(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	dir := t.TempDir()
	r := NewReaper(dir, nil)
	a, b := startGroup(t, "sleep 300"), startGroup(t, "sleep 300")
	relA := r.Track(a.Process.Pid)
	r.Track(b.Process.Pid)
	files, _ := filepath.Glob(filepath.Join(dir, "*.groups"))
	if len(files) != 1 {
		t.Fatalf("run files: %v", files)
	}
	_, groups, err := readRunFile(files[0])
	if err != nil || len(groups) != 2 {
		t.Fatalf("groups %v %v", groups, err)
	}
	relA()
	if _, groups, _ = readRunFile(files[0]); len(groups) != 1 {
		t.Fatalf("after release: %v", groups)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_ = b.Wait()
	if !b.ProcessState.Exited() && b.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("b: %v", b.ProcessState)
	}
	if procGoneWithin(a.Process.Pid, 0) {
		t.Fatal("a released group was killed")
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatal("the run file is still there after Close")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("123 (bash) S 1 123 123 0 -1 4194560 1 2 0 0 0 0 0 0 20 0 1 0 4242 1000 10 0 0")
	f.Add("7 (a) b) c) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseStat(1, s)
		if err == nil && p.pid != 1 {
			t.Fatal("pid changed")
		}
	})
}
