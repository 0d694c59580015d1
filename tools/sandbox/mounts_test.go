package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// metaOf is the metadata the sandbox must not change outside its roots.
type metaOf struct {
	mode     os.FileMode
	uid, gid uint32
	mtime    time.Time
}

func statMeta(t *testing.T, p string) metaOf {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return metaOf{fi.Mode(), st.Uid, st.Gid, fi.ModTime()}
}

// metaScripts change a file's metadata only: Landlock does not restrict
// them, the read-only mount of / does.
var metaScripts = []string{"chmod 000 %s", "chown 1:1 %s", "touch -d 2001-02-03 %s", "chmod 0777 $(dirname %s)"}

// TestMetadataOutsideRoots: chmod, chown and touch -d on a file outside
// the writable roots fail in both modes and leave it as it was, with a
// result that says the sandbox stopped them; inside the working directory
// they work in workspace-write, and not in read-only.
func TestMetadataOutsideRoots(t *testing.T) {
	cwd, outside, _ := tree(t)
	victim, mine := filepath.Join(outside, "victim"), filepath.Join(cwd, "mine")
	for _, p := range []string{victim, mine} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, dirBefore := statMeta(t, victim), statMeta(t, outside)
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		s := newOrSkip(t, Config{Mode: mode, Cwd: cwd})
		for _, sc := range metaScripts {
			script := strings.ReplaceAll(sc, "%s", victim)
			out, ok := runIn(t, s, cwd, script)
			if ok {
				t.Errorf("%s: %q succeeded outside the roots", mode, script)
			}
			if s.StoppedHint(out) == "" {
				t.Errorf("%s: %q: no hint for %q", mode, script, out)
			}
		}
		if after := statMeta(t, victim); after != before {
			t.Errorf("%s: the file outside changed: %+v, was %+v", mode, after, before)
		}
		if after := statMeta(t, outside); after.mode != dirBefore.mode {
			t.Errorf("%s: the directory outside changed: %v, was %v", mode, after.mode, dirBefore.mode)
		}
		mineBefore := statMeta(t, mine)
		script, wantUID := "chmod 0600 "+mine+" && touch -d 2001-02-03 "+mine, mineBefore.uid
		if os.Geteuid() == 0 {
			script, wantUID = script+" && chown 1:1 "+mine, 1
		}
		_, ok := runIn(t, s, cwd, script)
		mineAfter := statMeta(t, mine)
		switch mode {
		case ReadOnly:
			if ok || mineAfter != mineBefore {
				t.Errorf("read-only: metadata changed inside the working directory: %+v", mineAfter)
			}
		case WorkspaceWrite:
			if !ok || mineAfter.mode.Perm() != 0o600 || mineAfter.uid != wantUID || mineAfter.mtime.Year() != 2001 {
				t.Errorf("workspace-write: metadata inside the working directory: ok=%v %+v", ok, mineAfter)
			}
		}
	}
}

// TestProtectedStayReadOnlyUnderRoots: the read-only binds of .git still
// sit on top of a writable root, now that the roots are bound read-write
// over a read-only /.
func TestProtectedStayReadOnlyUnderRoots(t *testing.T) {
	cwd, _, home := tree(t)
	cfg := filepath.Join(cwd, ".git", "config")
	if err := os.WriteFile(cfg, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := statMeta(t, cfg)
	s := newOrSkip(t, Config{Mode: WorkspaceWrite, Cwd: cwd, Protected: []string{home}})
	for _, script := range []string{"chmod 000 " + cfg, "touch -d 2001-02-03 " + cfg, "touch " + home + "/x", "mkdir " + cwd + "/vendor/lib/.git/x"} {
		if out, ok := runIn(t, s, cwd, script); ok {
			t.Errorf("%q succeeded: %s", script, out)
		}
	}
	if statMeta(t, cfg) != before {
		t.Error(".git/config changed")
	}
}

// TestRelativeTMPDIRRefused: workspace-write lets commands write in
// $TMPDIR; a relative one (TMPDIR=.) would be resolved against each
// command's own directory and make wherever it runs writable. New refuses
// it, naming TMPDIR; read-only does not use it and starts.
func TestRelativeTMPDIRRefused(t *testing.T) {
	cwd, outside, _ := tree(t)
	newOrSkip(t, Config{Mode: ReadOnly, Cwd: cwd})
	for _, tmp := range []string{".", "tmp", "./x/.."} {
		t.Setenv("TMPDIR", tmp)
		s, err := New(Config{Mode: WorkspaceWrite, Cwd: cwd})
		if err == nil {
			// What it let happen: a command run elsewhere writes there.
			target := filepath.Join(outside, "escaped")
			runIn(t, s, outside, "echo x > "+target)
			if _, serr := os.Stat(target); serr == nil {
				os.Remove(target)
				t.Errorf("TMPDIR=%s made %s writable", tmp, outside)
			}
			t.Fatalf("TMPDIR=%s: New accepted it", tmp)
		}
		if !strings.Contains(err.Error(), "TMPDIR") || !strings.Contains(err.Error(), "absolute") {
			t.Errorf("TMPDIR=%s: %v", tmp, err)
		}
		if _, err := New(Config{Mode: ReadOnly, Cwd: cwd}); err != nil {
			t.Errorf("read-only with TMPDIR=%s: %v", tmp, err)
		}
	}
	for _, bad := range []Config{
		{Mode: WorkspaceWrite, Cwd: "rel"},
		{Mode: WorkspaceWrite, Cwd: cwd, WritableRoots: []string{"rel"}},
		{Mode: WorkspaceWrite, Cwd: cwd, Protected: []string{"rel"}},
	} {
		t.Setenv("TMPDIR", "")
		if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "absolute") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
