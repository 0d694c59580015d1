package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory, or skips the
// test where that is not allowed (not root, no mount namespace rights).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); the full-store test needs root", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file on dir until the file system is full, then frees
// keep bytes.
func fill(t *testing.T, dir string, keep int64) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	st, _ := f.Stat()
	if err := f.Truncate(st.Size() - keep); err != nil {
		t.Fatal(err)
	}
}

// A store that cannot be written (the disk under $TALARIA_HOME is full)
// is loud in plain mode: the answer is still printed, stderr says the
// turn was not saved, and the exit status is 1.
func TestFullStoreIsLoud(t *testing.T) {
	mnt := mountTmpfs(t, "4m")
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("first answer"))
	e := append(env(home, srv), "TALARIA_HOME="+mnt)
	run := func(args ...string) run {
		cmd := exec.Command(binary, args...)
		cmd.Env, cmd.Dir = e, cwd
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return run{out.String(), errb.String(), code}
	}
	if r := run("-p", "hello"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	fill(t, mnt, 32<<10)
	big := strings.Repeat("an answer too big for the disk ", 40_000) // ~1.2 MB
	srv.Push(pt.Text(big))
	r := run("-c", "-p", "again")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != strings.TrimSpace(big) {
		t.Fatalf("the answer was not printed (%d bytes)", len(r.stdout))
	}
	if !strings.Contains(r.stderr, "warning: saving messages") || !strings.Contains(r.stderr, "not fully saved") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	t.Logf("stderr: %s", r.stderr)
}
