package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fmt"
	"regexp"
	"strconv"
)

var hunkHead = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@`)

// applyUnified applies a one-file unified diff to old, checking every
// context and removed line, the way patch(1) would: a test-only applier
// that knows "\ No newline at end of file".
func applyUnified(diff, old string) (string, error) {
	before := strings.SplitAfter(old, "\n")
	if len(before) > 0 && before[len(before)-1] == "" {
		before = before[:len(before)-1]
	}
	var out strings.Builder
	left := 0
	var prev byte
	lastAdd := -1 // out.Len() before the last '+' line's newline
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
			continue
		case strings.HasPrefix(l, "@@"):
			m := hunkHead.FindStringSubmatch(l)
			if m == nil {
				return "", fmt.Errorf("bad hunk header %q", l)
			}
			from, _ := strconv.Atoi(m[1])
			if from == 0 {
				from = 1
			}
			for ; left < from-1; left++ {
				out.WriteString(before[left])
			}
		case l == "":
			return "", fmt.Errorf("empty line in diff")
		case l[0] == ' ' || l[0] == '-':
			if left >= len(before) || strings.TrimSuffix(before[left], "\n") != l[1:] {
				return "", fmt.Errorf("line %d does not match %q", left+1, l)
			}
			if l[0] == ' ' {
				out.WriteString(before[left])
			}
			left++
		case l[0] == '+':
			out.WriteString(l[1:])
			lastAdd = out.Len()
			out.WriteString("\n")
		case l[0] == '\\':
			if prev == '+' {
				s := out.String()[:lastAdd]
				out.Reset()
				out.WriteString(s)
			}
		default:
			return "", fmt.Errorf("unexpected line %q", l)
		}
		prev = l[0]
	}
	for ; left < len(before); left++ {
		out.WriteString(before[left])
	}
	return out.String(), nil
}

func jsonArgs(t testing.TB, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDiffsApplyToTheOldContent: for every kind of edit the diff shown
// before the call, applied to the old content, gives exactly the new
// content; the tool then writes exactly that and reports the same diff.
func TestDiffsApplyToTheOldContent(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		tool  string
		args  map[string]any
		want  map[string]string // "" value: the file is gone
	}{
		{"replace", map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n\nfunc B() {}\n"}, "patch",
			map[string]any{"mode": "replace", "path": "a.go", "old_string": "return 1", "new_string": "return 2"},
			map[string]string{"a.go": "package a\n\nfunc A() int { return 2 }\n\nfunc B() {}\n"}},
		{"replace_all", map[string]string{"x.txt": "foo\nbar\nfoo\nbaz\nfoo\n"}, "patch",
			map[string]any{"path": "x.txt", "old_string": "foo", "new_string": "qux\nquux", "replace_all": true},
			map[string]string{"x.txt": "qux\nquux\nbar\nqux\nquux\nbaz\nqux\nquux\n"}},
		{"overwrite", map[string]string{"w.txt": "one\ntwo\nthree\n"}, "write_file",
			map[string]any{"path": "w.txt", "content": "one\n2\nthree\nfour\n"},
			map[string]string{"w.txt": "one\n2\nthree\nfour\n"}},
		{"create", nil, "write_file",
			map[string]any{"path": "new/n.txt", "content": "hello\n"},
			map[string]string{"new/n.txt": "hello\n"}},
		{"crlf", map[string]string{"c.txt": "a\r\nb\r\nc\r\n"}, "patch",
			map[string]any{"path": "c.txt", "old_string": "b\nc", "new_string": "B\nC\nD"},
			map[string]string{"c.txt": "a\r\nB\r\nC\r\nD\r\n"}},
		{"no trailing newline", map[string]string{"e.txt": "x\ny\nlast"}, "patch",
			map[string]any{"path": "e.txt", "old_string": "last", "new_string": "final"},
			map[string]string{"e.txt": "x\ny\nfinal"}},
		{"adds a trailing newline", map[string]string{"f.txt": "x\ny"}, "write_file",
			map[string]any{"path": "f.txt", "content": "x\ny\n"},
			map[string]string{"f.txt": "x\ny\n"}},
		{"v4a update add delete move", map[string]string{
			"src/app.go": "package app\n\nfunc main() {\n\tcfg := load()\n\trun(cfg)\n}\n",
			"old.txt":    "bye\n",
			"a.go":       "package a\n",
		}, "patch",
			map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Update File: src/app.go\n@@ func main() {\n \tcfg := load()\n-\trun(cfg)\n+\tif err := run(cfg); err != nil {\n+\t\tpanic(err)\n+\t}\n*** Add File: docs/notes.md\n+# Notes\n+\n+text\n*** Delete File: old.txt\n*** Update File: a.go\n*** Move to: b.go\n@@\n-package a\n+package b\n*** End Patch\n"},
			map[string]string{
				"src/app.go":    "package app\n\nfunc main() {\n\tcfg := load()\n\tif err := run(cfg); err != nil {\n\t\tpanic(err)\n\t}\n}\n",
				"docs/notes.md": "# Notes\n\ntext\n",
				"old.txt":       "",
				"a.go":          "",
				"b.go":          "package b\n",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, c := range tc.files {
				_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw := jsonArgs(t, tc.args)
			p, err := PreviewEdit(dir, tc.tool, raw)
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, fc := range p.Files {
				d := fc.Diff()
				if !strings.HasPrefix(d, "--- ") || !strings.Contains(d, "\n+++ ") {
					t.Fatalf("not a unified diff:\n%s", d)
				}
				if fc.Old != fc.New && !strings.Contains(d, "\n@@ ") {
					t.Fatalf("no hunk:\n%s", d)
				}
				got, err := applyUnified(d, fc.Old)
				if err != nil {
					t.Fatalf("apply %s: %v\n%s", fc.NewPath, err, d)
				}
				if got != fc.New {
					t.Fatalf("applying the diff gives %q, want %q\n%s", got, fc.New, d)
				}
				if want, ok := tc.want[fc.NewPath]; ok && fc.NewPath != "" && want != fc.New {
					t.Fatalf("%s: preview %q, want %q", fc.NewPath, fc.New, want)
				}
				shown = append(shown, d)
			}
			cio := &callIO{}
			res := NewRegistry(Builtins()...).Call(withCallIO(context.Background(), cio), &Env{Cwd: dir}, tc.tool, raw)
			if res.IsError {
				t.Fatal(res.Output)
			}
			if got := cio.diffText(); got != strings.Join(shown, "") {
				t.Fatalf("the tool reported another diff than the preview:\n%s\nvs\n%s", got, strings.Join(shown, ""))
			}
			for n, want := range tc.want {
				data, err := os.ReadFile(filepath.Join(dir, n))
				if want == "" {
					if err == nil {
						t.Fatalf("%s still exists", n)
					}
					continue
				}
				if string(data) != want {
					t.Fatalf("%s on disk %q, want %q", n, data, want)
				}
			}
		})
	}
}

func TestDiffSaysSoForBinaryAndHugeFiles(t *testing.T) {
	if d := UnifiedDiff("a/x", "b/x", "a\x00b", "c"); !strings.Contains(d, "binary file") || strings.Contains(d, "@@") {
		t.Fatalf("binary: %q", d)
	}
	big := strings.Repeat("line\n", DiffMaxBytes/5+1)
	if d := UnifiedDiff("a/x", "b/x", big, big+"more\n"); !strings.Contains(d, "too large") || strings.Contains(d, "@@") {
		t.Fatalf("huge: %q", d)
	}
	if d := UnifiedDiff("a/x", "b/y", "same", "same"); !strings.Contains(d, "renamed") {
		t.Fatalf("rename: %q", d)
	}
	if _, err := PreviewEdit(t.TempDir(), "terminal", `{"command":"ls"}`); err == nil {
		t.Fatal("terminal has no preview")
	}
	if a, r := DiffStats("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n+c\n x\n"); a != 2 || r != 1 {
		t.Fatalf("stats %d %d", a, r)
	}
}

// benchFile writes a file of about size bytes and returns patch args that
// change one line in its middle.
func benchFile(b *testing.B, size int) (dir, args string) {
	dir = b.TempDir()
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		sb.WriteString("this is line number ")
		sb.WriteString(strings.Repeat("x", i%40))
		sb.WriteString(" of the big file ")
		sb.WriteString(string(rune('a' + i%26)))
		sb.WriteString(itoa(i))
		sb.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, jsonArgs(b, map[string]any{"path": "big.txt", "old_string": "file " + string(rune('a'+(size/100)%26)) + itoa(size/100) + "\n", "new_string": "file CHANGED\n"})
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonInt(i)) }

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

func benchmarkPreview(b *testing.B, size int) {
	dir, args := benchFile(b, size)
	p, err := PreviewEdit(dir, "patch", args)
	if err != nil {
		b.Skip("the marker line is not in the file:", err)
	}
	if a, r := DiffStats(p.Diff()); a != 1 || r != 1 {
		b.Fatalf("diff %d+ %d-", a, r)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		p, _ := PreviewEdit(dir, "patch", args)
		_ = p.Diff()
	}
}

// BenchmarkPreviewEdit1MB and 5MB: read the file, apply the change and diff
// it, as the approval dialog does before it opens.
func BenchmarkPreviewEdit1MB(b *testing.B) { benchmarkPreview(b, 1<<20) }
func BenchmarkPreviewEdit5MB(b *testing.B) { benchmarkPreview(b, 5<<20) }

// FuzzWindowDiff: whatever the model writes, the diff shown applies to the
// old content and gives exactly the new.
func FuzzWindowDiff(f *testing.F) {
	f.Add("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n")
	f.Add("one\ntwo", "one\ntwo\n")
	f.Add("x\r\ny\r\n", "x\r\nz\r\ny\r\n")
	f.Add("", "new\n")
	f.Add("same\nsame\nsame\n", "same\nsame\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if strings.IndexByte(old, 0) >= 0 || strings.IndexByte(new, 0) >= 0 {
			return
		}
		d := UnifiedDiff("a/f", "b/f", old, new)
		if old == new {
			if d != "" {
				t.Fatalf("diff of equal contents: %q", d)
			}
			return
		}
		got, err := applyUnified(d, old)
		if err != nil || got != new {
			t.Fatalf("old %q new %q: applying\n%s\ngives %q (%v)", old, new, d, got, err)
		}
	})
}

// FuzzPreviewReplace: the change an approval shows for a replace-mode
// patch is exactly what the tool then writes, and its diff applies.
func FuzzPreviewReplace(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B\nB2", false)
	f.Add("x\r\ny\r\nx\r\n", "x\ny", "z", true)
	f.Add("no newline", "newline", "end", false)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		raw := jsonArgs(t, map[string]any{"path": "f.txt", "old_string": old, "new_string": new, "replace_all": all})
		p, perr := PreviewEdit(dir, "patch", raw)
		cio := &callIO{}
		res := NewRegistry(PatchTool{}).Call(withCallIO(context.Background(), cio), &Env{Cwd: dir}, "patch", raw)
		data, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		if res.IsError {
			if string(data) != content {
				t.Fatalf("a failed patch changed the file")
			}
			return
		}
		if perr != nil {
			t.Fatalf("the tool applied a change the preview refused: %v", perr)
		}
		if p.Files[0].New != string(data) {
			t.Fatalf("preview %q, written %q", p.Files[0].New, data)
		}
		if strings.IndexByte(content, 0) < 0 && bytes.IndexByte(data, 0) < 0 { // binary: a note, no hunks
			got, err := applyUnified(p.Diff(), content)
			if err != nil || got != string(data) {
				t.Fatalf("diff does not apply: %v\n%s", err, p.Diff())
			}
		}
	})
}
