package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardTree builds root/proj (the working directory) with a .git
// directory, root/outside and root/home ($TALARIA_HOME), each holding a
// file "config" with "x = 1", and returns the three directories.
func guardTree(t *testing.T) (proj, outside, home string) {
	t.Helper()
	root := t.TempDir()
	proj, outside, home = filepath.Join(root, "proj"), filepath.Join(root, "outside"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(proj, ".git"), outside, home} {
		writeFiles(t, d, map[string]string{"config": "x = 1\n"})
	}
	return proj, outside, home
}

// guardCall runs tool in proj with $TALARIA_HOME home.
func guardCall(t *testing.T, tool Tool, proj, home string, args map[string]any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), &Env{Cwd: proj, Home: home}, raw)
}

// untouched fails the test unless dir holds exactly the file config with
// "x = 1" (nothing written, nothing created or removed).
func untouched(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "config" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only config", dir, names)
	}
	if got := readBack(t, filepath.Join(dir, "config")); got != "x = 1\n" {
		t.Errorf("%s/config = %q, want it unchanged", dir, got)
	}
}

// guardedCalls are write_file, patch in replace mode and each V4A
// operation on files below the directory d.
func guardedCalls(d string) []raceCase {
	v4a := func(body string) map[string]any {
		return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "*** End Patch\n"}
	}
	return []raceCase{
		{"write_file", WriteFileTool{}, map[string]any{"path": d + "/config", "content": "planted\n"}},
		{"write_file_new", WriteFileTool{}, map[string]any{"path": d + "/hooks/pre-commit", "content": "planted\n"}},
		{"patch_replace", PatchTool{}, map[string]any{"mode": "replace", "path": d + "/config", "old_string": "x = 1", "new_string": "x = 2"}},
		{"v4a_update", PatchTool{}, v4a("*** Update File: " + d + "/config\n@@\n-x = 1\n+x = 3\n")},
		{"v4a_add", PatchTool{}, v4a("*** Add File: " + d + "/new\n+planted\n")},
		{"v4a_delete", PatchTool{}, v4a("*** Delete File: " + d + "/config\n")},
		{"v4a_move_from", PatchTool{}, v4a("*** Update File: " + d + "/config\n*** Move to: moved\n@@\n-x = 1\n+x = 4\n")},
		{"v4a_move_into", PatchTool{}, v4a("*** Update File: plain.txt\n*** Move to: " + d + "/moved\n")},
	}
}

// TestWriteToolsRefuseSymlinkIntoProtectedOrOutside: a directory of the
// tree that is a symlink into .git, into $TALARIA_HOME or out of the
// working directory is refused by every write tool, with an error naming
// the real place, and nothing is written there (nor anywhere: the V4A
// patch is all or nothing).
func TestWriteToolsRefuseSymlinkIntoProtectedOrOutside(t *testing.T) {
	for _, into := range []string{".git", "$TALARIA_HOME", "outside"} {
		for _, rc := range guardedCalls("d") {
			t.Run(into+"/"+rc.name, func(t *testing.T) {
				proj, outside, home := guardTree(t)
				target := map[string]string{".git": filepath.Join(proj, ".git"), "$TALARIA_HOME": home, "outside": outside}[into]
				if err := os.Symlink(target, filepath.Join(proj, "d")); err != nil {
					t.Fatal(err)
				}
				writeFiles(t, proj, map[string]string{"plain.txt": "p\n"})
				out := mustErr(t, guardCall(t, rc.tool, proj, home, rc.args), "refusing to write", "give its real path")
				if into != "outside" && !strings.Contains(out, into) {
					t.Errorf("error does not name %s: %s", into, out)
				}
				untouched(t, target)
				if got := readBack(t, filepath.Join(proj, "plain.txt")); got != "p\n" {
					t.Errorf("plain.txt = %q", got)
				}
				if _, err := os.Lstat(filepath.Join(proj, "moved")); err == nil {
					t.Error("moved was created")
				}
			})
		}
	}
}

// TestWriteToolsRefuseFileSymlinkIntoGit: a file that is a symlink to
// .git/config is not written through; a symlink to another file of the
// tree still is (its target is written, the link kept).
func TestWriteToolsRefuseFileSymlinkIntoGit(t *testing.T) {
	proj, outside, home := guardTree(t)
	writeFiles(t, proj, map[string]string{"real.txt": "x = 1\n"})
	for name, to := range map[string]string{"cfg": ".git/config", "out": filepath.Join(outside, "config"), "ok": "real.txt"} {
		if err := os.Symlink(to, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"cfg", "out"} {
		mustErr(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": name, "content": "planted\n"}), "refusing to write "+name)
		mustErr(t, guardCall(t, PatchTool{}, proj, home, map[string]any{"path": name, "old_string": "x = 1", "new_string": "x = 2"}), "refusing to write "+name)
	}
	untouched(t, filepath.Join(proj, ".git"))
	untouched(t, outside)
	mustOK(t, guardCall(t, PatchTool{}, proj, home, map[string]any{"path": "ok", "old_string": "x = 1", "new_string": "x = 2"}))
	if got := readBack(t, filepath.Join(proj, "real.txt")); got != "x = 2\n" {
		t.Errorf("real.txt = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(proj, "ok")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link ok was replaced: %v %v", fi, err)
	}
}

// TestWriteToolsFollowSymlinksInsideTree: a symlinked directory that stays
// inside the working directory (src -> packages/src) is written through,
// by every tool, and new directories below it are created.
func TestWriteToolsFollowSymlinksInsideTree(t *testing.T) {
	proj, _, home := guardTree(t)
	writeFiles(t, proj, map[string]string{"packages/src/config": "x = 1\n", "plain.txt": "p\n"})
	if err := os.Symlink("packages/src", filepath.Join(proj, "src")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(proj, "packages", "src")
	for _, rc := range guardedCalls("src") {
		mustOK(t, guardCall(t, rc.tool, proj, home, rc.args))
		switch rc.name {
		case "write_file_new":
			if got := readBack(t, filepath.Join(real, "hooks", "pre-commit")); got != "planted\n" {
				t.Errorf("%s: new file = %q", rc.name, got)
			}
		case "v4a_add":
			if got := readBack(t, filepath.Join(real, "new")); got != "planted\n" {
				t.Errorf("%s: added = %q", rc.name, got)
			}
		case "v4a_move_into":
			if got := readBack(t, filepath.Join(real, "moved")); got != "p\n" {
				t.Errorf("%s: moved = %q", rc.name, got)
			}
		}
		writeFiles(t, proj, map[string]string{"packages/src/config": "x = 1\n", "plain.txt": "p\n"})
	}
	untouched(t, filepath.Join(proj, ".git"))
}

// TestWriteToolsNamedProtectedAndOutsidePaths: a path that names .git, or
// lies outside the working directory, is written where it says (its
// approval was about that path); symlinks in it are then followed like
// any other.
func TestWriteToolsNamedProtectedAndOutsidePaths(t *testing.T) {
	proj, outside, home := guardTree(t)
	mustOK(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": ".git/config", "content": "asked\n"}))
	if got := readBack(t, filepath.Join(proj, ".git", "config")); got != "asked\n" {
		t.Errorf(".git/config = %q", got)
	}
	mustOK(t, guardCall(t, PatchTool{}, proj, home, map[string]any{"path": filepath.Join(outside, "config"), "old_string": "x = 1", "new_string": "x = 2"}))
	if got := readBack(t, filepath.Join(outside, "config")); got != "x = 2\n" {
		t.Errorf("outside/config = %q", got)
	}
	mustOK(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": filepath.Join(home, "notes", "a.md"), "content": "asked\n"}))
	if got := readBack(t, filepath.Join(home, "notes", "a.md")); got != "asked\n" {
		t.Errorf("home/notes/a.md = %q", got)
	}
}

// TestWriteFileCreatesNestedDirsAndKeepsMode: missing parents are
// created (through mkdirat on the parent's handle), an existing
// file keeps its mode, and no temporary file is left behind.
func TestWriteFileCreatesNestedDirsAndKeepsMode(t *testing.T) {
	proj, _, home := guardTree(t)
	mustOK(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "a/b/c/new.txt", "content": "n\n"}))
	if got := readBack(t, filepath.Join(proj, "a/b/c/new.txt")); got != "n\n" {
		t.Errorf("new.txt = %q", got)
	}
	for _, d := range []string{"a", "a/b", "a/b/c"} {
		fi, err := os.Stat(filepath.Join(proj, d))
		if err != nil || !fi.IsDir() {
			t.Errorf("%s: %v %v", d, fi, err)
		}
	}
	script := filepath.Join(proj, "a", "run.sh")
	if err := os.WriteFile(script, []byte("old"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(script, 0o750); err != nil {
		t.Fatal(err)
	}
	mustOK(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "a/run.sh", "content": "new"}))
	if fi, err := os.Stat(script); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after overwrite: %v %v", fi, err)
	}
	entries, err := os.ReadDir(filepath.Join(proj, "a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".talaria-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// A file in the way of a directory is an error, not a crash.
	mustErr(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "a/run.sh/x", "content": "n"}), "not a directory")
}

// TestWriteGuardRefusesNewDirThroughSymlink: the directories write_file
// creates are created only below a checked handle: a missing directory
// below a symlink to outside is refused before anything is created there.
func TestWriteGuardRefusesNewDirThroughSymlink(t *testing.T) {
	proj, outside, home := guardTree(t)
	if err := os.Symlink(outside, filepath.Join(proj, "d")); err != nil {
		t.Fatal(err)
	}
	mustErr(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "d/x/y/z.txt", "content": "n"}), "refusing to write d/x/y/z.txt", "outside the working directory")
	untouched(t, outside)
}

// TestPreviewEditReadsAsTheWriteWould: the approval's preview reads the
// file through the same checked handle as the write, so a path whose
// symlink leads into .git or outside shows no content of the file there
// (the write would be refused anyway).
func TestPreviewEditReadsAsTheWriteWould(t *testing.T) {
	proj, outside, _ := guardTree(t)
	writeFiles(t, filepath.Join(proj, ".git"), map[string]string{"secret": "x = 1\n"})
	writeFiles(t, outside, map[string]string{"secret": "x = 1\n"})
	for link, to := range map[string]string{"g": ".git", "o": outside} {
		if err := os.Symlink(to, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
		for tool, args := range map[string]string{
			"write_file": `{"path":"` + link + `/secret","content":"y"}`,
			"patch":      `{"path":"` + link + `/secret","old_string":"x = 1","new_string":"y"}`,
		} {
			p, err := PreviewEdit(proj, tool, args)
			if err == nil || !strings.Contains(err.Error(), "refusing to write") {
				t.Errorf("%s %s: preview = %+v, %v; want the write's refusal", tool, args, p, err)
			}
		}
	}
}

// TestWriteFileSymlinkChains: a chain of links is followed as the kernel
// would (".." after a linked directory goes to that directory's real
// parent), a link loop is an error, and a chain that ends in .git is
// refused.
func TestWriteFileSymlinkChains(t *testing.T) {
	proj, _, home := guardTree(t)
	writeFiles(t, proj, map[string]string{"deep/inner/x": "", "deep/target.txt": "old"})
	for name, to := range map[string]string{
		"lnk":   "deep/inner",        // a directory link
		"one":   "lnk/../target.txt", // kernel: deep/inner/.. is deep, not the tree
		"two":   "one",
		"loopA": "loopB", "loopB": "loopA",
		"chain": "two2", "two2": ".git/config",
	} {
		if err := os.Symlink(to, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	mustOK(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "two", "content": "new"}))
	if got := readBack(t, filepath.Join(proj, "deep/target.txt")); got != "new" {
		t.Errorf("deep/target.txt = %q", got)
	}
	mustErr(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "loopA", "content": "n"}), "symlinks")
	mustErr(t, guardCall(t, WriteFileTool{}, proj, home, map[string]any{"path": "chain", "content": "n"}), "refusing to write chain", ".git")
	untouched(t, filepath.Join(proj, ".git"))
}
