package ext

import (
	"regexp"
	"strconv"
	"strings"
)

// MaxShellCommands is how many !`cmd` of one command body run; the rest
// are replaced by a note.
const MaxShellCommands = 10

// bangCmd finds Claude Code's bash-execution syntax, !`cmd`, at the start
// of a line or after whitespace.
var bangCmd = regexp.MustCompile("(^|[ \t\n])!`([^`\n]+)`")

// HasShell reports whether the command's body holds a !`cmd`.
func (c *Command) HasShell() bool { return c != nil && bangCmd.MatchString(c.Body) }

// ExpandWith is Expand for a body that may hold !`cmd`: each one found in
// the body (never in the arguments or in an inlined file) has its
// placeholders replaced, then runs through shell, whose text (the
// command's output, or why it did not run) takes its place before the
// prompt is sent. The other steps are Expand's; @path inlining comes
// last, so a file's content never runs. A nil shell leaves every !`cmd`
// as written.
func (c *Command) ExpandWith(args string, o ExpandOptions, shell func(cmd string) string) string {
	if shell == nil || !c.HasShell() {
		return c.Expand(args, o)
	}
	args = strings.TrimSpace(args)
	words := Words(args)
	var b strings.Builder
	used, ran := false, 0
	body := c.Body
	last := 0
	for _, m := range bangCmd.FindAllStringSubmatchIndex(body, -1) {
		lit, u := substitute(body[last:m[3]], args, words, c.Arguments) // up to the "!"
		b.WriteString(lit)
		used = used || u
		cmd, u := substitute(body[m[4]:m[5]], args, words, c.Arguments)
		used = used || u
		ran++
		if ran > MaxShellCommands {
			b.WriteString("[!`" + cmd + "` not run: a command runs at most " + strconv.Itoa(MaxShellCommands) + " shell commands]")
		} else {
			b.WriteString(shell(cmd))
		}
		last = m[1]
	}
	lit, u := substitute(body[last:], args, words, c.Arguments)
	b.WriteString(lit)
	used = used || u
	text := b.String()
	if !used && args != "" {
		text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + args
	}
	return inlineFiles(text, o)
}
