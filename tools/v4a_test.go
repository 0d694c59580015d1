package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func applyPatchText(t *testing.T, dir, patch string) Result {
	t.Helper()
	return callTool(t, PatchTool{}, dir, map[string]any{"mode": "patch", "patch": patch})
}

func TestV4AAddUpdateDeleteMove(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"src/app.go": "package main\n\nfunc main() {\n\tcfg := load()\n\trun(cfg)\n}\n",
		"old.txt":    "bye\n",
		"a.go":       "package a\n\nvar X = 1\n",
	})
	if err := os.Chmod(filepath.Join(dir, "a.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := mustOK(t, applyPatchText(t, dir, `*** Begin Patch
*** Update File: src/app.go
@@ func main() {
 	cfg := load()
-	run(cfg)
+	if err := run(cfg); err != nil {
+		panic(err)
+	}
 }
*** Add File: docs/notes.md
+# Notes
+
+text
*** Delete File: old.txt
*** Update File: a.go
*** Move to: b/b.go
@@
-package a
+package b
*** End Patch
`))
	if got := readBack(t, filepath.Join(dir, "src/app.go")); got != "package main\n\nfunc main() {\n\tcfg := load()\n\tif err := run(cfg); err != nil {\n\t\tpanic(err)\n\t}\n}\n" {
		t.Errorf("app.go = %q", got)
	}
	if got := readBack(t, filepath.Join(dir, "docs/notes.md")); got != "# Notes\n\ntext\n" {
		t.Errorf("notes.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.go")); !os.IsNotExist(err) {
		t.Errorf("a.go not moved: %v", err)
	}
	if got := readBack(t, filepath.Join(dir, "b/b.go")); got != "package b\n\nvar X = 1\n" {
		t.Errorf("b.go = %q", got)
	}
	if info, err := os.Stat(filepath.Join(dir, "b/b.go")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("moved file lost its mode: %v %v", info, err)
	}
	for _, want := range []string{
		"Applied patch to 4 files",
		"M src/app.go", "A docs/notes.md", "D old.txt", "R a.go -> b/b.go",
		"--- a/src/app.go\n+++ b/src/app.go\n@@ -4,3 +4,5 @@\n \tcfg := load()\n-\trun(cfg)\n+\tif err",
		"--- /dev/null\n+++ b/docs/notes.md\n@@ -0,0 +1,3 @@\n+# Notes",
		"--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye",
		"--- a/a.go\n+++ b/b/b.go\n@@ -1,1 +1,1 @@\n-package a\n+package b",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestV4AFuzzyWhitespace(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"trail.txt":  "alpha   \nbeta\t\ngamma\n",
		"indent.py":  "def f():\n    x = 1\n    return x\n",
		"crlf.txt":   "one\r\ntwo\r\nthree\r\n",
		"noeol.txt":  "a\nb",
		"repeat.txt": "x\nend\nx\nend\n",
	})
	// Trailing whitespace in the file but not in the patch.
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: trail.txt\n alpha\n-beta\n+BETA\n gamma\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "trail.txt")); got != "alpha   \nBETA\ngamma\n" {
		t.Errorf("trail.txt = %q (context lines keep the file's text)", got)
	}
	// Indentation differs entirely (tabs vs spaces): all-whitespace pass.
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: indent.py\n@@ def f():\n-\tx = 1\n+    x = 2\n \treturn x\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "indent.py")); got != "def f():\n    x = 2\n    return x\n" {
		t.Errorf("indent.py = %q", got)
	}
	// CRLF is kept; a file without a final newline stays without.
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: crlf.txt\n one\n-two\n+2\n*** Update File: noeol.txt\n a\n-b\n+B\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "crlf.txt")); got != "one\r\n2\r\nthree\r\n" {
		t.Errorf("crlf.txt = %q", got)
	}
	if got := readBack(t, filepath.Join(dir, "noeol.txt")); got != "a\nB" {
		t.Errorf("noeol.txt = %q", got)
	}
	// Ambiguous lines need an anchor or *** End of File.
	mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: repeat.txt\n-x\n+y\n end\n*** End Patch"), "repeat.txt", "hunk 1", "2 places", "lines 1, 3")
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: repeat.txt\n-x\n+y\n end\n*** End of File\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "repeat.txt")); got != "x\nend\ny\nend\n" {
		t.Errorf("repeat.txt = %q", got)
	}
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: repeat.txt\n@@ x\n-end\n+END\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "repeat.txt")); got != "x\nEND\ny\nend\n" {
		t.Errorf("repeat.txt = %q", got)
	}
	// A pure addition after an anchor; a missing Begin marker and
	// context lines that lost their leading space are tolerated.
	mustOK(t, applyPatchText(t, dir, "*** Update File: repeat.txt\n@@ y\n+inserted\n*** End Patch\n"))
	if got := readBack(t, filepath.Join(dir, "repeat.txt")); got != "x\nEND\ny\ninserted\nend\n" {
		t.Errorf("repeat.txt = %q", got)
	}
	mustOK(t, applyPatchText(t, dir, "```\n*** Begin Patch\n*** Update File: repeat.txt\ninserted\n-end\n+fin\n*** End Patch\n```"))
	if got := readBack(t, filepath.Join(dir, "repeat.txt")); got != "x\nEND\ny\ninserted\nfin\n" {
		t.Errorf("repeat.txt = %q", got)
	}
}

func TestV4AAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a.txt": "one\ntwo\n", "b.txt": "three\nfour\n", "c.txt": "keep\n"}
	writeFiles(t, dir, files)
	unchanged := func() {
		t.Helper()
		for p, c := range files {
			if got := readBack(t, filepath.Join(dir, p)); got != c {
				t.Errorf("%s changed to %q", p, got)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
			t.Errorf("new.txt was created")
		}
	}
	// The second hunk of b.txt fails: nothing is written, and the error
	// names the file and the hunk.
	out := mustErr(t, applyPatchText(t, dir, `*** Begin Patch
*** Add File: new.txt
+hello
*** Update File: a.txt
-one
+ONE
*** Delete File: c.txt
*** Update File: b.txt
@@
-three
+THREE
@@ four
-fiv
+FIVE
*** End Patch`), "Update File b.txt", "hunk 2", "No file was changed")
	if strings.Contains(out, "a.txt") {
		t.Errorf("error blames the wrong file: %s", out)
	}
	unchanged()
	for _, tc := range []struct{ patch, want string }{
		{"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch", "already exists"},
		{"*** Begin Patch\n*** Update File: nope.txt\n-x\n+y\n*** End Patch", "does not exist"},
		{"*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "does not exist"},
		{"*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+1\n*** End Patch", "destination already exists"},
		{"*** Begin Patch\n*** Update File: a.txt\n-one\n+1\n*** Delete File: a.txt\n*** End Patch", "more than one section"},
		{"*** Begin Patch\n*** Update File: a.txt\n one\n*** End Patch", "no '-' or '+' lines"},
		{"*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch", "unknown header"},
		{"*** Begin Patch\n*** Add File: n.txt\nno plus\n*** End Patch", "must start with '+'"},
		{"*** Begin Patch\n*** Delete File: c.txt\n-keep\n*** End Patch", "takes no lines"},
		{"hello", "expected a file header"},
		{"", "required"},
	} {
		mustErr(t, applyPatchText(t, dir, tc.patch), tc.want)
		unchanged()
	}
	// A move target whose parent is a file fails while planning, before
	// anything is written.
	mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: b.txt\n*** Move to: c.txt/b.txt\n@@\n-three\n+3\n*** End Patch"), "not a directory", "No file was changed")
	unchanged()
	// A failed write rolls back the files already written: a 240-byte name
	// is valid, but its temporary file's name (".NAME.talaria-….tmp") is
	// over the 255-byte limit, so the move fails after a.txt was written.
	long := strings.Repeat("m", 240)
	mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: b.txt\n*** Move to: "+long+"\n@@\n-three\n+3\n*** End Patch"), "restored")
	unchanged()
}

func TestV4AMoveFileHeaderAndDiffLimits(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.txt": "same\n"})
	out := mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Move File: x.txt -> y/x.txt\n*** End Patch"))
	if !strings.Contains(out, "R x.txt -> y/x.txt") || !strings.Contains(out, "content unchanged") {
		t.Errorf("output:\n%s", out)
	}
	if got := readBack(t, filepath.Join(dir, "y/x.txt")); got != "same\n" {
		t.Errorf("moved = %q", got)
	}
	big := strings.Repeat("+l\n", 200)
	out = mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Add File: big.txt\n"+big+"*** End Patch"))
	if !strings.Contains(out, "[… 120 lines …]") {
		t.Errorf("long diff not elided:\n%s", out)
	}
}

// TestV4AInsertAnchorNotFound: a hunk that only adds lines goes after its
// @@ anchor; when the anchor is missing the patch fails instead of
// appending the lines at the end of the file.
func TestV4AInsertAnchorNotFound(t *testing.T) {
	dir := t.TempDir()
	const orig = "func a() {\n}\n\nfunc b() {\n}\n"
	writeFiles(t, dir, map[string]string{"x.go": orig})
	mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: x.go\n@@ func nothere() {\n+\t// new\n*** End Patch"),
		"Update File x.go", "@@ func nothere() {", "anchor was not found", "No file was changed")
	// The anchor exists, but only above the previous hunk.
	mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: x.go\n@@ func b() {\n-}\n+}\n+// end of b\n@@ func a() {\n+\t// in a\n*** End Patch"),
		"x.go", "hunk 2", "@@ func a() {", "anchor was not found")
	if got := readBack(t, filepath.Join(dir, "x.go")); got != orig {
		t.Errorf("x.go changed to %q", got)
	}
	// A found anchor still works, and so does an unanchored addition
	// (at the end) or one marked *** End of File.
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: x.go\n@@ func a() {\n+\t// in a\n*** End Patch"))
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: x.go\n@@\n+// tail\n*** End Patch"))
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: x.go\n@@ not in the file\n+// eof\n*** End of File\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "x.go")); got != "func a() {\n\t// in a\n}\n\nfunc b() {\n}\n// tail\n// eof\n" {
		t.Errorf("x.go = %q", got)
	}
}

// TestV4AKeepsLineEndings: lines keep their own endings; added lines take
// the file's dominant one.
func TestV4AKeepsLineEndings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"crlf-mostly.txt": "one\r\ntwo\nthree\r\nfour\r\n",
		"lf-mostly.txt":   "one\ntwo\nthree\r\n",
		"crlf-noeol.txt":  "a\r\nb",
	})
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: crlf-mostly.txt\n three\n-four\n+new\n+FOUR\n"+
		"*** Update File: lf-mostly.txt\n one\n+x\n two\n"+
		"*** Update File: crlf-noeol.txt\n b\n+c\n*** End of File\n*** End Patch"))
	for name, want := range map[string]string{
		"crlf-mostly.txt": "one\r\ntwo\nthree\r\nnew\r\nFOUR\r\n",
		"lf-mostly.txt":   "one\nx\ntwo\nthree\r\n",
		"crlf-noeol.txt":  "a\r\nb\r\nc",
	} {
		if got := readBack(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestV4AControlLinesInContent: a hunk line starting with '-' or '+' is
// content even when it reads like a marker, and so is a padded
// "*** End Patch" that more patch lines follow.
func TestV4AControlLinesInContent(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"notes.md": "intro\n*** End Patch\nmore\n",
		"doc.md":   "a\n*** Update File: x\nb\n",
	})
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: notes.md\n-intro\n+INTRO\n *** End Patch\n-more\n+MORE\n+*** End Patch\n"+
		"*** Update File: doc.md\n-*** Update File: x\n+*** Update File: x\n-b\n+B\n*** End Patch"))
	if got := readBack(t, filepath.Join(dir, "notes.md")); got != "INTRO\n*** End Patch\nMORE\n*** End Patch\n" {
		t.Errorf("notes.md = %q (the patch ended early)", got)
	}
	if got := readBack(t, filepath.Join(dir, "doc.md")); got != "a\n*** Update File: x\nB\n" {
		t.Errorf("doc.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("a content line was taken for a header: %v", err)
	}
	// Real control lines still work, with trailing blanks.
	mustOK(t, applyPatchText(t, dir, "*** Begin Patch  \n*** Update File: doc.md \n-a\n+A\n*** End Patch \nignored"))
	if got := readBack(t, filepath.Join(dir, "doc.md")); got != "A\n*** Update File: x\nB\n" {
		t.Errorf("doc.md = %q", got)
	}
}
