package ext

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// frontMatter is a file's parsed YAML header: its keys and the line the
// header starts on, for notices.
type frontMatter struct {
	keys map[string]*yaml.Node
	// names keeps the keys' order, for stable notices.
	names []string
}

// fileError is a problem at a line of a file.
type fileError struct {
	line int
	msg  string
}

func (e *fileError) Error() string { return e.msg }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// splitFrontMatter separates a leading "---" YAML block from the body.
// A file without one is all body. It returns the header's text, the line
// of the header's first content line, and the body.
func splitFrontMatter(data []byte) (header []byte, firstLine int, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := cutLine(data)
	if strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, 0, data, nil
	}
	start := len(data) - len(rest)
	for len(rest) > 0 {
		l, next, _ := cutLine(rest)
		if t := strings.TrimRight(string(l), " \t\r"); t == "---" || t == "..." {
			return data[start : len(data)-len(rest)], 2, next, nil
		}
		rest = next
	}
	return nil, 0, nil, &fileError{line: 1, msg: "front matter opened with --- is never closed with ---"}
}

// cutLine splits off the first line (without its newline).
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// parseFrontMatter decodes the header as a YAML mapping. Errors carry the
// line in the file.
func parseFrontMatter(header []byte, firstLine int) (*frontMatter, error) {
	fm := &frontMatter{keys: map[string]*yaml.Node{}}
	if len(bytes.TrimSpace(header)) == 0 {
		return fm, nil
	}
	if simple, ok := parseSimple(header, firstLine); ok {
		return simple, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(header, &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := firstLine
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = firstLine + n - 1
			msg = strings.TrimPrefix(err.Error(), m[0])
		}
		return nil, &fileError{line: line, msg: "front matter is not valid YAML: " + oneLine(msg)}
	}
	if len(root.Content) == 0 {
		return fm, nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, &fileError{line: firstLine + m.Line - 1, msg: "front matter must be a mapping of keys"}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		// Lines of the nodes become lines of the file.
		shiftLines(v, firstLine-1)
		k.Line += firstLine - 1
		v.HeadComment = ""
		if _, dup := fm.keys[k.Value]; !dup {
			fm.names = append(fm.names, k.Value)
		}
		fm.keys[k.Value] = v
	}
	return fm, nil
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// str returns a scalar key's value ("" when absent). A non-scalar value
// is an error at its line.
func (fm *frontMatter) str(key string) (string, error) {
	n, ok := fm.keys[key]
	if !ok || n.Tag == "!!null" {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", &fileError{line: n.Line, msg: fmt.Sprintf("%s must be a string", key)}
	}
	return n.Value, nil
}

// list returns a key that is either a YAML list of strings or one
// string split on commas (or on whitespace when sep is " ").
func (fm *frontMatter) list(key string, sep string) ([]string, bool, error) {
	n, ok := fm.keys[key]
	if !ok || n.Tag == "!!null" {
		return nil, false, nil
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		var parts []string
		if sep == " " {
			parts = strings.Fields(n.Value)
		} else {
			parts = strings.Split(n.Value, sep)
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, true, &fileError{line: c.Line, msg: fmt.Sprintf("%s must list strings", key)}
			}
			if v := strings.TrimSpace(c.Value); v != "" {
				out = append(out, v)
			}
		}
	default:
		return nil, true, &fileError{line: n.Line, msg: fmt.Sprintf("%s must be a list or a comma-separated string", key)}
	}
	return out, true, nil
}

// line returns the line of key's value, or fallback.
func (fm *frontMatter) line(key string, fallback int) int {
	if n, ok := fm.keys[key]; ok {
		return n.Line
	}
	return fallback
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseSimple reads a header made only of "key: plain value" lines — the
// common case — without the YAML parser (which costs most of start-up's
// loading). It declines (ok false) anything where YAML could read the text
// differently: quotes, flow or block collections, anchors, tags, block
// scalars, comments, a second colon, indentation. The values are the
// strings YAML would give; null and ~ are absent.
func parseSimple(header []byte, firstLine int) (*frontMatter, bool) {
	fm := &frontMatter{keys: map[string]*yaml.Node{}}
	line := firstLine
	for len(header) > 0 {
		l, rest, _ := cutLine(header)
		header = rest
		text := strings.TrimSuffix(string(l), "\r")
		if text == "" {
			line++
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok || strings.ContainsRune(text, '\r') || !simpleKey(key) || (val != "" && val[0] != ' ') {
			return nil, false
		}
		val = strings.Trim(val, " ")
		quoted := false
		if q, ok := simpleQuoted(val); ok {
			val, quoted = q, true
		} else if !simpleValue(val) {
			return nil, false
		}
		if _, dup := fm.keys[key]; dup {
			return nil, false // let YAML report it
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val, Line: line}
		if !quoted && val == "" || !quoted && (val == "null" || val == "Null" || val == "NULL" || val == "~") {
			n.Tag, n.Value = "!!null", ""
		}
		fm.keys[key] = n
		fm.names = append(fm.names, key)
		line++
	}
	return fm, true
}

func simpleKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return k[0] != '-'
}

// simpleValue reports a plain scalar YAML reads as its own text.
func simpleValue(v string) bool {
	if v == "" {
		return true
	}
	if strings.ContainsAny(v[:1], "-?:,[]{}#&*!|>'\"%@`") {
		return false
	}
	if strings.ContainsAny(v, ":#\t\\") {
		return false
	}
	for _, r := range v {
		// Printable text only: YAML treats NEL, LS, PS as breaks and
		// rejects control characters and invalid UTF-8.
		if r == utf8.RuneError || !unicode.IsPrint(r) || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return false
		}
	}
	return true
}

// simpleQuoted reads "text" or 'text' holding no quote, backslash or
// character YAML would treat specially, and nothing after the quote.
func simpleQuoted(v string) (string, bool) {
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') || v[len(v)-1] != v[0] {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if strings.ContainsAny(inner, "\"'\\\t") {
		return "", false
	}
	for _, r := range inner {
		if r == utf8.RuneError || !unicode.IsPrint(r) || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return "", false
		}
	}
	return inner, true
}
