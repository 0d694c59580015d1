package tools

import (
	"net/url"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageChrome are the elements of a page around its content that the
// model does not need: navigation, site headers and footers, forms.
var pageChrome = []string{"nav", "footer", "form", "aside", "button", "select", "svg"}

// htmlToMarkdown renders an HTML page as Markdown for the model with
// github.com/JohannesKaufmann/html-to-markdown/v2 (CommonMark, GFM tables
// and strikethrough): the page's title as a heading, then its main
// element (or body) with links made absolute against base; scripts,
// styles and the page chrome are left out. Input it cannot convert is
// returned as it came.
func htmlToMarkdown(src string, base *url.URL) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return src
	}
	title := ""
	if t := findFirst(doc, atom.Title); t != nil {
		title = strings.Join(strings.Fields(textOf(t)), " ")
	}
	root := findFirst(doc, atom.Main)
	if root == nil {
		root = findFirst(doc, atom.Body)
	}
	if root == nil {
		root = doc
	}
	md, err := newPageConverter().ConvertNode(root, converter.WithDomain(base.String()))
	if err != nil {
		return src
	}
	out := strings.TrimSpace(string(md))
	if title != "" {
		out = "# " + title + "\n\n" + out
	}
	return out + "\n"
}

// newPageConverter is the converter web_fetch uses (one per call: a
// Converter keeps the first error it met).
func newPageConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(commonmark.WithEmDelimiter("_")),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, tag := range pageChrome {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityEarly)
	}
	return conv
}

// findFirst returns the first element of type a under n, depth first.
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

// textOf is the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
