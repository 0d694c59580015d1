package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Clipboard limits: OSC 52 payloads past a few hundred KiB are dropped by
// most terminals, and a clipboard program that hangs (an X server gone)
// must not keep a goroutine forever.
const (
	clipboardMaxBytes = 512 << 10
	clipboardTimeout  = 2 * time.Second
)

// termEnv is what the screen knows of the terminal around it, read once
// when the model is built: the multiplexer to wrap escapes for, and the
// display servers the clipboard programs need.
type termEnv struct {
	tmux, screen     bool
	wayland, display bool
	// lookPath finds a program; nil means exec.LookPath (tests stub it).
	lookPath func(string) (string, error)
}

func readTermEnv() termEnv {
	return termEnv{
		tmux:    os.Getenv("TMUX") != "",
		screen:  os.Getenv("STY") != "",
		wayland: os.Getenv("WAYLAND_DISPLAY") != "",
		display: os.Getenv("DISPLAY") != "",
	}
}

// passthrough wraps an escape sequence so that tmux (DCS tmux; with each
// ESC doubled) or screen (a plain DCS) hands it to the outer terminal.
// tmux needs allow-passthrough on for it; OSC 52 also reaches tmux's own
// buffer through set-clipboard, which the unwrapped sequence (sent too)
// feeds.
func (e termEnv) passthrough(seq string) string {
	switch {
	case e.tmux:
		return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	case e.screen:
		return "\x1bP" + seq + "\x1b\\"
	}
	return seq
}

// osc52 is the escape that puts text on the system clipboard.
func (e termEnv) osc52(text string) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
	if e.tmux || e.screen {
		return seq + e.passthrough(seq)
	}
	return seq
}

// clipboardProgram is a program that takes the clipboard's text on stdin.
type clipboardProgram struct {
	name string
	args []string
}

// programs lists the clipboard programs worth trying here, in order.
func (e termEnv) programs() []clipboardProgram {
	var ps []clipboardProgram
	if e.wayland {
		ps = append(ps, clipboardProgram{"wl-copy", nil})
	}
	if e.display {
		ps = append(ps, clipboardProgram{"xclip", []string{"-selection", "clipboard"}}, clipboardProgram{"xsel", []string{"--clipboard", "--input"}})
	}
	return append(ps, clipboardProgram{"pbcopy", nil})
}

// copiedMsg says how a copy went: via names what took the text.
type copiedMsg struct {
	what string // "3 lines", "the last answer"
	via  []string
	err  error
}

// copyText puts text on the clipboard: by OSC 52 (through the
// multiplexer) always, and by the first clipboard program found on PATH,
// run with a bounded time. The notice names both.
func (m *Model) copyText(text, what string) tea.Cmd {
	if len(text) > clipboardMaxBytes {
		cut := clipboardMaxBytes
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
		text, what = text[:cut], what+fmt.Sprintf(" (cut to its first %d KiB)", clipboardMaxBytes>>10)
	}
	env := m.term
	osc := tea.Raw(env.osc52(text))
	prog := func() tea.Msg {
		via := []string{"OSC 52"}
		look := env.lookPath
		if look == nil {
			look = exec.LookPath
		}
		for _, p := range env.programs() {
			path, err := look(p.name)
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), clipboardTimeout)
			cmd := exec.CommandContext(ctx, path, p.args...)
			cmd.Stdin = strings.NewReader(text)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.WaitDelay = time.Second
			err = cmd.Run()
			cancel()
			if err != nil {
				return copiedMsg{what: what, via: via, err: fmt.Errorf("%s: %v %s", p.name, err, strings.TrimSpace(firstLine(stderr.String(), 200)))}
			}
			via = append(via, p.name)
			break
		}
		return copiedMsg{what: what, via: via}
	}
	return tea.Batch(osc, prog)
}

// handleCopied reports a copy as a short hint.
func (m *Model) handleCopied(msg copiedMsg) tea.Cmd {
	text := "copied " + msg.what + " · " + strings.Join(msg.via, " + ")
	if msg.err != nil {
		text += " · " + msg.err.Error()
	}
	return m.setHint(text, 3*time.Second)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
