package tools

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToMarkdown renders an HTML page as Markdown for the model: the
// title, headings, paragraphs, links (made absolute against base), lists,
// code blocks and inline code, emphasis, block quotes; scripts, styles and
// the page chrome (nav, footer, forms) are left out. It parses with
// golang.org/x/net/html, which the binary links already.
func htmlToMarkdown(src string, base *url.URL) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return src
	}
	w := &mdWriter{base: base}
	if t := findFirst(doc, atom.Title); t != nil {
		if title := strings.TrimSpace(textOf(t)); title != "" {
			w.block("# " + collapse(title))
		}
	}
	root := findFirst(doc, atom.Main)
	if root == nil {
		root = findFirst(doc, atom.Body)
	}
	if root == nil {
		root = doc
	}
	w.walk(root)
	w.flush()
	out := strings.TrimSpace(blankRuns.ReplaceAllString(w.out.String(), "\n\n"))
	return out + "\n"
}

var (
	blankRuns = regexp.MustCompile(`\n{3,}`)
	spaceRuns = regexp.MustCompile(`[ \t\r\n\f]+`)
)

func collapse(s string) string { return spaceRuns.ReplaceAllString(s, " ") }

// mdWriter accumulates Markdown: finished blocks in out, the inline text
// of the block being built in line.
type mdWriter struct {
	base  *url.URL
	out   strings.Builder
	line  strings.Builder
	lists []listState
	quote int
	gen   int // counts line resets
}

// resetLine starts a new inline block.
func (w *mdWriter) resetLine() {
	w.line.Reset()
	w.gen++
}

type listState struct {
	ordered bool
	n       int
}

// flush ends the current inline block.
func (w *mdWriter) flush() {
	s := strings.TrimSpace(collapse(w.line.String()))
	w.resetLine()
	if s != "" {
		w.block(s)
	}
}

// block writes one finished block, quoted when inside a blockquote.
func (w *mdWriter) block(s string) {
	if w.quote > 0 {
		p := strings.Repeat("> ", w.quote)
		s = p + strings.ReplaceAll(s, "\n", "\n"+p)
	}
	w.out.WriteString(s + "\n\n")
}

func (w *mdWriter) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.line.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		w.walk(n)
		return
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Nav, atom.Footer,
		atom.Form, atom.Button, atom.Svg, atom.Iframe, atom.Select:
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		level := int(n.Data[1] - '0')
		w.walk(n)
		s := strings.TrimSpace(collapse(w.line.String()))
		w.resetLine()
		if s != "" {
			w.block(strings.Repeat("#", level) + " " + s)
		}
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Aside, atom.Table, atom.Tr, atom.Dl, atom.Dt, atom.Dd, atom.Figure:
		w.flush()
		w.walk(n)
		w.flush()
	case atom.Br:
		w.line.WriteString("  \n")
	case atom.Hr:
		w.flush()
		w.block("---")
	case atom.Pre:
		w.flush()
		lang := ""
		if code := findFirst(n, atom.Code); code != nil {
			for _, c := range strings.Fields(attr(code, "class")) {
				if l, ok := strings.CutPrefix(c, "language-"); ok {
					lang = l
				}
			}
		}
		body := strings.Trim(textOf(n), "\n")
		fence := "```"
		for strings.Contains(body, fence) {
			fence += "`"
		}
		w.block(fence + lang + "\n" + body + "\n" + fence)
	case atom.Code, atom.Kbd, atom.Samp:
		s := textOf(n)
		if s != "" {
			tick := "`"
			if strings.Contains(s, "`") {
				tick = "``"
			}
			w.line.WriteString(tick + s + tick)
		}
	case atom.A:
		start, gen := w.line.Len(), w.gen
		w.walk(n)
		if w.gen != gen { // a block inside the link ended the line
			return
		}
		text := strings.TrimSpace(collapse(w.line.String()[start:]))
		href := w.resolve(attr(n, "href"))
		if href == "" || text == "" || strings.HasPrefix(href, "javascript:") {
			return
		}
		rest := w.line.String()[:start]
		w.line.Reset()
		w.line.WriteString(rest + "[" + text + "](" + href + ")")
	case atom.Strong, atom.B:
		w.wrap(n, "**")
	case atom.Em, atom.I:
		w.wrap(n, "_")
	case atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.line.WriteString("![" + alt + "](" + w.resolve(attr(n, "src")) + ")")
		}
	case atom.Ul, atom.Ol:
		w.flush()
		w.lists = append(w.lists, listState{ordered: n.DataAtom == atom.Ol})
		w.walk(n)
		w.lists = w.lists[:len(w.lists)-1]
		w.flush()
	case atom.Li:
		w.flush()
		w.walk(n)
		s := strings.TrimSpace(collapse(w.line.String()))
		w.resetLine()
		marker := "- "
		if len(w.lists) > 0 {
			l := &w.lists[len(w.lists)-1]
			l.n++
			if l.ordered {
				marker = strconv.Itoa(l.n) + ". "
			}
		}
		if s != "" {
			indent := strings.Repeat("  ", max(len(w.lists)-1, 0))
			// List items sit on consecutive lines.
			w.out.WriteString(indent + marker + s + "\n")
		}
	case atom.Blockquote:
		w.flush()
		w.quote++
		w.walk(n)
		w.flush()
		w.quote--
	case atom.Td, atom.Th:
		w.walk(n)
		w.line.WriteString(" | ")
	default:
		w.walk(n)
	}
}

func (w *mdWriter) wrap(n *html.Node, mark string) {
	start, gen := w.line.Len(), w.gen
	w.walk(n)
	if w.gen != gen { // a block inside ended the line
		return
	}
	inner := strings.TrimSpace(w.line.String()[start:])
	rest := w.line.String()[:start]
	w.line.Reset()
	if inner == "" {
		w.line.WriteString(rest)
		return
	}
	w.line.WriteString(rest + mark + inner + mark + " ")
}

// resolve makes href absolute against the page's URL.
func (w *mdWriter) resolve(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || w.base == nil {
		return href
	}
	u, err := w.base.Parse(href)
	if err != nil {
		return href
	}
	return u.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findFirst(c, a); f != nil {
			return f
		}
	}
	return nil
}

// textOf is the text below n, as it is (for pre and code).
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}
