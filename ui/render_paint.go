package ui

import "strings"

// paintFg gives every cell of the styled line s that has no foreground
// colour the colour fg (an SGR sequence such as "\x1b[38;2;208;212;224m"):
// fg is set before the first text, and again before any text that
// follows an SGR sequence leaving the foreground at the terminal's
// default (a reset, 39). Cells with a colour of their own keep it, and
// the other attributes (bold, background, underline) are untouched:
// the line reads as glamour's render with fg as the document colour,
// where every block inherits that colour unless it sets its own.
func paintFg(s, fg string) string {
	var b strings.Builder
	b.Grow(len(s) + 2*len(fg))
	coloured := false // the foreground is set at this point of s
	for len(s) > 0 {
		if s[0] == '\x1b' {
			if n := escapeLen(s); n > 0 {
				if s[n-1] == 'm' {
					coloured = sgrColoured(s[2:n-1], coloured)
				}
				b.WriteString(s[:n])
				s = s[n:]
				continue
			}
		}
		end := strings.IndexByte(s[1:], '\x1b') + 1
		if end == 0 {
			end = len(s)
		}
		if !coloured {
			b.WriteString(fg)
			coloured = true
		}
		b.WriteString(s[:end])
		s = s[end:]
	}
	return b.String()
}

// sgrColoured reports whether the foreground is set after an SGR
// sequence with parameters params, given whether it was set before.
func sgrColoured(params string, was bool) bool {
	if params == "" {
		return false // ESC[m resets
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		p, sub, _ := strings.Cut(ps[i], ":")
		switch {
		case p == "" || p == "0" || p == "39":
			was = false
		case len(p) == 2 && (p[0] == '3' || p[0] == '9') && p[1] >= '0' && p[1] <= '7':
			was = true
		case p == "38" || p == "48" || p == "58":
			if p == "38" {
				was = true
			}
			if sub == "" && i+1 < len(ps) {
				// The colour's own parameters follow: 5;N or 2;R;G;B.
				switch ps[i+1] {
				case "5":
					i += 2
				case "2":
					i += 4
				}
			}
		}
	}
	return was
}
