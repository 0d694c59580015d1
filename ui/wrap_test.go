package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
)

// TestWrapKeepIndent: words are not split at the wrap, a word longer
// than the line is, and continuation lines keep the line's indentation.
func TestWrapKeepIndent(t *testing.T) {
	got := wrapKeepIndent("    if err := run(ctx, util_test.go, other); err != nil {", 30)
	want := []string{"    if err := run(ctx,", "    util_test.go, other); err", "    != nil {"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = wrapKeepIndent("aaaaaaaaaabbbbbbbbbbcccccccccc", 10)
	if strings.Join(got, "|") != "aaaaaaaaaa|bbbbbbbbbb|cccccccccc" {
		t.Errorf("long word: %q", got)
	}
	styled := "\x1b[31m  word1 word2 word3 word4\x1b[m"
	for _, l := range wrapKeepIndent(styled, 12) {
		if ansi.StringWidth(l) > 12 {
			t.Errorf("styled line %q wider than 12", l)
		}
	}
	if p := ansi.Strip(strings.Join(wrapKeepIndent(styled, 12), "|")); p != "  word1|  word2|  word3|  word4" {
		t.Errorf("styled: %q", p)
	}
}

// TestWrapsDoNotSplitWords: at 60 columns a failed call's error on its
// card and the pager wrap between words (util_test.g│o was seen), and in
// the pager a wrapped code line keeps its indentation.
func TestWrapsDoNotSplitWords(t *testing.T) {
	h := newHarness(t)
	h.size(60, 30)
	code := "func main() {\n\tif err := run(context.Background(), \"util_test.go\", options{verbose: true}); err != nil {\n\t\tpanic(err)\n\t}\n}"
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "read_file", Arguments: `{"path":"x.go"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 0), ID: "a", Name: "read_file", OK: false, Output: "Error: read_file: file not found: util_test.go. Use search_files with target=\"files\" to find it."},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "```go\n" + code + "\n```"},
	)
	contains(t, h.screen(), "│ Error: read_file: file not found: util_test.go. Use\n", "│ search_files with target=\"files\" to find it.\n")
	h.key("ctrl+t")
	contains(t, h.screen(),
		"Error: read_file: file not found: util_test.go. Use\nsearch_files with target=\"files\" to find it.\n",
		"    if err := run(context.Background(), \"util_test.go\",\n    options{verbose: true}); err != nil {\n")
}
