package ui

import (
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// openEditor edits the draft in $VISUAL or $EDITOR (vi when neither is
// set), as Ctrl+G does in Codex: the draft goes to a temporary file, the
// screen hands the terminal to the editor, and what was saved comes back
// as the draft. An editor that fails keeps the old draft.
func (c *composer) openEditor() tea.Cmd {
	draft := c.expanded()
	editor := strings.TrimSpace(or(os.Getenv("VISUAL"), os.Getenv("EDITOR")))
	if editor == "" {
		editor = "vi"
	}
	return func() tea.Msg {
		path, cmd, err := prepareEdit(draft, editor)
		return composerMsg{apply: func(*composer, *composerEnv) composerIntent {
			if err != nil {
				return composerIntent{errWhat: "ctrl+g", err: err}
			}
			return composerIntent{cmd: tea.ExecProcess(cmd, editDone(path))}
		}}
	}
}

// prepareEdit writes draft to a temporary file and builds the editor
// command for it. The editor setting may carry arguments ("code -w"):
// the shell splits it, and the path goes as "$1".
func prepareEdit(draft, editor string) (string, *exec.Cmd, error) {
	f, err := os.CreateTemp("", "talaria-draft-*.md")
	if err != nil {
		return "", nil, err
	}
	_, err = f.WriteString(draft)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", nil, err
	}
	return f.Name(), exec.Command("sh", "-c", editor+` "$1"`, "talaria-editor", f.Name()), nil
}

// editDone reads the edited draft back (and removes the file) once the
// editor exits.
func editDone(path string) func(error) tea.Msg {
	return func(err error) tea.Msg {
		data, rerr := os.ReadFile(path)
		_ = os.Remove(path)
		if err == nil {
			err = rerr
		}
		return composerMsg{apply: func(c *composer, _ *composerEnv) composerIntent {
			if err != nil {
				return composerIntent{errWhat: "ctrl+g: the editor", err: err}
			}
			c.setText(strings.TrimRight(normalizeNewlines(string(data)), "\n"))
			c.pastes = nil
			return composerIntent{dirty: dirtyChrome | dirtyInput}
		}}
	}
}
