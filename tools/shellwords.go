package tools

import "strings"

// segment is one simple command: its words with quotes removed, and for
// each whether any part of it was ANSI-C quoted ($'…').
type segment struct {
	words []string
	ansiC []bool
}

// from returns the segment of the words from index k on.
func (sg segment) from(k int) segment {
	return segment{words: sg.words[k:], ansiC: sg.ansiC[k:]}
}

// shellSegments splits a command line into simple commands, each as its
// words with quotes removed (and ANSI-C quotes decoded), at ;, &, |,
// newlines, parentheses, braces, $( and backticks outside single quotes.
// It also returns the target of the first overwriting redirect (> or >|,
// not >> nor a duplication like 2>&1, nor to /dev/null), or "".
func shellSegments(s string) ([]segment, string) {
	var segs []segment
	var seg segment
	var cur strings.Builder
	inWord, curANSI := false, false
	redirect := ""
	wantTarget := false
	endWord := func() {
		if !inWord {
			return
		}
		w, ansi := cur.String(), curANSI
		cur.Reset()
		inWord, curANSI = false, false
		if wantTarget {
			wantTarget = false
			if redirect == "" && !isDevNull(w) {
				redirect = w
			}
			return
		}
		seg.words = append(seg.words, w)
		seg.ansiC = append(seg.ansiC, ansi)
	}
	endSeg := func() {
		endWord()
		if len(seg.words) > 0 {
			segs = append(segs, seg)
		}
		seg = segment{}
	}
	// Command substitutions and subshells nest; each remembers the quote
	// it interrupted and whether it is a backtick one.
	type frame struct {
		quote byte
		tick  bool
	}
	var stack []frame
	open := func(quoteWas byte, tick bool) {
		endSeg()
		stack = append(stack, frame{quoteWas, tick})
	}
	quote := byte(0)
	closeFrame := func() {
		endSeg()
		if n := len(stack); n > 0 {
			quote = stack[n-1].quote
			stack = stack[:n-1]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
			continue
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
			continue
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '`':
				open('"', true)
				quote = 0
			case c == '$' && i+1 < len(s) && s[i+1] == '(':
				open('"', false)
				quote = 0
				i++
			default:
				cur.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
			inWord = true
		case ' ', '\t':
			endWord()
		case '\n', ';', '&', '|', '{', '}':
			endSeg()
		case '(':
			open(0, false)
		case ')':
			closeFrame()
		case '`':
			if n := len(stack); n > 0 && stack[n-1].tick {
				closeFrame()
			} else {
				open(0, true)
			}
		case '$':
			if i+1 < len(s) && s[i+1] == '(' {
				open(0, false)
				i++
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				i = decodeANSIC(s, i+2, &cur)
				inWord, curANSI = true, true
				continue
			}
			cur.WriteByte(c)
			inWord = true
		case '<':
			endWord()
		case '>':
			// Drop a file-descriptor number written just before it.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			endWord()
			next := byte(0)
			if i+1 < len(s) {
				next = s[i+1]
			}
			switch {
			case next == '>':
				i++ // append: harmless
			case next == '&':
				i++ // duplication such as 2>&1
				for i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-') {
					i++
				}
			default:
				if next == '|' {
					i++
				}
				wantTarget = true
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	endSeg()
	if wantTarget && redirect == "" {
		redirect = "(missing target)"
	}
	return segs, redirect
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
