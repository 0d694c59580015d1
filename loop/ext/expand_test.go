package ext

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExpandArguments(t *testing.T) {
	cases := []struct {
		name, body, args, want string
		names                  []string
	}{
		{"all", "Fix $ARGUMENTS now", "issue 123", "Fix issue 123 now", nil},
		{"raw as typed", "Q: $ARGUMENTS", `"a b" c`, `Q: "a b" c`, nil},
		{"zero-based", "first $0 second $1", "a b", "first a second b", nil},
		{"indexed", "$ARGUMENTS[0]/$ARGUMENTS[1]", "x y", "x/y", nil},
		{"quoted word", "[$0] [$1]", `"hello world" 'it''s' a\ b`, "[hello world] [its]", nil},
		{"backslash word", "[$2]", `"hello world" x a\ b`, "[a b]", nil},
		{"missing stays literal", "$0 and $3 and $ARGUMENTS[5]", "only", "only and $3 and $ARGUMENTS[5]", nil},
		{"escaped", `literal \$1 and \$ARGUMENTS, real $0`, "v", "literal $1 and $ARGUMENTS, real v", nil},
		{"appended when unused", "Do the thing.\n", "with care", "Do the thing.\n\nARGUMENTS: with care", nil},
		{"nothing appended without args", "Do the thing.\n", "", "Do the thing.\n", nil},
		{"only escaped: appended", `price \$1`, "x", "price $1\n\nARGUMENTS: x", nil},
		{"named", "from $src to $dst", "a.txt b.txt", "from a.txt to b.txt", []string{"src", "dst"}},
		{"other dollars kept", "echo $HOME $ARGUMENTSX ${x} $", "a", "echo $HOME $ARGUMENTSX ${x} $\n\nARGUMENTS: a", nil},
		{"no expansion in words", "[$0][$1]", `$HOME '$(id)'`, "[$HOME][$(id)]", nil},
		{"multi-digit", "$10", "0 1 2 3 4 5 6 7 8 9 ten", "ten", nil},
		{"unclosed quote falls back", "[$0][$1]", `"a b`, `["a][b]`, nil},
		{"operators fall back", "[$0][$1][$2]", `a;b | c`, "[a;b][|][c]", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := &Command{Body: c.body, Arguments: c.names}
			if got := cmd.Expand(c.args, ExpandOptions{}); got != c.want {
				t.Errorf("Expand(%q) of %q = %q, want %q", c.args, c.body, got, c.want)
			}
		})
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		`a "b c" 'd e' f\ g`:    {"a", "b c", "d e", "f g"},
		`"x\"y" "\$HOME" 'a\b'`: {`x"y`, "$HOME", `a\b`},
		`~ *.go {a,b}`:          {"~", "*.go", "{a,b}"},
		"  ":                    nil,
	} {
		if got := Words(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandInlinesFiles(t *testing.T) {
	root := copyProject(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "TOP SECRET\n")
	if err := os.Symlink(outside, filepath.Join(root, "src", "link.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "src", "bin.dat"), "a\x00b")
	o := ExpandOptions{Root: root, Cwd: filepath.Join(root, "src")}

	s := Load(Options{Cwd: root, ClaudeDirs: true})
	got := s.Commands["review"].Expand("42 high", o)
	if !strings.HasPrefix(got, "Review PR #42 with priority high.") || !strings.Contains(got, "<file path=\"src/main.go\">\npackage main\n") {
		t.Errorf("review expanded to:\n%s", got)
	}

	cmd := &Command{Body: "see @" + outside + " and @../../etc/passwd and @link.txt and @bin.dat and @nothing-here and mail a@b.c, @main.go."}
	got = cmd.Expand("", o)
	if strings.Contains(got, "TOP SECRET") || strings.Contains(got, "root:") {
		t.Fatalf("a file outside the project was inlined:\n%s", got)
	}
	for _, want := range []string{"@" + outside + " [not inlined: outside the project]", "@link.txt [not inlined: outside the project]",
		"@bin.dat [not inlined: a binary file]", "@nothing-here and mail a@b.c", "<file path=\"src/main.go\">"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestExpandInlineBounded(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("y", MaxInlineBytes+100))
	got := (&Command{Body: "@big.txt"}).Expand("", ExpandOptions{Root: root})
	if len(got) > MaxInlineBytes+200 || !strings.Contains(got, "[truncated at 256 KiB") {
		t.Errorf("big file: %d bytes, tail %q", len(got), got[max(0, len(got)-80):])
	}
	var refs []string
	for i := range MaxInlineFiles + 2 {
		name := filepath.Join(root, "f"+string(rune('a'+i))+".txt")
		write(t, name, "z\n")
		refs = append(refs, "@"+filepath.Base(name))
	}
	got = (&Command{Body: strings.Join(refs, " ")}).Expand("", ExpandOptions{Root: root})
	if n := strings.Count(got, "<file path="); n != MaxInlineFiles {
		t.Errorf("%d files inlined, want %d", n, MaxInlineFiles)
	}
	if !strings.Contains(got, "[not inlined: too many files for one prompt]") {
		t.Errorf("no note for the files over the count")
	}
}
