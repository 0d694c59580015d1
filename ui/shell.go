package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
	"talaria/tools"
)

// Limits of a !cmd's output: shown on its card once done, carried to the
// model, and buffered between the command and the screen.
const (
	shellShownLines   = 30
	shellContextBytes = 16 << 10
	shellChunks       = 64
)

// shellRun is one !cmd in flight: its card, and the stream of its live
// output, closed when the command returned (res and err are set before).
type shellRun struct {
	command string
	call    *toolCall
	batch   *toolBatch
	out     chan string
	res     tools.Result
	err     error
}

// shellOutputMsg is live output of a running !cmd; shellDoneMsg its end.
type (
	shellOutputMsg struct {
		run  *shellRun
		text string
	}
	shellDoneMsg struct{ run *shellRun }
)

// shellWriter hands a command's live output to the screen; it blocks when
// the screen is behind, and drops output once the screen is gone.
type shellWriter struct {
	out  chan<- string
	done <-chan struct{}
}

func (w shellWriter) Write(p []byte) (int, error) {
	select {
	case w.out <- string(p):
	case <-w.done:
	}
	return len(p), nil
}

// runShell runs !cmd: a lane shows its output live, and the next message
// sent carries command and output to the model (as Claude Code's and
// Codex's ! do). Refused while a turn runs: its output would land in the
// middle of the turn.
func (m *Model) runShell(command string) tea.Cmd {
	sa := m.agent
	switch {
	case !m.can.Shell:
		m.notice(noticeWarn, "!"+command+": this session cannot run shell commands")
		return nil
	case m.turn.busy:
		m.notice(noticeWarn, "!"+command+" refused: a turn is running · esc interrupts it, then run it again")
		return nil
	}
	args, _ := providers.MarshalKeepingBytes(map[string]string{"command": command})
	run := &shellRun{command: command, out: make(chan string, shellChunks)}
	run.call = &toolCall{id: "!", name: "!", args: string(args), state: toolRunning, started: m.clock(), user: true}
	run.batch = &toolBatch{segments: []*toolSegment{{mode: "sequential", calls: []*toolCall{run.call}}}}
	m.tr.push(run.batch)
	m.scrollToEnd()
	m.trDirty = true
	ctx := tools.ContextWithOutput(m.ctx, shellWriter{out: run.out, done: m.ctx.Done()})
	start := func() tea.Msg {
		run.res, run.err = sa.Shell(ctx, command)
		close(run.out)
		return nil
	}
	return tea.Batch(start, run.next(), m.ensureTicking())
}

// next waits for the run's next output (several chunks at once when they
// piled up), or its end.
func (r *shellRun) next() tea.Cmd {
	return func() tea.Msg {
		t, ok := <-r.out
		if !ok {
			return shellDoneMsg{r}
		}
		var b strings.Builder
		b.WriteString(t)
	drain:
		for range shellChunks {
			select {
			case more, ok := <-r.out:
				if !ok {
					break drain // the end is read next time
				}
				b.WriteString(more)
			default:
				break drain
			}
		}
		return shellOutputMsg{r, b.String()}
	}
}

// handleShellOutput adds live output to the !cmd's lane.
func (m *Model) handleShellOutput(msg shellOutputMsg) tea.Cmd {
	c := msg.run.call
	c.live.write(msg.text)
	c.full.write(msg.text)
	msg.run.batch.ver++
	m.trDirty = true
	return msg.run.next()
}

// handleShellDone settles the !cmd's card and keeps its output for the
// next message.
func (m *Model) handleShellDone(msg shellDoneMsg) tea.Cmd {
	r := msg.run
	c, res, err := r.call, r.res, r.err
	c.dur = m.clock().Sub(c.started)
	r.batch.ver++
	m.trDirty = true
	switch {
	case errors.Is(err, loop.ErrBusy):
		c.state, c.output = toolCancelled, "refused: a turn is running"
		return nil
	case err != nil:
		c.state, c.output = toolFailed, err.Error() // the card says it
		return nil
	}
	c.state, c.output = toolDone, res.Output
	if res.IsError {
		c.state = toolFailed
	}
	out := strings.TrimRight(res.Output, "\n")
	if len(out) > shellContextBytes {
		out = "[… cut]\n" + out[len(out)-shellContextBytes:]
	}
	m.comp.shellOut = append(m.comp.shellOut, fmt.Sprintf("<shell command=%q>\n%s\n</shell>", r.command, out))
	m.notice(noticeMuted, "the output goes to the model with your next message")
	return nil
}
