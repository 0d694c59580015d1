package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readBack(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	wf := WriteFileTool{}
	out := mustOK(t, callTool(t, wf, dir, map[string]any{"path": "a/b/c.txt", "content": "one\ntwo\n"}))
	if !strings.Contains(out, "Created") || !strings.Contains(out, "8 bytes") || !strings.Contains(out, "2 lines") {
		t.Errorf("output = %q", out)
	}
	if got := readBack(t, filepath.Join(dir, "a/b/c.txt")); got != "one\ntwo\n" {
		t.Errorf("content = %q", got)
	}

	// Overwrite keeps the mode of the existing file and leaves no temp file.
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("old"), 0o750); err != nil {
		t.Fatal(err)
	}
	out = mustOK(t, callTool(t, wf, dir, map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi"}))
	if !strings.Contains(out, "Overwrote") || !strings.Contains(out, "2 lines") {
		t.Errorf("output = %q", out)
	}
	info, err := os.Stat(script)
	if err != nil || info.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, %v; want 0750", info.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}

	// An empty file is fine; a directory is not.
	mustOK(t, callTool(t, wf, dir, map[string]any{"path": "empty.txt", "content": ""}))
	if got := readBack(t, filepath.Join(dir, "empty.txt")); got != "" {
		t.Errorf("empty = %q", got)
	}
	mustErr(t, callTool(t, wf, dir, map[string]any{"path": "a", "content": "x"}), "directory")

	// Writing through a symlink updates its target.
	if err := os.Symlink("run.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	mustOK(t, callTool(t, wf, dir, map[string]any{"path": "link.sh", "content": "new"}))
	if got := readBack(t, script); got != "new" {
		t.Errorf("symlink target = %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link.sh")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a regular file")
	}
}

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("hello")
}

func other() {
	x := 1
	_ = x
}
`

func TestPatchReplaceUnique(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.go": goSource})
	p := PatchTool{}
	out := mustOK(t, callTool(t, p, dir, map[string]any{
		"mode": "replace", "path": "main.go",
		"old_string": "\tx := 1\n", "new_string": "\tx := 2\n\ty := 3\n",
	}))
	want := strings.Replace(goSource, "\tx := 1\n", "\tx := 2\n\ty := 3\n", 1)
	if got := readBack(t, filepath.Join(dir, "main.go")); got != want {
		t.Errorf("file = %q", got)
	}
	for _, w := range []string{"1 occurrence", "-1 +2", "@@ -11,1 +11,2 @@", "-\tx := 1", "+\tx := 2", "+\ty := 3"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}

	// A mid-line edit shows the whole line; mode defaults to replace.
	out = mustOK(t, callTool(t, p, dir, map[string]any{
		"path": "main.go", "old_string": "import \"fmt\"", "new_string": "import \"os\"",
	}))
	if !strings.Contains(out, "@@ -3,1 +3,1 @@\n-import \"fmt\"\n+import \"os\"") {
		t.Errorf("diff:\n%s", out)
	}

	// Deleting whole lines.
	out = mustOK(t, callTool(t, p, dir, map[string]any{
		"path": "main.go", "old_string": "\t_ = x\n", "new_string": "",
	}))
	if !strings.Contains(out, "@@ -13,1 +13,0 @@\n-\t_ = x") {
		t.Errorf("delete diff:\n%s", out)
	}
}

func TestPatchAmbiguousAndReplaceAll(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.go": goSource})
	p := PatchTool{}
	args := map[string]any{"mode": "replace", "path": "main.go",
		"old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("bye")`}
	mustErr(t, callTool(t, p, dir, args), "2 times", "lines 6, 7", "replace_all")
	if got := readBack(t, filepath.Join(dir, "main.go")); got != goSource {
		t.Error("file changed by a failed patch")
	}
	args["replace_all"] = true
	out := mustOK(t, callTool(t, p, dir, args))
	if got := readBack(t, filepath.Join(dir, "main.go")); strings.Count(got, "bye") != 2 || strings.Contains(got, "hello") {
		t.Errorf("file = %q", got)
	}
	if !strings.Contains(out, "2 occurrences") || !strings.Contains(out, "@@ -6,1 +6,1 @@") || !strings.Contains(out, "@@ -7,1 +7,1 @@") {
		t.Errorf("output:\n%s", out)
	}

	// Two occurrences on one line make one hunk.
	writeFiles(t, dir, map[string]string{"w.txt": "a a\nb\n"})
	out = mustOK(t, callTool(t, p, dir, map[string]any{"path": "w.txt", "old_string": "a", "new_string": "c", "replace_all": "true"}))
	if !strings.Contains(out, "@@ -1,1 +1,1 @@\n-a a\n+c c") {
		t.Errorf("same-line hunk:\n%s", out)
	}
}

func TestPatchErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.go": goSource, "crlf.txt": "one\r\ntwo\r\nthree\r\n"})
	p := PatchTool{}
	call := func(args map[string]any) Result { return callTool(t, p, dir, args) }

	// Indentation differs: the hint points at the line.
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "x := 1\n    _ = x", "new_string": "y"}),
		"not found", "line 11", "indentation")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "func  main()  {", "new_string": "y"}),
		"not found", "line 5", "ignoring whitespace")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "10|func other() {\n11|\tx := 1", "new_string": "y"}),
		"not found", "LINE_NUMBER| prefixes")
	// A near miss: the closest line is named.
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "fmt.Printn(\"hello\") // typo", "new_string": "y"}),
		"not found", "closest line", "line 6")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "zzzz qqqq", "new_string": "y"}), "not found", "No line resembles")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "", "new_string": "y"}), "old_string", "must not be empty")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "x"}), "new_string", "required")
	mustErr(t, call(map[string]any{"path": "main.go", "old_string": "x", "new_string": "x"}), "identical")
	mustErr(t, call(map[string]any{"mode": "patch", "patch": "*** Begin Patch"}), "no file sections")
	mustErr(t, call(map[string]any{"mode": "diff"}), "unknown mode")
	mustErr(t, call(map[string]any{"path": "missing.go", "old_string": "x", "new_string": "y"}), "not found", "missing.go")
	mustErr(t, call(map[string]any{"path": ".", "old_string": "x", "new_string": "y"}), "directory")

	// CRLF files accept LF old_string and keep their line endings.
	out := mustOK(t, call(map[string]any{"path": "crlf.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"}))
	if got := readBack(t, filepath.Join(dir, "crlf.txt")); got != "1\r\n2\r\nthree\r\n" {
		t.Errorf("crlf file = %q", got)
	}
	if !strings.Contains(out, "-one\n-two\n+1\n+2") {
		t.Errorf("crlf diff:\n%s", out)
	}
}

func TestReplaceDiffLimits(t *testing.T) {
	content := strings.Repeat("k\n", 30)
	diff, removed, added := replaceDiff(content, "k", "v", 30)
	if removed != 30 || added != 30 {
		t.Errorf("removed %d added %d", removed, added)
	}
	if strings.Count(diff, "@@") != 2*patchMaxHunks || !strings.Contains(diff, "more changes not shown") {
		t.Errorf("diff not capped:\n%s", diff)
	}
	big := strings.Repeat("line\n", 100)
	diff, _, _ = replaceDiff(big, big, "x\n", 1)
	if !strings.Contains(diff, "[… 60 lines …]") {
		t.Errorf("long hunk not elided:\n%s", diff)
	}
}

// TestPatchReplaceKeepsCRLF: new lines replaced into a CRLF file end in
// CRLF, whether old_string matched directly or only with CRLF endings.
func TestPatchReplaceKeepsCRLF(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n", "u.txt": "one\ntwo\n"})
	for _, args := range []map[string]any{
		{"path": "w.txt", "old_string": "one", "new_string": "1\nuno"},
		{"path": "w.txt", "old_string": "two\nthree", "new_string": "2\r\ndos\nthree"},
		{"path": "u.txt", "old_string": "one", "new_string": "1\nuno"},
	} {
		mustOK(t, callTool(t, PatchTool{}, dir, args))
	}
	if got := readBack(t, filepath.Join(dir, "w.txt")); got != "1\r\nuno\r\n2\r\ndos\r\nthree\r\n" {
		t.Errorf("w.txt = %q", got)
	}
	if got := readBack(t, filepath.Join(dir, "u.txt")); got != "1\nuno\ntwo\n" {
		t.Errorf("u.txt = %q (an LF file stays LF)", got)
	}
}

// TestPatchModeDecisionShared: the tool applies a V4A patch exactly when
// isV4A says so, the decision the planner and the approver use too.
func TestPatchModeDecisionShared(t *testing.T) {
	const v4aText = "*** Begin Patch\n*** Update File: c.txt\n-x\n+v4a\n*** End Patch"
	for _, tc := range []struct {
		args map[string]any
		v4a  bool
	}{
		{map[string]any{"path": "a.txt", "patch": v4aText}, true},
		{map[string]any{"mode": " patch ", "patch": v4aText}, true},
		{map[string]any{"mode": "patch", "path": "a.txt", "patch": v4aText}, true},
		{map[string]any{"path": "a.txt", "old_string": "x", "new_string": "replaced", "patch": v4aText}, false},
		{map[string]any{"mode": "replace", "path": "a.txt", "old_string": "x", "new_string": "replaced", "patch": v4aText}, false},
		{map[string]any{"path": "a.txt", "old_string": "x", "new_string": "replaced", "patch": "  "}, false},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.txt": "x\n", "c.txt": "x\n"})
		raw, _ := json.Marshal(tc.args)
		var a patchArgs
		if err := decodeArgs(raw, &a); err != nil || a.isV4A() != tc.v4a {
			t.Errorf("isV4A(%s) = %v, %v", raw, a.isV4A(), err)
		}
		mustOK(t, callTool(t, PatchTool{}, dir, tc.args))
		changed := "a.txt"
		if tc.v4a {
			changed = "c.txt"
		}
		if got := readBack(t, filepath.Join(dir, changed)); got == "x\n" {
			t.Errorf("%s: %s unchanged", raw, changed)
		}
	}
}
