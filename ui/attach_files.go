package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// fileRef is one @path or @path#L10-40 word of a message: the file and,
// for a range, its first and last line (from is 0 for the whole file).
type fileRef struct {
	word     string // as typed, without the @
	path     string
	from, to int
}

// label is the reference as the chip shows it.
func (r fileRef) label() string {
	if r.from == 0 {
		return "@" + r.path
	}
	if r.from == r.to {
		return fmt.Sprintf("@%s#L%d", r.path, r.from)
	}
	return fmt.Sprintf("@%s#L%d-%d", r.path, r.from, r.to)
}

// fileRefs finds the words of text that start with @ and name a file
// known says is there, with an optional #L10, #L10-40 or #L10-L40 range;
// trailing punctuation ("see @a.go.") is not part of the path. Each
// reference is listed once, in the order of the text.
func fileRefs(text string, known func(string) bool) []fileRef {
	var out []fileRef
	seen := map[fileRef]bool{}
	for _, w := range strings.Fields(text) {
		if len(w) < 2 || w[0] != '@' {
			continue
		}
		w = w[1:]
		r, ok := parseRef(w, known)
		if !ok {
			r, ok = parseRef(strings.TrimRight(w, ".,;:!?)]}'\""), known)
		}
		key := fileRef{path: r.path, from: r.from, to: r.to}
		if ok && !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}

// parseRef reads PATH[#Lfrom[-[L]to]]; a range that does not parse, or
// whose end is before its start, makes the word no reference.
func parseRef(w string, known func(string) bool) (fileRef, bool) {
	path, frag, hasFrag := strings.Cut(w, "#")
	if path == "" || !known(path) {
		return fileRef{}, false
	}
	r := fileRef{word: w, path: path}
	if !hasFrag {
		return r, true
	}
	spec, ok := strings.CutPrefix(frag, "L")
	if !ok {
		return fileRef{}, false
	}
	a, b, isRange := strings.Cut(spec, "-")
	from, err := strconv.Atoi(a)
	if err != nil || from < 1 {
		return fileRef{}, false
	}
	to := from
	if isRange {
		if to, err = strconv.Atoi(strings.TrimPrefix(b, "L")); err != nil || to < from {
			return fileRef{}, false
		}
	}
	r.from, r.to = from, to
	return r, true
}

// attachedText is what the model gets for r: the file's text (as read,
// at most maxAttachedBytes) or the lines of its range, marked with the
// file and the lines:
//
//	<file path="ui/x.go" lines="10-40">
//	…
//	</file>
func attachedText(r fileRef, text string) string {
	body := strings.TrimRight(text, "\n")
	if r.from == 0 {
		return fmt.Sprintf("<file path=%q>\n%s\n</file>", r.path, body)
	}
	lines := strings.Split(body, "\n")
	switch {
	case r.from > len(lines):
		body = fmt.Sprintf("[%s has %d lines]", r.path, len(lines))
	default:
		to := min(r.to, len(lines))
		body = strings.Join(lines[r.from-1:to], "\n")
		if to < r.to {
			body += fmt.Sprintf("\n[%s ends at line %d]", r.path, len(lines))
		}
	}
	return fmt.Sprintf("<file path=%q lines=\"%d-%d\">\n%s\n</file>", r.path, r.from, r.to, body)
}

// attachTyped reads, in the background, the files of the @path words of
// the input that name a listed file not yet attached (typed or pasted
// whole rather than taken from the finder).
func (c *composer) attachTyped(env *composerEnv) tea.Cmd {
	v := c.value()
	if c.files.state != 2 || !strings.Contains(v, "@") {
		return nil
	}
	var cmds []tea.Cmd
	for _, r := range fileRefs(v, func(p string) bool { return c.files.set[p] }) {
		if _, done := c.attach[r.path]; done || c.attaching[r.path] {
			continue
		}
		if c.attaching == nil {
			c.attaching = map[string]bool{}
		}
		c.attaching[r.path] = true
		cmds = append(cmds, c.attachFile(env, completion{kind: completeFile, name: r.path}))
	}
	return tea.Batch(cmds...)
}

// fileChips are the chips of the attached files the input refers to.
func (c *composer) fileChips() []string {
	if len(c.attach) == 0 {
		return nil
	}
	var out []string
	for _, r := range fileRefs(c.value(), func(p string) bool { _, ok := c.attach[p]; return ok }) {
		size := fmtSize(len(c.attach[r.path]))
		switch n := r.to - r.from + 1; {
		case r.from == 0:
		case n == 1:
			size = fmt.Sprintf("line %d", r.from)
		default:
			size = fmt.Sprintf("%d lines", n)
		}
		out = append(out, r.label()+" · "+size)
	}
	return out
}
