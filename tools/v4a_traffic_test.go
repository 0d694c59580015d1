package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 18's V4A leniencies, as exact bytes: each case writes files,
// applies a patch and compares every file byte for byte (or expects an
// error and every file unchanged).
func TestV4ATrafficRules(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		patch string
		want  map[string]string // nil: the patch must fail and change nothing
		err   []string
	}{
		{
			name:  "padded end marker",
			files: map[string]string{"a.txt": "one\ntwo\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TWO\n *** End Patch\n",
			want:  map[string]string{"a.txt": "one\nTWO\n"},
		},
		{
			name:  "padded file headers",
			files: map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\n"},
			patch: "*** Begin Patch\n  *** Update File: a.txt\n-one\n+ONE\n\t*** Update File: b.txt\n-x\n+X\n   *** End Patch   \n",
			want:  map[string]string{"a.txt": "ONE\ntwo\n", "b.txt": "X\n"},
		},
		{
			name:  "padded add and delete headers",
			files: map[string]string{"gone.txt": "bye\n"},
			patch: "*** Begin Patch\n *** Add File: new.txt\n+hello\n *** Delete File: gone.txt\n *** End Patch",
			want:  map[string]string{"new.txt": "hello\n", "gone.txt": ""},
		},
		{
			name:  "mixed endings: only the replaced line changes, keeping its own ending",
			files: map[string]string{"m.txt": "a\r\nb\nc\r\nd\n"},
			patch: "*** Begin Patch\n*** Update File: m.txt\n a\n-b\n+B\n c\n-d\n+D\n*** End Patch",
			want:  map[string]string{"m.txt": "a\r\nB\nc\r\nD\n"},
		},
		{
			name:  "mixed endings: a CRLF line replaced in a mostly-LF file",
			files: map[string]string{"m.txt": "one\ntwo\r\nthree\nfour\n"},
			patch: "*** Begin Patch\n*** Update File: m.txt\n one\n-two\n+TWO\n+2b\n three\n*** End Patch",
			want:  map[string]string{"m.txt": "one\nTWO\r\n2b\r\nthree\nfour\n"},
		},
		{
			name:  "anchorless append does not hide earlier lines from a later hunk",
			files: map[string]string{"x.go": "package x\n\nfunc a() {}\n\nfunc b() {}\n"},
			patch: "*** Begin Patch\n*** Update File: x.go\n@@\n+// appended\n@@\n-func a() {}\n+func a() { return }\n*** End Patch",
			want:  map[string]string{"x.go": "package x\n\nfunc a() { return }\n\nfunc b() {}\n// appended\n"},
		},
		{
			name:  "an End of File addition does not hide earlier lines either",
			files: map[string]string{"e.txt": "head\nbody\n"},
			patch: "*** Begin Patch\n*** Update File: e.txt\n@@ body\n+tail\n*** End of File\n@@\n-head\n+HEAD\n*** End Patch",
			want:  map[string]string{"e.txt": "HEAD\nbody\ntail\n"},
		},
		{
			name:  "hunks out of file order still apply when each matches once",
			files: map[string]string{"o.txt": "1\n2\n3\n4\n5\n"},
			patch: "*** Begin Patch\n*** Update File: o.txt\n 4\n-5\n+five\n@@\n-1\n+one\n 2\n*** End Patch",
			want:  map[string]string{"o.txt": "one\n2\n3\n4\nfive\n"},
		},
		{
			name:  "a hunk above that overlaps an earlier one is named",
			files: map[string]string{"o.txt": "1\n2\n3\n"},
			patch: "*** Begin Patch\n*** Update File: o.txt\n-2\n+two\n 3\n@@\n 1\n-2\n+deux\n*** End Patch",
			err:   []string{"hunk 2", "match at line 1, which hunk 1 already changes", "merge the two hunks"},
		},
		{
			name:  "unicode punctuation in the file, ascii in the patch",
			files: map[string]string{"u.md": "Title \u2014 draft\nIt\u2019s \u201cquoted\u201d\u00a0here\nnon\u2011breaking \u2013 range\n"},
			patch: "*** Begin Patch\n*** Update File: u.md\n Title - draft\n-It's \"quoted\" here\n+It is quoted here\n non-breaking - range\n*** End Patch",
			want:  map[string]string{"u.md": "Title \u2014 draft\nIt is quoted here\nnon\u2011breaking \u2013 range\n"},
		},
		{
			name:  "unicode anchor",
			files: map[string]string{"u.md": "# Setup \u2014 Linux\nstep\n# Setup \u2014 macOS\nstep\n"},
			patch: "*** Begin Patch\n*** Update File: u.md\n@@ # Setup - macOS\n-step\n+brew install\n*** End Patch",
			want:  map[string]string{"u.md": "# Setup \u2014 Linux\nstep\n# Setup \u2014 macOS\nbrew install\n"},
		},
		{
			name:  "truncated patch with a delete is refused whole",
			files: map[string]string{"keep.txt": "precious\n", "a.txt": "one\n"},
			patch: "*** Begin Patch\n*** Delete File: keep.txt\n*** Update File: a.txt\n-one\n+ONE\n",
			err:   []string{"the patch ends without *** End Patch; it may have been cut off", "No file was changed"},
		},
		{
			name:  "truncated mid-hunk",
			files: map[string]string{"a.txt": "one\ntwo\nthree\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TW",
			err:   []string{"ends without *** End Patch"},
		},
		{
			name:  "truncated after an add",
			files: map[string]string{},
			patch: "*** Begin Patch\n*** Add File: new.txt\n+partial",
			err:   []string{"ends without *** End Patch"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			r := applyPatchText(t, dir, c.patch)
			if c.want == nil {
				mustErr(t, r, c.err...)
				for name, body := range c.files {
					if got := readBack(t, filepath.Join(dir, name)); got != body {
						t.Errorf("%s changed to %q by a refused patch", name, got)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
					t.Error("a refused patch created new.txt")
				}
				return
			}
			mustOK(t, r)
			for name, body := range c.want {
				data, err := os.ReadFile(filepath.Join(dir, name))
				switch {
				case body == "" && !os.IsNotExist(err):
					t.Errorf("%s should be deleted: %v", name, err)
				case body != "" && string(data) != body:
					t.Errorf("%s = %q, want %q", name, data, body)
				}
			}
		})
	}
}

// TestV4ANotFoundDoesNotBlameLines: when a hunk's lines exist only above
// the previous hunk in several places, the error says so instead of
// claiming the lines differ.
func TestV4ANotFoundDoesNotBlameLines(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"r.txt": "x\ny\nx\ny\nend\n"})
	msg := mustErr(t, applyPatchText(t, dir, "*** Begin Patch\n*** Update File: r.txt\n-end\n+END\n@@\n x\n-y\n+Y\n*** End Patch"),
		"hunk 2", "not found below the previous hunk", "match at 2 places", "file order")
	if strings.Contains(msg, "following lines differ") {
		t.Errorf("error blames the lines: %s", msg)
	}
}
