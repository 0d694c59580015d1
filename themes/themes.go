// Package themes holds talaria's colour themes: a small set of semantic
// colour tokens per theme, the Lip Gloss styles built from those tokens and
// the matching glamour markdown style.
//
// A [Theme] is plain data. Components never pick colours themselves: they
// read a [Styles] value built by [Theme.Styles], and markdown is rendered
// with [Theme.Glamour]. [Plain] is the theme used when NO_COLOR is set: it
// carries no colours at all, only text attributes such as bold.
package themes

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// Auto is the theme name that follows the terminal background: [Default]
// picks dark or light once the background colour is known.
const Auto = "auto"

// Theme is a named set of semantic colour tokens. A nil token means "no
// colour" (the terminal default), which is how [Plain] is expressed.
type Theme struct {
	// Name is the name users type in /theme and --theme.
	Name string
	// Dark reports whether the palette is meant for a dark background.
	Dark bool
	// NoColor marks the plain theme used under NO_COLOR.
	NoColor bool

	Fg     color.Color // body text
	Muted  color.Color // secondary text: hints, metadata
	Faint  color.Color // tertiary text: separators, collapsed reasoning
	Accent color.Color // focus, headings, the active element

	User      color.Color // the user's messages
	Assistant color.Color // the assistant's answer text
	Reasoning color.Color // the model's visible thinking
	Tool      color.Color // tool names and cards

	Success color.Color
	Error   color.Color
	Warning color.Color
	Info    color.Color

	Border      color.Color // inactive borders and rules
	BorderFocus color.Color // the focused composer border
	Selection   color.Color // background of a selected row

	CodeFg color.Color // inline code
	CodeBg color.Color // inline code and code block background

	// Syntax tokens for highlighted code blocks.
	Keyword  color.Color
	String   color.Color
	Number   color.Color
	Comment  color.Color
	Function color.Color
	Type     color.Color
	Operator color.Color
}

// Names returns the names of the built-in themes, sorted.
func Names() []string {
	all := builtins()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the built-in theme with the given name (case-insensitive;
// "hc" and "highcontrast" are accepted for "high-contrast"). It reports false
// for unknown names and for [Auto], which is not a palette.
func Lookup(name string) (Theme, bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	switch key {
	case "hc", "highcontrast", "high_contrast":
		key = "high-contrast"
	case "solarized-dark":
		key = "solarized"
	}
	build, ok := builtins()[key]
	if !ok {
		return Theme{}, false
	}
	return build(), true
}

// Valid reports whether name is a built-in theme or [Auto] (or empty, which
// means [Auto]).
func Valid(name string) bool {
	if name == "" || strings.EqualFold(name, Auto) {
		return true
	}
	_, ok := Lookup(name)
	return ok
}

// Default returns the theme used when none is configured: dark on a dark
// terminal background, light otherwise.
func Default(dark bool) Theme {
	if dark {
		return darkTheme()
	}
	return lightTheme()
}

// Resolve returns the theme for a configured name: [Auto] or "" follows the
// terminal background (dark says which), anything else is looked up. An
// unknown name is an error naming the known ones.
func Resolve(name string, dark bool) (Theme, error) {
	if name == "" || strings.EqualFold(name, Auto) {
		return Default(dark), nil
	}
	t, ok := Lookup(name)
	if !ok {
		return Theme{}, fmt.Errorf("unknown theme %q (known: %s, %s)", name, strings.Join(Names(), ", "), Auto)
	}
	return t, nil
}

// Plain returns the colourless theme honoured under NO_COLOR. Every colour
// token is nil; styles keep bold, italic and faint only.
func Plain() Theme {
	return Theme{Name: "no-color", Dark: true, NoColor: true}
}

// builtins maps each built-in theme name to its constructor. It is a
// function, not a package variable, so nothing global can be mutated.
func builtins() map[string]func() Theme {
	return map[string]func() Theme{
		"dark":          darkTheme,
		"light":         lightTheme,
		"high-contrast": highContrastTheme,
		"solarized":     solarizedTheme,
	}
}

// hex is shorthand for a colour written as "#rrggbb".
func hex(s string) color.Color { return lipgloss.Color(s) }

// HexString returns c as "#rrggbb", or "" for a nil colour. Glamour style
// configs take colours in this form.
func HexString(c color.Color) string {
	if c == nil {
		return ""
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
