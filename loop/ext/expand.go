package ext

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ExpandOptions say where @path references may point.
type ExpandOptions struct {
	// Root is the project root; an @path must resolve (symlinks followed)
	// inside it. Empty: no @path is inlined.
	Root string
	// Cwd is where relative @paths start; empty means Root.
	Cwd string
}

// Expand turns the command's body into the prompt for `/NAME args`:
// $ARGUMENTS is the argument text as typed; $ARGUMENTS[N] and $N (0-based)
// its N-th shell-style word; $NAME a word named by the front matter's
// arguments list. A placeholder without a word stays as written; \$ before
// one keeps it literal. When the body uses no placeholder and args were
// given, "ARGUMENTS: <args>" is appended (as Claude Code does). Then each
// @path naming a file inside the project is inlined (see ExpandOptions).
func (c *Command) Expand(args string, o ExpandOptions) string {
	args = strings.TrimSpace(args)
	text, used := substitute(c.Body, args, Words(args), c.Arguments)
	if !used && args != "" {
		text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + args
	}
	return inlineFiles(text, o)
}

// substitute replaces the placeholders; used reports whether the body held
// any (matched or not).
func substitute(body, args string, words, names []string) (string, bool) {
	var b strings.Builder
	used := false
	for i := 0; i < len(body); {
		ch := body[i]
		if ch == '\\' && i+1 < len(body) && body[i+1] == '$' {
			if n, _, _ := placeholder(body[i+1:], args, words, names); n > 0 {
				b.WriteString(body[i+1 : i+1+n]) // escaped: literal, without the backslash
				i += 1 + n
				continue
			}
		}
		if ch == '$' {
			if n, val, ok := placeholder(body[i:], args, words, names); n > 0 {
				used = true
				if ok {
					b.WriteString(val)
				} else {
					b.WriteString(body[i : i+n])
				}
				i += n
				continue
			}
		}
		b.WriteByte(ch)
		i++
	}
	return b.String(), used
}

// placeholder reads a placeholder at the start of s (which starts with
// "$"): its length (0: none), its value, and whether it had one.
func placeholder(s, args string, words, names []string) (int, string, bool) {
	rest := s[1:]
	word := func(n int) (string, bool) {
		if n >= 0 && n < len(words) {
			return words[n], true
		}
		return "", false
	}
	if strings.HasPrefix(rest, "ARGUMENTS") {
		after := rest[len("ARGUMENTS"):]
		if strings.HasPrefix(after, "[") {
			if end := strings.IndexByte(after, ']'); end > 1 {
				if n, err := strconv.Atoi(after[1:end]); err == nil && n >= 0 {
					v, ok := word(n)
					return 1 + len("ARGUMENTS") + end + 1, v, ok
				}
			}
		}
		if after == "" || !identByte(after[0]) {
			return 1 + len("ARGUMENTS"), args, true
		}
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits > 0 {
		n, err := strconv.Atoi(rest[:digits])
		if err != nil {
			return 1 + digits, "", false
		}
		v, ok := word(n)
		return 1 + digits, v, ok
	}
	ident := 0
	for ident < len(rest) && identByte(rest[ident]) {
		ident++
	}
	if ident > 0 {
		for i, name := range names {
			if name == rest[:ident] {
				v, ok := word(i)
				return 1 + ident, v, ok
			}
		}
	}
	return 0, "", false
}

func identByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// Words splits the argument text into words as a POSIX shell would quote
// them ('single', "double", backslash), with no expansion: $VAR, $(cmd),
// ~ and globs stay as typed. Text the shell parser cannot read (an
// unclosed quote, an operator) falls back to splitting on whitespace.
func Words(args string) []string {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	var out []string
	p := syntax.NewParser(syntax.KeepComments(false))
	for w, err := range p.WordsSeq(strings.NewReader(args)) {
		if err != nil {
			return strings.Fields(args)
		}
		out = append(out, literalWord(args, w))
	}
	return out
}

// literalWord renders a parsed word with its quotes removed and anything
// that would expand kept as its source text.
func literalWord(src string, w *syntax.Word) string {
	var b strings.Builder
	writeParts(&b, src, w.Parts, false)
	return b.String()
}

func writeParts(b *strings.Builder, src string, parts []syntax.WordPart, inDouble bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, inDouble))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			writeParts(b, src, p.Parts, true)
		default:
			start, end := int(p.Pos().Offset()), int(p.End().Offset())
			if start >= 0 && end <= len(src) && start <= end {
				b.WriteString(src[start:end])
			}
		}
	}
}

// unescape removes the shell's backslashes: outside quotes before any
// character, inside double quotes only before $ ` " \ and a newline.
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if next == '\n' {
				i++
				continue
			}
			if !inDouble || strings.IndexByte("$`\"\\", next) >= 0 {
				b.WriteByte(next)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
