package tools

import (
	"path"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	// segs is the pattern split on "/"; "**" segments match any number of
	// path segments.
	segs []string
	// negate is set for "!pattern": a match re-includes the path.
	negate bool
	// dirOnly is set for "pattern/": only directories match.
	dirOnly bool
	// anchored is set when the pattern holds a "/" before its end: it
	// then matches the whole path relative to the .gitignore's directory;
	// otherwise it matches the last path segment at any depth.
	anchored bool
}

// ignoreRules holds the rules of one .gitignore file, in file order.
type ignoreRules []ignoreRule

// parseIgnore parses the text of a .gitignore file. Blank lines, comments
// and invalid patterns are skipped.
func parseIgnore(text string) ignoreRules {
	var rules ignoreRules
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimUnescapedSpaces(line)
		var r ignoreRule
		switch {
		case line == "":
			continue
		case line[0] == '!':
			r.negate = true
			line = line[1:]
		case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if r.anchored {
			r.segs = splitGlob(line)
		} else {
			r.segs = []string{line}
		}
		if !validGlobSegs(r.segs) {
			continue
		}
		rules = append(rules, r)
	}
	return rules
}

// trimUnescapedSpaces drops trailing spaces unless escaped with a
// backslash.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// match reports whether a rule of rs decides about rel (a slash-separated
// path relative to the .gitignore's directory) and, if so, whether rel is
// ignored. The last matching rule wins.
func (rs ignoreRules) match(rel string, isDir bool) (decided, ignored bool) {
	if len(rs) == 0 {
		return false, false
	}
	segs := strings.Split(rel, "/")
	base := segs[len(segs)-1]
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.dirOnly && !isDir {
			continue
		}
		var ok bool
		if r.anchored {
			ok = matchGlobSegs(r.segs, segs)
		} else {
			ok, _ = path.Match(r.segs[0], base)
		}
		if ok {
			return true, !r.negate
		}
	}
	return false, false
}

// splitGlob splits a slash-separated glob into segments, dropping empty
// segments and merging runs of "**".
func splitGlob(g string) []string {
	var out []string
	for _, s := range strings.Split(g, "/") {
		if s == "" || (s == "**" && len(out) > 0 && out[len(out)-1] == "**") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// validGlobSegs reports whether every segment is a well-formed pattern.
func validGlobSegs(segs []string) bool {
	for _, s := range segs {
		if _, err := path.Match(s, ""); err != nil {
			return false
		}
	}
	return len(segs) > 0
}

// matchGlobSegs matches path segments against glob segments. A "**"
// segment matches zero or more segments, except at the end of the pattern
// where it matches one or more (so "dir/**" matches what is inside dir,
// not dir itself).
func matchGlobSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchGlobSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// fileGlob is a compiled file-name glob for search_files: "*.go" matches
// the base name; a glob holding "/" matches the path relative to the search
// root, at any depth ("cmd/*.go" also matches "a/cmd/x.go"; a leading "/"
// anchors it to the root). Braces expand: "*.{js,ts}".
type fileGlob struct {
	alts [][]string // per alternative: segments; one segment = base name
}

// compileFileGlob parses g. An empty g matches everything.
func compileFileGlob(g string) (*fileGlob, error) {
	g = strings.TrimSpace(g)
	if g == "" {
		return nil, nil
	}
	fg := &fileGlob{}
	for _, alt := range expandBraces(g, 64) {
		anchored := strings.HasPrefix(alt, "/")
		alt = strings.TrimPrefix(alt, "./")
		var segs []string
		if strings.Contains(alt, "/") {
			segs = splitGlob(alt)
			if !anchored && len(segs) > 0 && segs[0] != "**" {
				segs = append([]string{"**"}, segs...)
			}
		} else {
			segs = []string{alt}
		}
		if !validGlobSegs(segs) {
			return nil, errBadGlob(g)
		}
		fg.alts = append(fg.alts, segs)
	}
	return fg, nil
}

// errBadGlob reports a malformed glob.
type errBadGlob string

func (e errBadGlob) Error() string {
	return "invalid glob " + string(e) + ": check the brackets and escapes (syntax: * ? [abc] ** {a,b})"
}

// match reports whether rel (slash-separated, relative to the search root)
// matches. A nil glob matches everything.
func (fg *fileGlob) match(rel string) bool {
	if fg == nil {
		return true
	}
	var segs []string
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, alt := range fg.alts {
		if len(alt) == 1 {
			if ok, _ := path.Match(alt[0], base); ok {
				return true
			}
			continue
		}
		if segs == nil {
			segs = strings.Split(rel, "/")
		}
		if matchGlobSegs(alt, segs) {
			return true
		}
	}
	return false
}

// expandBraces expands "{a,b}" alternatives (nested ones too) into at most
// limit patterns. Unbalanced braces are kept literally.
func expandBraces(g string, limit int) []string {
	open := -1
	depth := 0
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			var alts []string
			start, d := open+1, 0
			for j := open + 1; j < i; j++ {
				switch g[j] {
				case '\\':
					j++
				case '{':
					d++
				case '}':
					d--
				case ',':
					if d == 0 {
						alts = append(alts, g[start:j])
						start = j + 1
					}
				}
			}
			alts = append(alts, g[start:i])
			var out []string
			for _, a := range alts {
				for _, e := range expandBraces(g[:open]+a+g[i+1:], limit) {
					if len(out) < limit {
						out = append(out, e)
					}
				}
			}
			return out
		}
	}
	return []string{g}
}
