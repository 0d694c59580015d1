package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are the Lip Gloss styles the UI draws with, all derived from one
// [Theme]'s tokens. Styles are immutable values: deriving from them is safe.
type Styles struct {
	Text   lipgloss.Style // body text
	Muted  lipgloss.Style // secondary text
	Faint  lipgloss.Style // tertiary text
	Accent lipgloss.Style // highlighted text
	Strong lipgloss.Style // bold body text

	UserPrompt lipgloss.Style // the "›" before a user message
	UserText   lipgloss.Style // the user message itself
	Steer      lipgloss.Style // a delivered steer in the transcript
	Reasoning  lipgloss.Style // collapsed or expanded thinking

	ToolName   lipgloss.Style // a tool's name on its card
	ToolArgs   lipgloss.Style // the argument preview
	ToolOutput lipgloss.Style // output preview lines
	ToolRule   lipgloss.Style // the "│" gutter of output previews
	Segment    lipgloss.Style // segment headers of a tool batch

	Success lipgloss.Style
	Error   lipgloss.Style
	Warning lipgloss.Style
	Info    lipgloss.Style

	DiffAdd  lipgloss.Style // "+" lines of a diff preview
	DiffDel  lipgloss.Style // "-" lines of a diff preview
	DiffHunk lipgloss.Style // "@@" lines of a diff preview

	Composer     lipgloss.Style // the composer box while idle
	ComposerBusy lipgloss.Style // the composer box while a turn runs
	Placeholder  lipgloss.Style // composer placeholder text

	Popup         lipgloss.Style // slash-command completion rows
	PopupSelected lipgloss.Style // the selected completion row

	StatusBar    lipgloss.Style // the bottom status line
	StatusAccent lipgloss.Style // emphasised status items
	StatusWarn   lipgloss.Style // warning status items (fallback, mouse off)

	GaugeFull  lipgloss.Style // the used part of the budget gauge
	GaugeEmpty lipgloss.Style // the remaining part of the budget gauge
}

// Styles builds the Lip Gloss styles for t. Under [Plain] no colour is set.
func (t Theme) Styles() Styles {
	base := lipgloss.NewStyle()
	fg := func(c color.Color) lipgloss.Style { return withFg(base, c) }
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	return Styles{
		Text:   fg(t.Fg),
		Muted:  fg(t.Muted),
		Faint:  fg(t.Faint).Faint(t.NoColor),
		Accent: fg(t.Accent).Bold(true),
		Strong: fg(t.Fg).Bold(true),

		UserPrompt: fg(t.User).Bold(true),
		UserText:   fg(t.Fg),
		Steer:      fg(t.User).Italic(true),
		Reasoning:  fg(t.Reasoning).Italic(true),

		ToolName:   fg(t.Tool).Bold(true),
		ToolArgs:   fg(t.Muted),
		ToolOutput: fg(t.Muted),
		ToolRule:   fg(t.Faint),
		Segment:    fg(t.Faint),

		Success: fg(t.Success),
		Error:   fg(t.Error).Bold(true),
		Warning: fg(t.Warning),
		Info:    fg(t.Info),

		DiffAdd:  fg(t.Success),
		DiffDel:  fg(t.Error),
		DiffHunk: fg(t.Info),

		Composer:     withBorderFg(box, t.BorderFocus),
		ComposerBusy: withBorderFg(box, t.Border),
		Placeholder:  fg(t.Faint),

		Popup:         fg(t.Muted),
		PopupSelected: withBg(fg(t.Fg), t.Selection).Bold(true),

		StatusBar:    fg(t.Muted),
		StatusAccent: fg(t.Accent),
		StatusWarn:   fg(t.Warning).Bold(true),

		GaugeFull:  fg(t.Accent),
		GaugeEmpty: fg(t.Faint),
	}
}

// withFg sets the foreground when c is not nil.
func withFg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s
	}
	return s.Foreground(c)
}

// withBg sets the background when c is not nil.
func withBg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s.Reverse(true)
	}
	return s.Background(c)
}

// withBorderFg sets the border colour when c is not nil.
func withBorderFg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s
	}
	return s.BorderForeground(c)
}
