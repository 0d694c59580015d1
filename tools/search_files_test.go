package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchTree is a small repository with nested .gitignore files.
func searchTree(t testing.TB) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/config":          "needle in git dir\n",
		".git/info/exclude":    "secret.txt\n",
		".gitignore":           "*.log\nbuild/\n/vendor\ndocs/**\n!docs/keep.md\n",
		"main.go":              "package main\n\nfunc main() {\n\tneedle()\n}\n",
		"util.go":              "package main\n\n// needle helper\nfunc needle() {}\n",
		"app.log":              "needle in log\n",
		"secret.txt":           "needle secret\n",
		"build/out.go":         "needle in build\n",
		"vendor/dep.go":        "needle vendored\n",
		"src/vendor/keep.go":   "needle not root vendor\n",
		"docs/guide.md":        "needle in docs\n",
		"docs/keep.md":         "needle kept doc\n",
		".hidden/h.go":         "needle hidden\n",
		".env":                 "NEEDLE=1\n",
		"pkg/.gitignore":       "gen_*.go\n!gen_keep.go\n",
		"pkg/gen_a.go":         "needle generated\n",
		"pkg/gen_keep.go":      "needle generated kept\n",
		"pkg/real.go":          "package pkg\nvar x = 1 // needle\n",
		"pkg/deep/nested.txt":  "a\nb\nneedle deep\nc\nd\n",
		"pkg/deep/.gitignore":  "!*.log\n",
		"pkg/deep/trace.log":   "needle reincluded log\n",
		"bin/tool.bin":         "needle\x00binary",
		"notes/CRLF.txt":       "first\r\nneedle$\r\n",
		"notes/Caps.TXT":       "NEEDLE upper\n",
		"notes/empty-file.txt": "",
	})
	return dir
}

func searchOut(t *testing.T, dir string, args map[string]any) string {
	t.Helper()
	return mustOK(t, callTool(t, SearchFilesTool{}, dir, args))
}

func TestSearchContent(t *testing.T) {
	dir := searchTree(t)
	out := searchOut(t, dir, map[string]any{"pattern": "needle"})
	// docs/** ignores what is inside docs, not docs itself, so
	// !docs/keep.md re-includes that file; pkg/deep/.gitignore re-includes
	// *.log below it.
	want := strings.Join([]string{
		"docs/keep.md:1:needle kept doc",
		"main.go:4:\tneedle()",
		"notes/CRLF.txt:2:needle$",
		"pkg/deep/nested.txt:3:needle deep",
		"pkg/deep/trace.log:1:needle reincluded log",
		"pkg/gen_keep.go:1:needle generated kept",
		"pkg/real.go:2:var x = 1 // needle",
		"src/vendor/keep.go:1:needle not root vendor",
		"util.go:3:// needle helper",
		"util.go:4:func needle() {}",
	}, "\n")
	if out != want {
		t.Errorf("content search:\n%s\n--- want ---\n%s", out, want)
	}

	// Case-insensitive regexp, CRLF handling with $ anchors.
	out = searchOut(t, dir, map[string]any{"pattern": `(?i)^needle\b`, "path": "notes"})
	if out != "notes/CRLF.txt:2:needle$\nnotes/Caps.TXT:1:NEEDLE upper" {
		t.Errorf("notes search:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": `\$$`, "path": "notes"})
	if out != "notes/CRLF.txt:2:needle$" {
		t.Errorf("anchor on CRLF line:\n%s", out)
	}

	// file_glob, hidden files on request, a single file as path.
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "file_glob": "*.{md,txt}"})
	if out != "docs/keep.md:1:needle kept doc\nnotes/CRLF.txt:2:needle$\npkg/deep/nested.txt:3:needle deep" {
		t.Errorf("file_glob:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "(?i)needle", "file_glob": ".env"})
	if out != ".env:1:NEEDLE=1" {
		t.Errorf("hidden by glob:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "path": "app.log"})
	if out != "app.log:1:needle in log" {
		t.Errorf("single file:\n%s", out)
	}
	// Searching inside a subdirectory still applies the root .gitignore.
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "path": "pkg"})
	if strings.Contains(out, "gen_a.go") || !strings.Contains(out, "pkg/real.go:2:") {
		t.Errorf("pkg search:\n%s", out)
	}
	writeFiles(t, dir, map[string]string{"src/x.log": "needle\n"})
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "path": "src"})
	if strings.Contains(out, "x.log") {
		t.Errorf("root .gitignore not applied below the search root:\n%s", out)
	}

	// A symlinked directory as the search root is followed.
	if err := os.Symlink(filepath.Join(dir, "pkg"), filepath.Join(dir, "pkglink")); err != nil {
		t.Fatal(err)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "var x", "path": "pkglink"})
	if out != "pkglink/real.go:2:var x = 1 // needle" {
		t.Errorf("symlinked root:\n%s", out)
	}

	// No match is not an error.
	out = searchOut(t, dir, map[string]any{"pattern": "no such text anywhere"})
	if !strings.Contains(out, "No matches") {
		t.Errorf("no match: %q", out)
	}
	mustErr(t, callTool(t, SearchFilesTool{}, dir, map[string]any{"pattern": "(?<=x)y"}), "invalid regular expression", "RE2")
	mustErr(t, callTool(t, SearchFilesTool{}, dir, map[string]any{"pattern": "x", "path": "nope"}), "does not exist")
	mustErr(t, callTool(t, SearchFilesTool{}, dir, map[string]any{"pattern": ""}), "pattern")
	mustErr(t, callTool(t, SearchFilesTool{}, dir, map[string]any{"pattern": "x", "target": "dirs"}), "unknown target")
	mustErr(t, callTool(t, SearchFilesTool{}, dir, map[string]any{"pattern": "x", "offset": -1}), "offset")
}

func TestSearchContentModesAndContext(t *testing.T) {
	dir := searchTree(t)
	out := searchOut(t, dir, map[string]any{"pattern": "needle", "output_mode": "files_only", "path": "pkg", "target": "grep"})
	if out != "pkg/deep/nested.txt\npkg/deep/trace.log\npkg/gen_keep.go\npkg/real.go" {
		t.Errorf("files_only:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "output_mode": "count"})
	if !strings.Contains(out, "util.go:2\n") || !strings.Contains(out, "[Total: 10 matching lines in 9 files.]") {
		t.Errorf("count:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "needle|^b$", "path": "pkg/deep/nested.txt", "context": 1})
	want := "pkg/deep/nested.txt-1-a\npkg/deep/nested.txt:2:b\npkg/deep/nested.txt:3:needle deep\npkg/deep/nested.txt-4-c"
	if out != want {
		t.Errorf("context:\n%s\n--- want ---\n%s", out, want)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "path": "util.go", "context": 0, "limit": 1, "offset": 1})
	if !strings.HasPrefix(out, "util.go:4:func needle() {}\n") || !strings.Contains(out, "matches 2-2 of 2") {
		t.Errorf("paged single file:\n%s", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "needle", "path": "util.go", "context": 3})
	if strings.Count(out, "--") != 0 || !strings.HasPrefix(out, "util.go-1-package main\n") {
		t.Errorf("overlapping contexts must merge:\n%s", out)
	}
}

func TestSearchPagination(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit one\nmiss\nhit two\n"
	}
	writeFiles(t, dir, files)
	var all []string
	offset := 0
	for page := 0; page < 10; page++ {
		out := searchOut(t, dir, map[string]any{"pattern": "hit", "limit": 5, "offset": offset})
		body, footer, more := strings.Cut(out, "\n\n[")
		lines := strings.Split(body, "\n")
		all = append(all, lines...)
		if !more {
			t.Fatalf("page %d has no footer:\n%s", page, out)
		}
		if strings.Contains(footer, "more") {
			want := fmt.Sprintf("of 24. %d more: use offset=%d", 24-offset-len(lines), offset+len(lines))
			if !strings.Contains(footer, want) {
				t.Fatalf("footer %q lacks %q", footer, want)
			}
			offset += len(lines)
			continue
		}
		break
	}
	if len(all) != 24 || all[0] != "f00.txt:1:hit one" || all[1] != "f00.txt:3:hit two" || all[23] != "f11.txt:3:hit two" {
		t.Errorf("pages joined: %d lines, first %q last %q", len(all), all[0], all[len(all)-1])
	}
	out := searchOut(t, dir, map[string]any{"pattern": "hit", "offset": 24})
	if !strings.Contains(out, "past the end") {
		t.Errorf("offset past end: %q", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "hit", "output_mode": "files_only", "limit": 10})
	if !strings.Contains(out, "2 more: use offset=10") {
		t.Errorf("files_only paging: %q", out)
	}
}

func TestSearchFilesTarget(t *testing.T) {
	dir := searchTree(t)
	// Newest first: give the Go files distinct mtimes.
	base := time.Now().Add(-time.Hour)
	for i, p := range []string{"main.go", "util.go", "pkg/real.go", "pkg/gen_keep.go", "src/vendor/keep.go"} {
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, p), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	out := searchOut(t, dir, map[string]any{"pattern": "*.go", "target": "files"})
	want := "src/vendor/keep.go\npkg/gen_keep.go\npkg/real.go\nutil.go\nmain.go"
	if out != want {
		t.Errorf("files *.go:\n%s\n--- want ---\n%s", out, want)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "pkg/**/*.txt", "target": "find"})
	if out != "pkg/deep/nested.txt" {
		t.Errorf("path glob: %q", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": ".env", "target": "files"})
	if out != ".env" {
		t.Errorf("hidden by pattern: %q", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "*.go", "target": "files", "output_mode": "count"})
	if !strings.HasPrefix(out, "5 files") {
		t.Errorf("count: %q", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "*.go", "target": "files", "limit": 2, "offset": 2})
	if !strings.HasPrefix(out, "pkg/real.go\nutil.go\n") || !strings.Contains(out, "1 more: use offset=4") {
		t.Errorf("paging: %q", out)
	}
	out = searchOut(t, dir, map[string]any{"pattern": "real", "target": "files"})
	if !strings.Contains(out, `"*real*"`) {
		t.Errorf("no-wildcard hint: %q", out)
	}
	// Absolute paths outside the working directory stay absolute.
	out = mustOK(t, callTool(t, SearchFilesTool{}, t.TempDir(), map[string]any{"pattern": "real.go", "target": "files", "path": filepath.Join(dir, "pkg")}))
	if out != filepath.Join(dir, "pkg", "real.go") {
		t.Errorf("outside cwd: %q", out)
	}
}

func TestSearchCancelled(t *testing.T) {
	dir := searchTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := SearchFilesTool{}.Run(ctx, &Env{Cwd: dir}, []byte(`{"pattern":"needle"}`))
	mustErr(t, r, "cancelled")
}

// makeTree20k writes 20,000 small Go-like files in 200 directories, plus
// an ignored directory of 1,000 more.
func makeTree20k(b *testing.B) string {
	dir := b.TempDir()
	body := strings.Repeat("// filler line with some words in it\nfunc f() int { return 42 }\n", 20)
	for d := 0; d < 200; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			content := body
			if f%50 == 0 {
				content += fmt.Sprintf("const Needle%d = %d\n", d, f)
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ign := filepath.Join(dir, "node_modules")
	if err := os.MkdirAll(ign, 0o755); err != nil {
		b.Fatal(err)
	}
	for f := 0; f < 1000; f++ {
		if err := os.WriteFile(filepath.Join(ign, fmt.Sprintf("m%d.js", f)), []byte("const Needle = 1\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n*.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func BenchmarkSearchFiles20k(b *testing.B) {
	dir := makeTree20k(b)
	tool := SearchFilesTool{}
	env := &Env{Cwd: dir}
	args := []byte(`{"pattern": "Needle\\d+ = ", "limit": 50}`)
	for b.Loop() {
		r := tool.Run(context.Background(), env, args)
		if r.IsError || !strings.Contains(r.Output, "of 400") {
			b.Fatalf("unexpected result: %.300s", r.Output)
		}
	}
}

func BenchmarkSearchFilesNames20k(b *testing.B) {
	dir := makeTree20k(b)
	tool := SearchFilesTool{}
	env := &Env{Cwd: dir}
	args := []byte(`{"pattern": "file0[0-4]*.go", "target": "files"}`)
	for b.Loop() {
		r := tool.Run(context.Background(), env, args)
		if r.IsError || !strings.Contains(r.Output, "of 10000") {
			b.Fatalf("unexpected result: %.300s", r.Output)
		}
	}
}

// BenchmarkGrepR20k runs `grep -rE` for the same pattern over the same tree
// as BenchmarkSearchFiles20k, as the baseline for the ratio in the notes
// (grep does not skip the ignored directory; search_files does).
func BenchmarkGrepR20k(b *testing.B) {
	grep, err := exec.LookPath("grep")
	if err != nil {
		b.Skip("no grep")
	}
	dir := makeTree20k(b)
	for b.Loop() {
		out, err := exec.Command(grep, "-rE", `Needle[0-9]+ = `, dir).Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("grep: %v", err)
		}
	}
}
