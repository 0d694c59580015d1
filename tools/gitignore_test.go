package tools

import (
	"reflect"
	"sort"
	"testing"
)

func TestIgnoreRulesMatch(t *testing.T) {
	type probe struct {
		path    string
		isDir   bool
		decided bool
		ignored bool
	}
	cases := []struct {
		name   string
		text   string
		probes []probe
	}{
		{"basename anywhere", "*.log\n", []probe{
			{"a.log", false, true, true},
			{"deep/dir/b.log", false, true, true},
			{"a.log.txt", false, false, false},
			{"logs", true, false, false},
		}},
		{"name matches files and dirs at any depth", "build\n", []probe{
			{"build", true, true, true},
			{"src/build", true, true, true},
			{"src/build", false, true, true},
			{"builder", true, false, false},
		}},
		{"dir only", "out/\n", []probe{
			{"out", true, true, true},
			{"x/out", true, true, true},
			{"out", false, false, false},
		}},
		{"anchored with leading slash", "/vendor\n", []probe{
			{"vendor", true, true, true},
			{"src/vendor", true, false, false},
		}},
		{"anchored by inner slash", "doc/*.txt\n", []probe{
			{"doc/a.txt", false, true, true},
			{"doc/sub/a.txt", false, false, false},
			{"x/doc/a.txt", false, false, false},
		}},
		{"leading double star", "**/temp\n", []probe{
			{"temp", true, true, true},
			{"a/b/temp", false, true, true},
			{"a/temp/x", false, false, false},
		}},
		{"trailing double star matches inside only", "cache/**\n", []probe{
			{"cache", true, false, false},
			{"cache/a", false, true, true},
			{"cache/a/b", false, true, true},
		}},
		{"middle double star", "a/**/b\n", []probe{
			{"a/b", false, true, true},
			{"a/x/b", false, true, true},
			{"a/x/y/b", false, true, true},
			{"a/x/y/c", false, false, false},
		}},
		{"negation, last match wins", "*.log\n!keep.log\n", []probe{
			{"a.log", false, true, true},
			{"keep.log", false, true, false},
			{"sub/keep.log", false, true, false},
		}},
		{"negation then re-ignore", "*.log\n!*.log\nx.log\n", []probe{
			{"x.log", false, true, true},
			{"y.log", false, true, false},
		}},
		{"contents ignored, one file kept", "logs/*\n!logs/.keep\n", []probe{
			{"logs", true, false, false},
			{"logs/a", false, true, true},
			{"logs/.keep", false, true, false},
		}},
		{"comments, blanks, escapes, trailing spaces", "# comment\n\n\\#hash\n\\!bang\nspaced   \nkeep\\ \n", []probe{
			{"# comment", false, false, false},
			{"#hash", false, true, true},
			{"!bang", false, true, true},
			{"spaced", false, true, true},
			{"keep ", false, true, true},
		}},
		{"character classes and ?", "file[0-9].?s\n", []probe{
			{"file1.js", false, true, true},
			{"fileA.js", false, false, false},
		}},
		{"CRLF file", "*.tmp\r\n", []probe{
			{"x.tmp", false, true, true},
		}},
		{"invalid pattern skipped", "[\n*.o\n", []probe{
			{"a.o", false, true, true},
			{"[", false, false, false},
		}},
	}
	for _, c := range cases {
		rules := parseIgnore(c.text)
		for _, p := range c.probes {
			decided, ignored := rules.match(p.path, p.isDir)
			if decided != p.decided || ignored != p.ignored {
				t.Errorf("%s: match(%q, dir=%v) = (%v, %v), want (%v, %v)",
					c.name, p.path, p.isDir, decided, ignored, p.decided, p.ignored)
			}
		}
	}
}

func TestFileGlob(t *testing.T) {
	cases := []struct {
		glob string
		path string
		want bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/x/main.go", true},
		{"*.go", "main.go.bak", false},
		{"*.{ts,tsx}", "ui/app.tsx", true},
		{"*.{ts,tsx}", "ui/app.js", false},
		{"src/**/*.ts", "src/a/b/c.ts", true},
		{"src/**/*.ts", "src/c.ts", true},
		{"src/**/*.ts", "lib/c.ts", false},
		{"cmd/*.go", "a/cmd/x.go", true},
		{"/cmd/*.go", "a/cmd/x.go", false},
		{"/cmd/*.go", "cmd/x.go", true},
		{"./cmd/*.go", "cmd/x.go", true},
		{"Makefile", "sub/Makefile", true},
		{"{a,b{c,d}}.txt", "bd.txt", true},
		{"{a,b{c,d}}.txt", "b.txt", false},
	}
	for _, c := range cases {
		g, err := compileFileGlob(c.glob)
		if err != nil {
			t.Fatalf("compileFileGlob(%q): %v", c.glob, err)
		}
		if got := g.match(c.path); got != c.want {
			t.Errorf("glob %q match %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
	if g, err := compileFileGlob(""); err != nil || !g.match("anything") {
		t.Error("empty glob must match everything")
	}
	if _, err := compileFileGlob("[abc"); err == nil {
		t.Error("bad glob: want an error")
	}
}

func TestExpandBraces(t *testing.T) {
	cases := map[string][]string{
		"*.go":         {"*.go"},
		"*.{js,ts}":    {"*.js", "*.ts"},
		"{a,b}{1,2}":   {"a1", "a2", "b1", "b2"},
		"x{a,{b,c}}":   {"xa", "xb", "xc"},
		"lone{brace":   {"lone{brace"},
		`esc\{a,b\}`:   {`esc\{a,b\}`},
		"{only}":       {"only"},
		"empty{,s}.md": {"empty.md", "emptys.md"},
	}
	for in, want := range cases {
		got := expandBraces(in, 64)
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("expandBraces(%q) = %q, want %q", in, got, want)
		}
	}
	if got := expandBraces("{a,b}{c,d}{e,f}{g,h}", 5); len(got) != 5 {
		t.Errorf("limit not applied: %d patterns", len(got))
	}
}
