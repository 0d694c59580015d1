package themes

import (
	"image/color"

	"charm.land/glamour/v2/ansi"
)

// Glamour returns the markdown style matching t, built from its tokens. The
// document has no margin and no leading or trailing blank line: the UI
// places rendered markdown itself. Under [Plain] no colour is set.
func (t Theme) Glamour() ansi.StyleConfig {
	c := func(col color.Color) *string {
		if col == nil {
			return nil
		}
		s := HexString(col)
		return &s
	}
	yes, no := ptr(true), ptr(false)
	var zero uint
	// Inline code is padded to look like a chip on its background; without
	// colours, backticks mark it instead.
	codeEdge := "\u00a0"
	if t.NoColor {
		codeEdge = "`"
	}
	heading := func(prefix string) ansi.StyleBlock {
		return ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: prefix}}
	}
	return ansi.StyleConfig{
		Document: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: c(t.Assistant)}, Margin: &zero},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{Color: c(t.Muted), Italic: yes},
			Indent:         ptr(uint(1)),
			IndentToken:    ptr("│ "),
		},
		Paragraph: ansi.StyleBlock{},
		List:      ansi.StyleList{LevelIndent: 2},
		Heading: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{
			BlockSuffix: "\n", Color: c(t.Accent), Bold: yes,
		}},
		H1:             heading("# "),
		H2:             heading("## "),
		H3:             heading("### "),
		H4:             heading("#### "),
		H5:             heading("##### "),
		H6:             ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "###### ", Bold: no}},
		Strikethrough:  ansi.StylePrimitive{CrossedOut: yes},
		Emph:           ansi.StylePrimitive{Italic: yes},
		Strong:         ansi.StylePrimitive{Bold: yes},
		HorizontalRule: ansi.StylePrimitive{Color: c(t.Border), Format: "\n────────\n"},
		Item:           ansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration:    ansi.StylePrimitive{BlockPrefix: ". "},
		Task:           ansi.StyleTask{Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           ansi.StylePrimitive{Color: c(t.Accent), Underline: yes},
		LinkText:       ansi.StylePrimitive{Color: c(t.Info), Bold: yes},
		Image:          ansi.StylePrimitive{Color: c(t.Accent), Underline: yes},
		ImageText:      ansi.StylePrimitive{Color: c(t.Muted), Format: "Image: {{.text}} →"},
		Code: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{
			Prefix: codeEdge, Suffix: codeEdge, Color: c(t.CodeFg), BackgroundColor: c(t.CodeBg),
		}},
		CodeBlock: ansi.StyleCodeBlock{
			StyleBlock: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: c(t.Fg)}, Margin: ptr(uint(2))},
			Chroma:     t.chroma(c),
		},
		Table:                 ansi.StyleTable{CenterSeparator: ptr("┼"), ColumnSeparator: ptr("│"), RowSeparator: ptr("─")},
		DefinitionDescription: ansi.StylePrimitive{BlockPrefix: "\n→ "},
	}
}

// chroma builds the code-block highlighting from the syntax tokens. Under
// [Plain] it returns nil, so code blocks are left unhighlighted.
func (t Theme) chroma(c func(color.Color) *string) *ansi.Chroma {
	if t.NoColor {
		return nil
	}
	p := func(col color.Color) ansi.StylePrimitive { return ansi.StylePrimitive{Color: c(col)} }
	return &ansi.Chroma{
		Text:                p(t.Fg),
		Error:               p(t.Error),
		Comment:             ansi.StylePrimitive{Color: c(t.Comment), Italic: ptr(true)},
		CommentPreproc:      p(t.Keyword),
		Keyword:             p(t.Keyword),
		KeywordReserved:     p(t.Keyword),
		KeywordNamespace:    p(t.Keyword),
		KeywordType:         p(t.Type),
		Operator:            p(t.Operator),
		Punctuation:         p(t.Muted),
		Name:                p(t.Fg),
		NameBuiltin:         p(t.Type),
		NameTag:             p(t.Keyword),
		NameAttribute:       p(t.Function),
		NameClass:           ansi.StylePrimitive{Color: c(t.Type), Bold: ptr(true)},
		NameConstant:        p(t.Number),
		NameDecorator:       p(t.Function),
		NameFunction:        p(t.Function),
		LiteralNumber:       p(t.Number),
		LiteralString:       p(t.String),
		LiteralStringEscape: p(t.Operator),
		GenericDeleted:      p(t.Error),
		GenericEmph:         ansi.StylePrimitive{Italic: ptr(true)},
		GenericInserted:     p(t.Success),
		GenericStrong:       ansi.StylePrimitive{Bold: ptr(true)},
		GenericSubheading:   p(t.Muted),
		Background:          ansi.StylePrimitive{BackgroundColor: c(t.CodeBg)},
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
