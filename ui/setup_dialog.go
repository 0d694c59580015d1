package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The setup dialog's steps.
const (
	setupProvider = iota
	setupBaseURL
	setupKey
	setupModel
)

// envName is what "$NAME" in the key step must look like.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// setupDialog is the state of the first-run setup dialog, which lives in
// the picker's slot; its text input is the picker's filter, its model
// step the model picker.
type setupDialog struct {
	step      int
	providers []SetupProvider
	keyFile   string // where a typed key is stored (SetupOffer.KeyFile)
	sel       int
	req       SetupRequest
	// text is the message that opened the dialog, sent once a session is
	// open (and put back in the composer when the dialog is left).
	text string
	// note is the last problem (a bad URL, a failed apply), one line.
	note     string
	applying bool
}

// provider is the chosen provider.
func (d *setupDialog) provider() SetupProvider { return d.providers[d.sel] }

// stepNumber says which step this is of how many the chosen provider
// needs (a URL only for a custom server, a key only where one is taken).
func (d *setupDialog) stepNumber() (n, of int) {
	pr := d.provider()
	steps := []int{setupProvider}
	if pr.AskBaseURL {
		steps = append(steps, setupBaseURL)
	}
	if pr.KeyEnv != "" || !pr.KeyOptional {
		steps = append(steps, setupKey)
	}
	steps = append(steps, setupModel)
	for i, s := range steps {
		if s == d.step {
			return i + 1, len(steps)
		}
	}
	return 1, len(steps)
}

// setupAtStart opens the setup dialog when the screen opens without a
// provider and the wiring offers one.
func (m *Model) setupAtStart() {
	if m.can.Setup && m.ses.provider == "" && m.ses.model == "" && m.opts.InitialPrompt == "" {
		m.openSetup("")
	}
}

// setupBeforeTurn opens the setup dialog instead of sending text when no
// provider is configured yet: the message is sent once one is.
func (m *Model) setupBeforeTurn(text string) (tea.Cmd, bool) {
	if !m.can.Setup || m.ses.provider != "" || m.ses.model != "" {
		return nil, false
	}
	if p := m.modal.picker; p != nil && p.setup != nil {
		p.setup.text = text
		return nil, true
	}
	return m.openSetup(text), true
}

// openSetup shows the setup dialog's first step; text is the message to
// send once a session is open.
func (m *Model) openSetup(text string) tea.Cmd {
	if !m.can.Setup {
		return nil
	}
	offer := m.agent.SetupOffer()
	list := offer.Providers
	if len(list) == 0 {
		return nil
	}
	m.closePicker()
	p := newPicker(nil, "", m.pickerFilterWidth(), m.clock())
	p.setup = &setupDialog{providers: list, keyFile: offer.KeyFile, text: text}
	for i, pr := range list {
		if pr.KeySet {
			p.setup.sel = i // a key already set suggests its provider
			break
		}
	}
	m.modal.picker = p
	m.chromeDirty = true
	return nil
}

// setupKey handles a key in the setup dialog.
func (m *Model) setupKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.modal.picker
	d := p.setup
	m.chromeDirty = true
	if d.applying {
		return nil
	}
	if d.step == setupModel && p.models != nil {
		return m.modelPickerKey(msg)
	}
	k := msg.String()
	switch {
	case k == "esc":
		return m.setupBack()
	case k == "enter":
		return m.setupNext()
	case d.step == setupProvider:
		switch k {
		case "up", "ctrl+p":
			d.sel = (d.sel - 1 + len(d.providers)) % len(d.providers)
		case "down", "ctrl+n", "tab":
			d.sel = (d.sel + 1) % len(d.providers)
		default:
			if i := int(k[0] - '1'); len(k) == 1 && i >= 0 && i < len(d.providers) && i < 9 {
				d.sel = i
				return m.setupNext()
			}
		}
	case k == "shift+enter" || k == "ctrl+j" || k == "tab":
	default:
		p.filter.update(msg)
		d.note = ""
	}
	return nil
}

// setupNext leaves the current step for the next one.
func (m *Model) setupNext() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	d.note = ""
	switch d.step {
	case setupProvider:
		pr := d.provider()
		d.req = SetupRequest{Provider: pr.Name, KeyEnv: pr.KeyEnv}
		if pr.AskBaseURL {
			d.step = setupBaseURL
			p.filter.setValue(pr.BaseURL)
			return nil
		}
		return m.setupToKey()
	case setupBaseURL:
		u := strings.TrimSpace(p.filter.value())
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			d.note = "the URL must start with http:// or https://"
			return nil
		}
		d.req.BaseURL = u
		return m.setupToKey()
	case setupKey:
		return m.setupTakeKey()
	}
	return nil
}

// setupToKey goes to the key step, or past it for a provider that takes
// no key.
func (m *Model) setupToKey() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	p.filter.setValue("")
	if pr := d.provider(); pr.KeyEnv == "" && pr.KeyOptional {
		return m.setupToModel()
	}
	d.step = setupKey
	return nil
}

// setupTakeKey reads the key step's input: empty uses the provider's
// variable (when it is set, or the key is optional), $NAME another
// variable, anything else is a key to store.
func (m *Model) setupTakeKey() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	pr := d.provider()
	in := strings.TrimSpace(p.filter.value())
	switch {
	case in == "":
		if !pr.KeySet && !pr.KeyOptional {
			d.note = "$" + pr.KeyEnv + " is not set: paste a key, or type $NAME of the variable that holds it"
			return nil
		}
		d.req.KeyEnv, d.req.Key = pr.KeyEnv, ""
	case strings.HasPrefix(in, "$"):
		name := strings.TrimPrefix(in, "$")
		if !envName.MatchString(name) {
			d.note = "not a variable name: " + in
			return nil
		}
		d.req.KeyEnv, d.req.Key = name, ""
	case strings.ContainsAny(in, " \t"):
		d.note = "a key has no spaces: paste the key alone"
		return nil
	default:
		if d.req.KeyEnv == "" {
			d.req.KeyEnv = strings.ToUpper(strings.ReplaceAll(pr.Name, "-", "_")) + "_API_KEY"
		}
		d.req.Key = in
	}
	p.filter.setValue("")
	return m.setupToModel()
}

// setupToModel opens the model step: the model picker over the chosen
// provider's list, its default model first.
func (m *Model) setupToModel() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	d.step = setupModel
	pr := d.provider()
	mp := newModelPicker(pr.Name, "")
	n, of := d.stepNumber()
	mp.title = fmt.Sprintf("Set up: pick a model (step %d of %d)", n, of)
	if pr.DefaultModel != "" {
		mp.pinned, mp.pinnedTag = []string{pr.DefaultModel}, "default"
		mp.setList(ModelList{Provider: pr.Name})
		mp.loading, mp.note = true, ""
	}
	mp.refilter("")
	mp.choose = func(m *Model, name string) tea.Cmd { return m.setupApply(name) }
	p.models = mp
	p.filter.setValue("")
	sc, req := m.agent, d.req
	return m.loadModels(p, func(ctx context.Context) (ModelList, error) { return sc.SetupModels(ctx, req) })
}

// setupBack goes one step back; from the first step it closes the dialog
// and puts the message that opened it back in the composer.
func (m *Model) setupBack() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	d.note = ""
	switch d.step {
	case setupModel:
		if p.stop != nil {
			p.stop()
		}
		p.models = nil
		p.filter.setValue("")
		if pr := d.provider(); pr.KeyEnv == "" && pr.KeyOptional {
			return m.setupStepBackToURL()
		}
		d.step = setupKey
	case setupKey:
		return m.setupStepBackToURL()
	case setupBaseURL:
		d.step = setupProvider
		p.filter.setValue("")
	default:
		text := d.text
		m.closePicker()
		if text != "" && strings.TrimSpace(m.comp.value()) == "" {
			m.comp.setText(text)
		}
		m.notice(noticeMuted, "setup skipped · /model opens it again, or /model PROVIDER/NAME")
	}
	return nil
}

// setupStepBackToURL goes back to the base URL step, or to the provider
// step when the provider asks for none.
func (m *Model) setupStepBackToURL() tea.Cmd {
	p := m.modal.picker
	d := p.setup
	if d.provider().AskBaseURL {
		d.step = setupBaseURL
		p.filter.setValue(d.req.BaseURL)
		return nil
	}
	d.step = setupProvider
	p.filter.setValue("")
	return nil
}

// setupApply asks the wiring to write the configuration and open a
// session with model; on success the screen switches to it and the
// message that opened the dialog is sent.
func (m *Model) setupApply(model string) tea.Cmd {
	p := m.modal.picker
	d := p.setup
	sc := m.agent
	d.req.Model = model
	d.applying, d.note = true, ""
	req, ctx := d.req, m.ctx
	return func() tea.Msg {
		res, err := sc.SetupApply(ctx, req)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			if m.modal.picker != p {
				return nil
			}
			d.applying = false
			if err != nil {
				d.note = "setup failed: " + oneLine(errText(err))
				m.chromeDirty = true
				return nil
			}
			m.closePicker()
			cmd := m.switchSession(res.Session)
			if res.Notice != "" {
				m.notice(noticeInfo, res.Notice)
			}
			if d.text != "" {
				return tea.Batch(cmd, m.startTurn(d.text))
			}
			return cmd
		}}
	}
}

// setupParts lays out the setup dialog's step.
func (m *Model) setupParts() []boxPart {
	p := m.modal.picker
	d := p.setup
	if d.step == setupModel && p.models != nil {
		parts := m.modelPickerParts()
		if d.applying || d.note != "" {
			parts = append(parts[:len(parts)-1], m.setupNote(d), parts[len(parts)-1])
		}
		return parts
	}
	st, w := m.look.st, m.innerWidth()
	n, of := d.stepNumber()
	title := st.Accent.Render("Set up a model provider") + st.Muted.Render(fmt.Sprintf(" · step %d of %d", n, of))
	parts := []boxPart{{lines: []string{ansi.Truncate(title, w, "…")}}}
	text := func(s string, rank int) boxPart {
		var lines []string
		for _, l := range wrapText(s, max(1, w)) {
			lines = append(lines, st.Text.Render(ansi.Truncate(l, w, "…")))
		}
		return boxPart{lines: lines, rank: rank}
	}
	hint := ""
	switch d.step {
	case setupProvider:
		parts = append(parts, text("No model provider is configured yet. Pick one:", 4))
		var rows []string
		nameW := 0
		for _, pr := range d.providers {
			nameW = max(nameW, len(pr.Name))
		}
		for i, pr := range d.providers {
			rows = append(rows, m.setupProviderRow(i, pr, nameW, i == d.sel, w))
		}
		parts = append(parts, boxPart{lines: rows, rank: 3, keep: 1})
		hint = "↑↓ move · enter choose · esc skip"
	case setupBaseURL:
		parts = append(parts, text("The server's OpenAI-compatible base URL (llama.cpp, vLLM, LM Studio: …/v1):", 4))
		parts = append(parts, m.inputPart(p.filter, "URL: ", "http://127.0.0.1:8080/v1"))
		hint = "enter next · esc back"
	case setupKey:
		pr := d.provider()
		where := "in " + or(d.keyFile, "$TALARIA_HOME") + " (mode 0600)"
		parts = append(parts, text(fmt.Sprintf("The key for %s: paste it to store it %s, or type $NAME to read it from that environment variable.", pr.Name, where), 4))
		empty := "$" + pr.KeyEnv + " is not set"
		switch {
		case pr.KeySet:
			empty = "enter on an empty line uses $" + pr.KeyEnv + " (it is set)"
		case pr.KeyOptional:
			empty = "enter on an empty line: no key"
		}
		parts = append(parts, text(empty, 2))
		parts = append(parts, m.maskedInputPart(p.filter, "Key: ", "sk-… or $"+pr.KeyEnv))
		hint = "enter next · esc back"
	}
	if d.note != "" {
		parts = append(parts, m.setupNote(d))
	}
	return append(parts, m.footer(hint))
}

// setupNote is the line under a step: working, or the last problem.
func (m *Model) setupNote(d *setupDialog) boxPart {
	st, w := m.look.st, m.innerWidth()
	if d.applying {
		return boxPart{lines: []string{st.Muted.Render(ansi.Truncate("  writing the configuration and opening a session…", w, "…"))}}
	}
	return boxPart{lines: []string{st.Error.Render(ansi.Truncate("  "+d.note, w, "…"))}}
}

// setupProviderRow draws one provider: number, name, what it is and
// whether its key is set.
func (m *Model) setupProviderRow(i int, pr SetupProvider, nameW int, selected bool, w int) string {
	key := ""
	switch {
	case pr.KeySet:
		key = " · $" + pr.KeyEnv + " is set"
	case pr.KeyEnv == "" && pr.KeyOptional:
		key = " · no key"
	}
	row := fmt.Sprintf("%d. %s  %s%s", i+1, padRight(pr.Name, nameW), pr.Description, key)
	if selected {
		return m.look.st.PopupSelected.Render(padRight(ansi.Truncate("› "+row, w, "…"), w))
	}
	return m.look.st.Text.Render(ansi.Truncate("  "+row, w, "…"))
}

// maskedInputPart is inputPart with the typed text shown as asterisks,
// unless it is a $NAME: a pasted key never shows on the screen.
func (m *Model) maskedInputPart(ed editor, prompt, placeholder string) boxPart {
	v := ed.value()
	if v != "" && !strings.HasPrefix(v, "$") {
		masked := ed
		masked.lines = [][]rune{[]rune(strings.Repeat("*", len([]rune(v))))}
		masked.row, masked.col = 0, len(masked.lines[0])
		ed = masked
	}
	return m.inputPart(ed, prompt, placeholder)
}
