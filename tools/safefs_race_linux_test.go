//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// raceCase is one tool call the race test makes again and again: a write
// through "d/…" that the approver allows while d is a real directory.
type raceCase struct {
	name string
	tool Tool
	args map[string]any
}

// raceCases are write_file, patch in replace mode and each V4A operation
// (add, update, delete, move) on files below d.
func raceCases() []raceCase {
	v4a := func(body string) map[string]any {
		return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "*** End Patch\n"}
	}
	return []raceCase{
		{"write_file", WriteFileTool{}, map[string]any{"path": "d/config", "content": "[core]\n\tfsmonitor = payload\n"}},
		{"patch_replace", PatchTool{}, map[string]any{"mode": "replace", "path": "d/config", "old_string": "x = 1", "new_string": "x = 2"}},
		{"v4a_update", PatchTool{}, v4a("*** Update File: d/config\n@@\n-x = 1\n+x = 3\n")},
		{"v4a_add", PatchTool{}, v4a("*** Add File: d/new\n+planted\n")},
		{"v4a_delete", PatchTool{}, v4a("*** Delete File: d/victim\n")},
		{"v4a_move", PatchTool{}, v4a("*** Update File: d/config\n*** Move to: d/moved\n@@\n-x = 1\n+x = 4\n")},
	}
}

// raceFixture (re)writes the files every case starts from in dir: config
// holding "x = 1", victim, and neither new nor moved.
func raceFixture(t *testing.T, write func(name, content string) error, remove func(name string) error) {
	t.Helper()
	for name, content := range map[string]string{"config": "x = 1\n", "victim": "v\n"} {
		if err := write(name, content); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"new", "moved"} {
		if err := remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// raceLanded reports whether a call changed the target directory: config
// changed or gone, victim gone, new or moved created.
func raceLanded(target string) bool {
	if b, err := os.ReadFile(filepath.Join(target, "config")); err != nil || string(b) != "x = 1\n" {
		return true
	}
	if _, err := os.Lstat(filepath.Join(target, "victim")); err != nil {
		return true
	}
	for _, name := range []string{"new", "moved"} {
		if _, err := os.Lstat(filepath.Join(target, name)); err == nil {
			return true
		}
	}
	return false
}

// TestWriteToolsRaceSymlinkSwap is the approval race of issue 29 item 2: a
// goroutine swaps a real directory d with a symlink (renameat2
// RENAME_EXCHANGE) pointing at .git, or outside the working directory,
// while write_file, patch and every V4A operation write "d/…" again and
// again, each call first put to the approver (auto-edit, headless) as the
// loop does. No call may change .git or the outside directory: the
// approval was about d, so the write must land in d or nowhere.
func TestWriteToolsRaceSymlinkSwap(t *testing.T) {
	const maxCalls, wantAllowed = 1000, 100
	for _, into := range []string{"git", "outside"} {
		for _, rc := range raceCases() {
			t.Run(into+"/"+rc.name, func(t *testing.T) {
				root := t.TempDir()
				proj := filepath.Join(root, "proj")
				target := filepath.Join(proj, ".git")
				linkTo := ".git"
				if into == "outside" {
					target = filepath.Join(root, "outside")
					linkTo = "../outside"
				}
				for _, d := range []string{filepath.Join(proj, "d"), filepath.Join(proj, ".git"), target} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				writeT := func(name, c string) error { return os.WriteFile(filepath.Join(target, name), []byte(c), 0o644) }
				removeT := func(name string) error { return os.Remove(filepath.Join(target, name)) }
				raceFixture(t, writeT, removeT)
				link := filepath.Join(proj, "dlink")
				if err := os.Symlink(linkTo, link); err != nil {
					t.Fatal(err)
				}
				// The real directory keeps its inode across the swaps:
				// a Root on it refreshes its files wherever it is.
				real, err := os.OpenRoot(filepath.Join(proj, "d"))
				if err != nil {
					t.Fatal(err)
				}
				defer real.Close()
				writeR := func(name, c string) error { return real.WriteFile(name, []byte(c), 0o644) }
				raceFixture(t, writeR, real.Remove)
				if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(proj, "d"), unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
					t.Skipf("renameat2 RENAME_EXCHANGE is not supported here: %v", err)
				}

				var stop atomic.Bool
				var swaps atomic.Int64
				done := make(chan error, 1)
				go func() {
					for !stop.Load() {
						if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(proj, "d"), unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
							done <- err
							return
						}
						swaps.Add(1)
					}
					done <- nil
				}()
				a := NewApprover(ApprovalAutoEdit, nil)
				a.Cwd, a.Home = proj, filepath.Join(root, "home")
				env := &Env{Cwd: proj, Home: a.Home}
				raw, err := json.Marshal(rc.args)
				if err != nil {
					t.Fatal(err)
				}
				landed, allowed, calls, wrote := 0, 0, 0, 0
				for ; calls < maxCalls && allowed < wantAllowed; calls++ {
					raceFixture(t, writeR, real.Remove)
					ok, _ := a.Check(context.Background(), rc.tool.Name(), string(raw))
					if !ok {
						continue
					}
					allowed++
					if r := rc.tool.Run(context.Background(), env, raw); !r.IsError {
						wrote++
					}
					if raceLanded(target) {
						landed++
						raceFixture(t, writeT, removeT)
					}
				}
				stop.Store(true)
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("swapper: %v", err)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("the swapper did not stop within 30s")
				}
				t.Logf("%d calls, %d allowed, %d succeeded, %d swaps, %d landed in %s", calls, allowed, wrote, swaps.Load(), landed, into)
				if swaps.Load() == 0 || wrote == 0 {
					t.Fatalf("the race did not run: %d swaps, %d calls allowed, %d succeeded", swaps.Load(), allowed, wrote)
				}
				if landed > 0 {
					t.Errorf("%d of %d approved %s calls on d/… changed %s", landed, allowed, rc.name, target)
				}
			})
		}
	}
}
