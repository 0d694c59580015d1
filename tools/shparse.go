package tools

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxParsedCommand is the longest command line the classifiers parse; a
// longer one is not understood (it asks in the sandbox, and counts as
// destructive), which also bounds the parser's recursion.
const maxParsedCommand = 64 << 10

// parseShell parses cmd as the terminal tool's bash -c will read it, with
// mvdan.cc/sh's bash parser. A line longer than maxParsedCommand, or one
// holding a NUL byte, is an error.
func parseShell(cmd string) (*syntax.File, error) {
	if len(cmd) > maxParsedCommand {
		return nil, errors.New("command too long to check")
	}
	if strings.IndexByte(cmd, 0) >= 0 {
		// No argument of bash -c can hold one: what bash would read is
		// not this line.
		return nil, errors.New("the command holds a NUL byte")
	}
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
}

// shWord is what a word of the parsed line is known to become.
type shWord struct {
	// lit is the word after quote removal (ANSI-C quotes decoded) when
	// static is set; otherwise the literal text before the first
	// expansion.
	lit string
	// static: the word holds no expansion at all (no parameter, command
	// or arithmetic substitution, process substitution, glob, brace or
	// tilde), so the program gets exactly lit as one argument.
	static bool
	// noOption: every field the word can expand to begins with the same
	// literal character, which is not '-': the word cannot turn into an
	// option, whatever its expansions hold. Set for static words that do
	// not begin with '-'.
	noOption bool
	// ansiC: part of the word was ANSI-C quoted ($'…').
	ansiC bool
}

// readWord reads w: its literal value when it is static, and whether it
// can become an option.
func readWord(w *syntax.Word) shWord {
	var b strings.Builder
	out := shWord{static: true}
	first := true // no character known yet
	dynamic := func(splits bool) {
		if first {
			// The word begins with an expansion: nothing is known of its
			// first character.
			out.noOption = false
		}
		out.static = false
		if splits {
			out.noOption = false
		}
		first = false
	}
	seen := func(s string) {
		if s == "" {
			return
		}
		if first {
			out.noOption = s[0] != '-'
			first = false
		}
		if out.static {
			b.WriteString(s)
		}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			lit, glob := unquotedLit(p.Value)
			if glob && first && (lit == "" || strings.ContainsRune("*?[{", rune(lit[0]))) {
				dynamic(false) // a glob or brace first: it may expand to "-x"
				continue
			}
			seen(lit) // a leading ~ becomes a path, never an option
			if glob {
				out.static = false
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var d strings.Builder
				decodeANSIC(v, 0, &d)
				v, out.ansiC = d.String(), true
			}
			if v == "" && first {
				continue // '' adds nothing, and the word stays one field
			}
			seen(v)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					seen(dblQuotedLit(l.Value))
					continue
				}
				dynamic(false) // quoted: one field
			}
		case *syntax.ProcSubst:
			// Becomes /dev/fd/N: one field, not an option.
			seen("/dev/fd/")
			out.static = false
		default:
			// $x, $(…), $((…)) and extended globs, unquoted: split into
			// fields of unknown content.
			dynamic(true)
		}
	}
	if out.static {
		out.lit = b.String()
		out.noOption = out.lit == "" || out.lit[0] != '-'
	} else {
		out.lit = b.String()
	}
	return out
}

// unquotedLit removes the backslashes of an unquoted literal and reports
// whether it holds an unescaped glob, brace or leading tilde character,
// which the shell expands.
func unquotedLit(s string) (string, bool) {
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			continue
		case c == '*' || c == '?' || c == '{':
			glob = true
		case c == '[' && s != "[" && s != "[[":
			glob = true // "[" and "[[" alone are the test commands
		case c == '~' && i == 0:
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// dblQuotedLit removes the backslashes that escape $ ` " \ inside double
// quotes (the others stay, as bash keeps them).
func dblQuotedLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of an ANSI-C quoted string $'…' that starts
// at s[i] into b, and returns the index of its closing quote (len(s) when
// it is missing). It knows the escapes of bash: \a \b \e \E \f \n \r \t
// \v \\ \' \" \? \NNN (octal), \xHH, \uHHHH, \UHHHHHHHH and \cX.
func decodeANSIC(s string, i int, b *strings.Builder) int {
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return i
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			width := 2
			switch e {
			case 'u':
				width = 4
			case 'U':
				width = 8
			}
			n, k := 0, 0
			for ; k < width && i+1+k < len(s) && isHexDigit(s[i+1+k]); k++ {
				n = n*16 + hexVal(s[i+1+k])
			}
			if k == 0 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			i += k
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
		default:
			if e >= '0' && e <= '7' {
				n, k := 0, 0
				for ; k < 3 && i+k < len(s) && s[i+k] >= '0' && s[i+k] <= '7'; k++ {
					n = n*8 + int(s[i+k]-'0')
				}
				i += k - 1
				b.WriteByte(byte(n))
				continue
			}
			if e != '\\' && e != '\'' && e != '"' && e != '?' {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		}
	}
	return len(s)
}

// isHexDigit reports whether c is a hexadecimal digit.
func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hexVal is the value of the hexadecimal digit c.
func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
