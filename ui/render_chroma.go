package ui

import (
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	gansi "charm.land/glamour/v2/ansi"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
)

// Glamour highlights code through chroma, whose styles live in one
// registry per process, looked up by name. Given the colours of a code
// block (StyleCodeBlock.Chroma), glamour registers them under the one
// name "charm", once: whichever theme rendered code first kept its
// palette for the life of the process, so a session resumed on a light
// terminal (its messages rendered dark before the terminal's background
// was known) drew every code block dark. Each palette here gets a
// registry name of its own, derived from its colours, and the glamour
// style names it instead.

// chromaMu guards chroma's process-wide style registry while a palette
// is added to it. Reads of the registry happen in glamour's renders, on
// the UI goroutine, as do the registrations.
var chromaMu sync.Mutex

// namedChroma is a glamour style with its code-block colours registered
// with chroma under their own name.
func namedChroma(cfg gansi.StyleConfig) gansi.StyleConfig {
	if ch := cfg.CodeBlock.Chroma; ch != nil {
		if name, ok := registerChroma(ch); ok {
			cfg.CodeBlock.Theme, cfg.CodeBlock.Chroma = name, nil
		}
	}
	return cfg
}

// registerChroma adds the palette to chroma's registry (once) and
// returns its name.
func registerChroma(ch *gansi.Chroma) (string, bool) {
	entries := chroma.StyleEntries{
		chroma.Text: chromaEntry(ch.Text), chroma.Error: chromaEntry(ch.Error),
		chroma.Comment: chromaEntry(ch.Comment), chroma.CommentPreproc: chromaEntry(ch.CommentPreproc),
		chroma.Keyword: chromaEntry(ch.Keyword), chroma.KeywordReserved: chromaEntry(ch.KeywordReserved),
		chroma.KeywordNamespace: chromaEntry(ch.KeywordNamespace), chroma.KeywordType: chromaEntry(ch.KeywordType),
		chroma.Operator: chromaEntry(ch.Operator), chroma.Punctuation: chromaEntry(ch.Punctuation),
		chroma.Name: chromaEntry(ch.Name), chroma.NameBuiltin: chromaEntry(ch.NameBuiltin),
		chroma.NameTag: chromaEntry(ch.NameTag), chroma.NameAttribute: chromaEntry(ch.NameAttribute),
		chroma.NameClass: chromaEntry(ch.NameClass), chroma.NameConstant: chromaEntry(ch.NameConstant),
		chroma.NameDecorator: chromaEntry(ch.NameDecorator), chroma.NameException: chromaEntry(ch.NameException),
		chroma.NameFunction: chromaEntry(ch.NameFunction), chroma.NameOther: chromaEntry(ch.NameOther),
		chroma.Literal: chromaEntry(ch.Literal), chroma.LiteralNumber: chromaEntry(ch.LiteralNumber),
		chroma.LiteralDate: chromaEntry(ch.LiteralDate), chroma.LiteralString: chromaEntry(ch.LiteralString),
		chroma.LiteralStringEscape: chromaEntry(ch.LiteralStringEscape), chroma.GenericDeleted: chromaEntry(ch.GenericDeleted),
		chroma.GenericEmph: chromaEntry(ch.GenericEmph), chroma.GenericInserted: chromaEntry(ch.GenericInserted),
		chroma.GenericStrong: chromaEntry(ch.GenericStrong), chroma.GenericSubheading: chromaEntry(ch.GenericSubheading),
		chroma.Background: chromaEntry(ch.Background),
	}
	h := fnv.New64a()
	for _, tt := range []chroma.TokenType{chroma.Text, chroma.Error, chroma.Comment, chroma.CommentPreproc, chroma.Keyword,
		chroma.KeywordReserved, chroma.KeywordNamespace, chroma.KeywordType, chroma.Operator, chroma.Punctuation, chroma.Name,
		chroma.NameBuiltin, chroma.NameTag, chroma.NameAttribute, chroma.NameClass, chroma.NameConstant, chroma.NameDecorator,
		chroma.NameException, chroma.NameFunction, chroma.NameOther, chroma.Literal, chroma.LiteralNumber, chroma.LiteralDate,
		chroma.LiteralString, chroma.LiteralStringEscape, chroma.GenericDeleted, chroma.GenericEmph, chroma.GenericInserted,
		chroma.GenericStrong, chroma.GenericSubheading, chroma.Background} {
		_, _ = h.Write([]byte(entries[tt] + "\x00"))
	}
	name := "talaria-" + strconv.FormatUint(h.Sum64(), 16)
	chromaMu.Lock()
	defer chromaMu.Unlock()
	if _, ok := styles.Registry[name]; ok {
		return name, true
	}
	st, err := chroma.NewStyle(name, entries)
	if err != nil {
		return "", false
	}
	styles.Register(st)
	return name, true
}

// chromaEntry writes a style primitive as a chroma style entry.
func chromaEntry(p gansi.StylePrimitive) string {
	var parts []string
	if p.Color != nil {
		parts = append(parts, *p.Color)
	}
	if p.BackgroundColor != nil {
		parts = append(parts, "bg:"+*p.BackgroundColor)
	}
	for _, f := range []struct {
		on   *bool
		word string
	}{{p.Italic, "italic"}, {p.Bold, "bold"}, {p.Underline, "underline"}} {
		if f.on != nil && *f.on {
			parts = append(parts, f.word)
		}
	}
	return strings.Join(parts, " ")
}
