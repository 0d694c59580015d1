package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/themes"
	"talaria/tools"
)

// The kinds of completion the popup offers.
const (
	completeCommand = iota // a slash command name
	completeTheme          // /theme NAME
	completeFile           // @path
)

// Limits of the @path completion.
const (
	maxListedFiles   = 20000           // files listed from the working directory
	listTimeout      = 3 * time.Second // the longest the listing walks
	maxFileMatches   = 50              // rows offered for one query
	maxAttachedBytes = 256 << 10       // of one attached file
)

// completion is one row of the popup: what it shows and the whole input
// text taking it leaves in the composer.
type completion struct {
	kind  int
	name  string // the command, theme or path
	label string
	desc  string
	text  string
}

// fileList is the working directory's files for @path completion,
// listed once, in the background, the first time an @ is typed.
type fileList struct {
	state     int // 0 not listed, 1 listing, 2 listed
	files     []string
	set       map[string]bool // files, for an @path typed whole
	truncated bool            // more files than were listed, or the walk ran out of time
	err       error
	last      fileQuery // the last query's matches (finder_match.go)
}

// completions lists what the input being typed can complete to: a
// command name after "/", a theme after "/theme ", a file after "@" at
// the end of the input.
func (c *composer) completions(env *composerEnv) []completion {
	if c.search.active {
		return nil
	}
	v := c.value()
	if strings.Contains(v, "\n") && !strings.Contains(lastWord(v), "@") {
		return nil
	}
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		var out []completion
		for _, cm := range c.matches(env) {
			label := "/" + cm.name
			if cm.args != "" {
				label += " " + cm.args
			}
			text := "/" + cm.name
			if cm.args != "" {
				text += " "
			}
			out = append(out, completion{kind: completeCommand, name: cm.name, label: label, desc: cm.desc, text: text})
		}
		return out
	}
	if rest, ok := cutPrefixFold(v, "/theme "); ok && !strings.ContainsAny(rest, " \n") {
		return themeCompletions(rest)
	}
	if w := lastWord(v); strings.HasPrefix(w, "@") {
		return c.fileCompletions(v[:len(v)-len(w)], w[1:])
	}
	return nil
}

// themeCompletions lists the themes starting with prefix.
func themeCompletions(prefix string) []completion {
	var out []completion
	for _, name := range append(themes.Names(), themes.Auto) {
		if strings.HasPrefix(name, strings.ToLower(prefix)) && name != prefix {
			out = append(out, completion{kind: completeTheme, name: name, label: name, desc: "theme", text: "/theme " + name})
		}
	}
	return out
}

// fileCompletions lists the listed files matching what follows the @,
// best fuzzy match first (finder_match.go); a range being typed after a
// path ("@a.go#L10") offers nothing.
func (c *composer) fileCompletions(before, q string) []completion {
	fl := &c.files
	if fl.state != 2 || strings.Contains(q, "#") {
		return nil
	}
	matched := fl.match(q)
	out := make([]completion, 0, len(matched))
	for _, f := range matched {
		if f == q {
			continue // already complete
		}
		out = append(out, completion{kind: completeFile, name: f, label: "@" + f, desc: "file", text: before + "@" + f + " "})
	}
	return out
}

// ensureFileList starts listing the working directory once an @ has
// been typed; once it is listed, an @path typed or pasted whole is
// attached as one taken from the popup is (attachTyped).
func (c *composer) ensureFileList(env *composerEnv) tea.Cmd {
	if c.files.state == 2 {
		return c.attachTyped(env)
	}
	if c.files.state != 0 || !strings.Contains(lastWord(c.value()), "@") {
		return nil
	}
	c.files.state = 1
	ctx, root := env.ctx, env.cwd
	return func() tea.Msg {
		files, truncated, err := listFiles(ctx, root)
		return composerMsg{apply: func(c *composer, env *composerEnv) composerIntent {
			c.files = newFileList(files, truncated, err)
			c.popupClosed = false
			return composerIntent{dirty: dirtyChrome, cmd: c.attachTyped(env)}
		}}
	}
}

// listFiles lists root for completion, at most maxListedFiles files
// within listTimeout (what was found by then is kept, as truncated); a
// missing root lists nothing.
func listFiles(ctx context.Context, root string) ([]string, bool, error) {
	if root == "" {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	files, truncated, err := tools.ListFiles(ctx, root, maxListedFiles)
	if errors.Is(err, context.DeadlineExceeded) {
		truncated, err = true, nil
	}
	sort.Strings(files)
	return files, truncated, err
}

// attachFile reads a file completion's file in the background; the text
// goes with the next message sent (see withAttachments).
func (c *composer) attachFile(env *composerEnv, cm completion) tea.Cmd {
	if cm.kind != completeFile {
		return nil
	}
	root, path := env.cwd, cm.name
	return func() tea.Msg {
		text, err := readAttachment(filepath.Join(root, filepath.FromSlash(path)))
		return composerMsg{apply: func(c *composer, _ *composerEnv) composerIntent {
			delete(c.attaching, path)
			if err != nil {
				return warn(fmt.Sprintf("@%s is not attached: %v", path, err))
			}
			if c.attach == nil {
				c.attach = map[string]string{}
			}
			c.attach[path] = text
			return composerIntent{dirty: dirtyChrome | dirtyInput} // its chip
		}}
	}
}

// readAttachment reads a text file, at most maxAttachedBytes of it.
func readAttachment(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, maxAttachedBytes+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	buf = buf[:n]
	if bytes.IndexByte(buf, 0) >= 0 {
		return "", fmt.Errorf("a binary file")
	}
	text := string(buf)
	if n > maxAttachedBytes {
		text = string(buf[:maxAttachedBytes]) + "\n[… cut at 256 KiB]"
	}
	return text, nil
}

// withAttachments adds to text being sent the output of the !commands
// run since the last message (before it) and the files and line ranges
// its @path and @path#L10-40 words name that were attached (after it, in
// the order of the text, see attachedText; the last input's, handed over
// when the composer was emptied). The screen shows text as typed; the
// model gets the rest too, as Claude Code's ! and @ do.
func (c *composer) withAttachments(text string) string {
	att, shell := c.sentAttach, c.shellOut
	c.sentAttach, c.shellOut = nil, nil
	if len(shell) > 0 {
		text = "Output of the commands I ran:\n" + strings.Join(shell, "\n") + "\n\n" + text
	}
	if len(att) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, r := range fileRefs(text, func(p string) bool { _, ok := att[p]; return ok }) {
		b.WriteString("\n\n")
		b.WriteString(attachedText(r, att[r.path]))
	}
	return b.String()
}

// lastWord is the text after the last space or newline.
func lastWord(s string) string {
	return s[strings.LastIndexAny(s, " \n\t")+1:]
}

// cutPrefixFold is strings.CutPrefix, ignoring ASCII case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
