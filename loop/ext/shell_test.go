package ext

import (
	"strings"
	"testing"
)

// TestExpandWithShell: each !`cmd` of the body (at a line start or after
// whitespace) runs once with its placeholders replaced and its output in
// its place; a !`cmd` in the arguments or glued to a word is text; past
// MaxShellCommands the rest are not run.
func TestExpandWithShell(t *testing.T) {
	c := &Command{Name: "x", Body: "a !`git diff $0`\n!`echo $ARGUMENTS`\nword!`no` and `plain`"}
	var ran []string
	shell := func(cmd string) string { ran = append(ran, cmd); return "<" + cmd + ">" }
	got := c.ExpandWith("main.go !`rm -rf /`", ExpandOptions{}, shell)
	want := "a <git diff main.go>\n<echo main.go !`rm -rf /`>\nword!`no` and `plain`"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len(ran) != 2 {
		t.Errorf("ran %q", ran)
	}

	many := &Command{Name: "m", Body: strings.Repeat("!`true` ", MaxShellCommands+2)}
	ran = nil
	out := many.ExpandWith("", ExpandOptions{}, shell)
	if len(ran) != MaxShellCommands || strings.Count(out, "not run: a command runs at most") != 2 {
		t.Errorf("ran %d: %q", len(ran), out)
	}
	// Without a shell (no tools) the body is expanded as written.
	if got := c.ExpandWith("", ExpandOptions{}, nil); !strings.Contains(got, "!`git diff $0`") {
		t.Errorf("nil shell: %q", got)
	}
}
