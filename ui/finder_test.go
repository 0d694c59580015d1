package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// finderDir is a project with a few files, one of them ignored.
func finderDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.go":                  "package main\n",
		"ui/composer.go":           "package ui\n\n// line 3\n// line 4\n// line 5\n",
		"ui/complete.go":           "package ui\n",
		"loop/agent.go":            "package loop\n",
		"docs/manual.md":           "# manual\n",
		"loop/compress/summary.go": "package compress\n",
		".gitignore":               "build/\n",
		"build/generated.go":       "package build\n",
		"cmd/main_helper.txt":      "x\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// popupRowsText is the finder's rows as shown.
func popupRowsText(h *harness) string { return plain(h.m.popupView) }

// Typing after @ filters the project's files fuzzily (the letters in
// order, best match first, ignored files never), Enter takes the
// highlighted one and attaches it (its chip shows), Esc closes the finder.
func TestFinderFiltersAttachesAndCloses(t *testing.T) {
	dir := finderDir(t)
	h := newHarness(t, func(o *Options) { o.Cwd = dir })
	h.m.ses.cwd = dir
	h.typeText("see ")
	h.settle(tea.KeyPressMsg{Code: '@', Text: "@"})
	rows := popupRowsText(h)
	if !strings.Contains(rows, "@main.go") || strings.Contains(rows, "generated.go") {
		t.Fatalf("the finder on @:\n%s", rows)
	}
	h.typeText("cmpsr")
	rows = popupRowsText(h)
	lines := strings.Split(strings.TrimSpace(rows), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "@ui/composer.go") || !strings.Contains(lines[1], "@loop/compress/summary.go") {
		t.Fatalf("the finder on @cmpsr:\n%s", rows)
	}
	h.settle(keyMsg("enter"))
	if v := h.m.comp.value(); v != "see @ui/composer.go " {
		t.Fatalf("enter took %q", v)
	}
	if h.popupOpen() {
		t.Fatal("the finder stayed open after enter")
	}
	contains(t, plain(h.m.composerView), "[@ui/composer.go · 42 bytes]")
	// A # typed right after the path the finder put in joins it.
	h.typeText("#L3")
	if v := h.m.comp.value(); v != "see @ui/composer.go#L3" {
		t.Fatalf("# after the finder: %q", v)
	}
	contains(t, plain(h.m.composerView), "[@ui/composer.go#L3 · line 3]")
	h.typeText(" ")

	// Esc closes the finder and keeps the input.
	h.typeText("and @mn")
	if !h.m.popupOpen() {
		t.Fatal("the finder did not open again")
	}
	if rows := popupRowsText(h); !strings.HasPrefix(strings.TrimSpace(rows), "@main.go") {
		t.Fatalf("@mn does not rank main.go first:\n%s", rows)
	}
	h.settle(keyMsg("esc"))
	if h.m.popupOpen() || h.m.comp.value() != "see @ui/composer.go#L3 and @mn" {
		t.Fatalf("after esc: open %v, input %q", h.m.popupOpen(), h.m.comp.value())
	}
}

func (h *harness) popupOpen() bool { return h.m.popupOpen() }

// @path#L3-4 sends those lines of the file, marked with the file and the
// range; a path typed whole (not taken from the finder) is attached too.
func TestFinderLineRange(t *testing.T) {
	dir := finderDir(t)
	h := newHarness(t, func(o *Options) { o.Cwd = dir })
	h.m.ses.cwd = dir
	h.settle(tea.KeyPressMsg{Code: '@', Text: "@"})
	h.m.comp.setText("")
	for _, r := range "explain @ui/composer.go#L3-4 and @main.go" {
		h.settle(tea.KeyPressMsg{Code: r, Text: string(r)}) // the typed paths are read in the background
	}
	contains(t, plain(h.m.composerView), "[@ui/composer.go#L3-4 · 2 lines]", "[@main.go · 13 bytes]")
	h.settle(keyMsg("enter"))
	calls := h.agent.got()
	want := "explain @ui/composer.go#L3-4 and @main.go\n\n" +
		"<file path=\"ui/composer.go\" lines=\"3-4\">\n// line 3\n// line 4\n</file>\n\n" +
		"<file path=\"main.go\">\npackage main\n</file>"
	if len(calls) != 1 || calls[0] != "run:"+want+" " && calls[0] != "run:"+want {
		t.Fatalf("sent %q\nwant %q", calls, want)
	}
}

// parseRef reads the range forms and refuses broken ones.
func TestParseRef(t *testing.T) {
	known := func(p string) bool { return p == "a.go" }
	for w, want := range map[string]string{
		"a.go":         "@a.go",
		"a.go#L10":     "@a.go#L10",
		"a.go#L10-40":  "@a.go#L10-40",
		"a.go#L10-L40": "@a.go#L10-40",
		"a.go#L40-10":  "",
		"a.go#L0":      "",
		"a.go#10":      "",
		"b.go":         "",
	} {
		r, ok := parseRef(w, known)
		if got := r.label(); ok != (want != "") || ok && got != want {
			t.Errorf("%q: %q %v, want %q", w, got, ok, want)
		}
	}
	refs := fileRefs("see @a.go, @a.go#L1-2. and @a.go", known)
	if len(refs) != 2 || refs[0].label() != "@a.go" || refs[1].label() != "@a.go#L1-2" {
		t.Fatalf("refs %+v", refs)
	}
	body := attachedText(fileRef{path: "a.go", from: 2, to: 9}, "1\n2\n3\n")
	if body != "<file path=\"a.go\" lines=\"2-9\">\n2\n3\n[a.go ends at line 3]\n</file>" {
		t.Fatalf("a range past the end: %q", body)
	}
}

// The finder matches among maxListedFiles files as a query is typed
// letter by letter (each query narrowing the last one's candidates).
func BenchmarkFinderMatch(b *testing.B) {
	files := make([]string, maxListedFiles)
	for i := range files {
		files[i] = fmt.Sprintf("pkg%03d/sub%02d/file_%05d.go", i%300, i%17, i)
	}
	typed := []string{"f", "fi", "fil", "file", "file_", "file_1", "file_19"}
	fl := newFileList(files, false, nil)
	b.ResetTimer()
	for i := range b.N {
		q := typed[i%len(typed)]
		if q == "f" {
			fl.last = fileQuery{}
		}
		if len(fl.match(q)) > maxFileMatches {
			b.Fatal("too many")
		}
	}
}

// The same over this repository's own files, typed "composer".
func BenchmarkFinderMatchRepo(b *testing.B) {
	files, _, err := listFiles(b.Context(), "..")
	if err != nil {
		b.Fatal(err)
	}
	typed := []string{"c", "co", "com", "comp", "compo", "compos", "compose", "composer"}
	fl := newFileList(files, false, nil)
	b.ReportMetric(float64(len(files)), "files")
	b.ResetTimer()
	for i := range b.N {
		q := typed[i%len(typed)]
		if q == "c" {
			fl.last = fileQuery{}
		}
		fl.match(q)
	}
}
