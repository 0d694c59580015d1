package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A message is rendered block by block: goldmark (the parser glamour
// itself runs, with the same extensions) finds the top-level blocks of the
// text; each is rendered once by glamour, and the results are put
// together so that they read exactly as glamour's render of the whole
// text would. That holds because glamour writes a document as the
// concatenation of its top-level blocks' output, with three exceptions,
// each handled here:
//
//   - a paragraph or heading that is not the document's first starts
//     with a blank line: such a block is rendered after a one-word
//     sentinel paragraph, whose known output is then cut off;
//   - a reference link resolves against definitions anywhere in the
//     text: a block that may hold one is rendered with the text's
//     definitions appended (they render to nothing);
//   - the blank lines at the two ends of the document are dropped: the
//     joiner drops them at the ends of each run.
//
// A block whose render does not fit that shape (it does not end in a
// line break, or the sentinel's output is not its prefix) is rendered
// together with the blocks after it, up to the end of the run: the run is
// rendered whole there. Tables are their own runs, rendered at the width
// their cells need (see render), one blank line from what is around them.

// sentinel is the paragraph a non-first block is rendered after.
const sentinel = "talaria"

// mdBlock is one top-level block of a markdown text: its bytes
// [start, end), its kind, and whether it is a table.
type mdBlock struct {
	start, end int
	kind       ast.NodeKind
	nested     bool // a table inside it (in a list item, a quote)
}

func (b mdBlock) table() bool { return b.kind == extast.KindTable }

// code reports a block that cannot hold a link.
func (b mdBlock) code() bool { return b.kind == ast.KindFencedCodeBlock || b.kind == ast.KindCodeBlock }

// blockParser is goldmark's parser as glamour configures it.
func newBlockParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()
}

// splitBlocks returns the top-level blocks of src, which cover it from 0
// to len(src) (each ends where the next starts, at a line start), and the
// text's link reference definitions written out as markdown ("" when it
// has none).
func (md *markdown) splitBlocks(src string) ([]mdBlock, string) {
	if md.parser == nil {
		md.parser = newBlockParser()
	}
	pc := parser.NewContext()
	doc := md.parser.Parse(text.NewReader([]byte(src)), parser.WithContext(pc))
	var out []mdBlock
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		at := lineStart(src, nodeStart(n))
		switch {
		case len(out) == 0:
			at = 0
		case at < 0 || at <= out[len(out)-1].start:
			continue // no place of its own: it goes with the block before
		}
		if len(out) > 0 {
			out[len(out)-1].end = at
		}
		out = append(out, mdBlock{start: at, end: len(src), kind: n.Kind(), nested: n.Kind() != extast.KindTable && holdsTable(n)})
	}
	var refs strings.Builder
	for _, r := range pc.References() {
		refs.WriteString("[")
		refs.Write(r.Label())
		refs.WriteString("]: <")
		refs.Write(r.Destination())
		refs.WriteString(">")
		if t := r.Title(); len(t) > 0 {
			refs.WriteString(" \"")
			refs.WriteString(strings.ReplaceAll(string(t), `"`, `\"`))
			refs.WriteString("\"")
		}
		refs.WriteString("\n")
	}
	return out, refs.String()
}

// holdsTable reports a node with a table among its descendants.
func holdsTable(n ast.Node) bool {
	found := false
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c.Kind() == extast.KindTable {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// nodeStart is where a top-level node starts in the source: its own
// position, else its first descendant's; -1 when none is known.
func nodeStart(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	at := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c == n {
			return ast.WalkContinue, nil
		}
		if p := c.Pos(); p >= 0 {
			at = p
			return ast.WalkStop, nil
		}
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			at = c.Lines().At(0).Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return at
}

// lineStart is the start of the line holding byte p of s (-1 stays -1).
func lineStart(s string, p int) int {
	if p < 0 {
		return -1
	}
	p = min(p, len(s))
	return strings.LastIndexByte(s[:p], '\n') + 1
}

// blockKey names one rendered block: its text, as handed to glamour, and
// whether it was rendered as the document's first.
type blockKey struct {
	text  string
	first bool
}

// rendered is what one block adds to the document's output. Glamour's
// output for a block need not end in a line break (a code block ends in
// a line of bare style codes), and the next block's output then goes on
// on that line: first and last are those raw pieces of the block's first
// and last line, mid the lines between them, fitted (see fitLine). A
// block of one piece (no line break at all) has only first.
type rendered struct {
	first, last string
	mid         []string
	one         bool
}

// blockCache holds the rendered blocks of one message at one width and
// theme generation, so the completed message reuses what was rendered
// while it streamed, and a re-render (a note added) costs nothing.
type blockCache struct {
	width, gen int
	byKey      map[blockKey]rendered
}

// reset empties the cache unless it is for width and gen already.
func (c *blockCache) reset(width, gen int) {
	if c.byKey == nil || c.width != width || c.gen != gen {
		c.width, c.gen, c.byKey = width, gen, map[blockKey]rendered{}
	}
}

// renderRaw is glamour's output for text (already prepared) at width w,
// in the style for tables when table is set (see markdown).
func (md *markdown) renderRaw(text string, w int, table bool) (string, bool) {
	r := md.renderer(w, table)
	if r == nil {
		return "", false
	}
	md.bytes += len(text)
	out, err := r.Render(text)
	if err != nil {
		return "", false
	}
	return out, true
}

// renderBlock renders one block as glamour writes it inside the whole
// document. ok is false when that cannot be told apart (the sentinel's
// output is not a prefix of the render); the caller then renders the
// block with what follows. A block holding a table is rendered in the
// style for tables and not painted (see markdown).
//
// Glamour wraps at rw columns (w, or more for code: see codeWidth); the
// lines are fitted to w.
func (md *markdown) renderBlock(src string, first bool, w, rw int, table bool) (rendered, bool) {
	doc := src
	if !first {
		doc = sentinel + "\n\n" + src
	}
	out, ok := md.renderRaw(doc, rw, table)
	if !ok {
		return rendered{}, false
	}
	if !first {
		pre, ok := md.sentinelOut(rw, table)
		if !ok || !strings.HasPrefix(out, pre) {
			return rendered{}, false
		}
		out = out[len(pre):]
	}
	fg := md.fg
	if table {
		fg = ""
	}
	paint := func(l string) string {
		if fg == "" {
			return l
		}
		return paintFg(l, fg)
	}
	parts := strings.Split(out, "\n")
	if len(parts) == 1 {
		return rendered{first: paint(parts[0]), one: true}, true
	}
	r := rendered{first: paint(parts[0]), last: paint(parts[len(parts)-1])}
	for _, l := range parts[1 : len(parts)-1] {
		r.mid = fitLine(r.mid, l, w, fg)
	}
	return r, true
}

// sentinelKey names the sentinel's output at one width in one style.
type sentinelKey struct {
	w     int
	table bool
}

// sentinelOut is glamour's output for the sentinel paragraph alone at
// width w, memoised per width and style; it must end in a line break.
func (md *markdown) sentinelOut(w int, table bool) (string, bool) {
	k := sentinelKey{w, table}
	if s, ok := md.sentinels[k]; ok {
		return s, true
	}
	out, ok := md.renderRaw(sentinel, w, table)
	if !ok || !strings.HasSuffix(out, "\n") {
		return "", false
	}
	if md.sentinels == nil {
		md.sentinels = map[sentinelKey]string{}
	}
	md.sentinels[k] = out
	return out, true
}

// fitLine appends one line of glamour's output: the styled padding after
// it stripped, painted in fg (see paintFg; "" paints nothing), any style
// left open closed, and wrapped when wider than w (code), keeping its
// indentation.
func fitLine(out []string, l string, w int, fg string) []string {
	t := trimStyledRight(l)
	if fg != "" && t != "" {
		t = paintFg(t, fg)
	}
	if strings.Contains(t, "\x1b[") {
		t += "\x1b[m"
	}
	if ansi.StringWidth(t) > w {
		for _, r := range wrapKeepIndent(t, w) {
			// Each row closes its style: a wrap cuts a styled run in two.
			if strings.Contains(r, "\x1b[") && !strings.HasSuffix(r, "\x1b[m") {
				r += "\x1b[m"
			}
			out = append(out, r)
		}
		return out
	}
	return append(out, t)
}

// blank reports a line that shows nothing.
func blank(l string) bool { return l == "" || ansi.Strip(l) == "" }

// joiner puts rendered blocks together. The blocks of a run are
// concatenated as glamour writes them, blank lines kept between them but
// none at the run's two ends; runs (a table is one) are one blank line
// apart.
type joiner struct {
	w       int
	lines   []string
	pending []string // blank lines at the end of the open run, held back
	partial string   // the raw start of the run's last line, "" if none
	open    bool     // a block's line is partial (partial holds it)
	inRun   bool     // a run is open: the next block is not its first
	started bool     // the open run has shown a line
}

// emit adds one fitted line to the open run.
func (j *joiner) emit(l string) {
	if blank(l) {
		if j.started {
			j.pending = append(j.pending, l)
		}
		return
	}
	if !j.started {
		j.started = true
		if len(j.lines) > 0 {
			j.lines = append(j.lines, "")
		}
	}
	j.lines = append(j.lines, j.pending...)
	j.pending = j.pending[:0]
	j.lines = append(j.lines, l)
}

// emitRaw fits a raw line of glamour's output and adds it.
func (j *joiner) emitRaw(l string) {
	var buf [2]string
	for _, f := range fitLine(buf[:0], l, j.w, "") { // painted by renderBlock
		j.emit(f)
	}
}

// addBlock adds a block that continues the open run, or starts one.
func (j *joiner) addBlock(r rendered) {
	if !j.inRun {
		j.inRun, j.started, j.pending, j.partial, j.open = true, false, j.pending[:0], "", false
	}
	if r.one {
		j.partial, j.open = j.partial+r.first, true
		return
	}
	j.emitRaw(j.partial + r.first)
	for _, l := range r.mid {
		j.emit(l)
	}
	j.partial, j.open = r.last, true
}

// endRun closes the open run: its partial last line is added.
func (j *joiner) endRun() {
	if j.inRun && j.open {
		j.emitRaw(j.partial)
	}
	j.inRun, j.pending, j.partial, j.open = false, j.pending[:0], "", false
}

// addRun adds a run of its own (a table), its blank ends already cut.
func (j *joiner) addRun(ls []string) {
	j.endRun()
	if len(ls) == 0 {
		return
	}
	if len(j.lines) > 0 {
		j.lines = append(j.lines, "")
	}
	j.lines = append(j.lines, ls...)
}

// clone is a copy that can be added to without changing j.
func (j *joiner) clone(extra int) joiner {
	c := *j
	c.lines = make([]string, len(j.lines), len(j.lines)+extra)
	copy(c.lines, j.lines)
	c.pending = append([]string(nil), j.pending...)
	return c
}

// done closes the open run and returns the lines.
func (j *joiner) done() []string {
	j.endRun()
	return j.lines
}

// blockRender renders the blocks of src (prepared text) into j, reusing
// and filling cache (nil: none). A block is the document's first when it
// starts a run: the text's first, or the first after a table.
func (md *markdown) blockRender(j *joiner, src string, w int, cache *blockCache) {
	j.w = w
	blocks, refs := md.splitBlocks(src)
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		if b.table() {
			seg := src[b.start:b.end]
			j.addRun(md.renderTable(seg, min(w, tableWidth(tableRows(seg)))))
			continue
		}
		first := !j.inRun
		text := src[b.start:b.end]
		if refs != "" && !b.code() && strings.Contains(text, "[") {
			text += "\n\n" + refs
		}
		rw := w
		if b.code() {
			rw = md.codeWidth(text, w)
		}
		r, ok := md.cachedBlock(cache, text, first, w, rw, b.nested)
		if !ok {
			// Not to be told apart: the run from here on, whole.
			e := i + 1
			for e < len(blocks) && !blocks[e].table() {
				e++
			}
			whole := src[b.start:blocks[e-1].end]
			if refs != "" {
				whole += "\n\n" + refs
			}
			j.addRun(md.renderWhole(whole, w, b.nested))
			i = e - 1
			continue
		}
		j.addBlock(r)
	}
}

// cachedBlock is renderBlock through the cache (nil: none).
func (md *markdown) cachedBlock(cache *blockCache, text string, first bool, w, rw int, table bool) (rendered, bool) {
	k := blockKey{text: text, first: first}
	if cache != nil {
		if r, ok := cache.byKey[k]; ok {
			return r, true
		}
	}
	r, ok := md.renderBlock(text, first, w, rw, table)
	if ok && cache != nil {
		cache.byKey[k] = r
	}
	return r, ok
}

// codeWrapCap is the widest a code block is rendered (see codeWidth): a
// longer line (minified code, a data dump) is wrapped by glamour.
const codeWrapCap = 512

// codeWidth is the width glamour renders a top-level code block at when
// it is shown w columns wide: wide enough for its longest line, so that
// glamour, which wraps code at the margin like prose, wraps none of it,
// and fitLine wraps each long line instead, its continuation rows
// indented like the line (up to codeWrapCap columns; w when every line
// fits).
func (md *markdown) codeWidth(src string, w int) int {
	md.styles()
	cb := md.text.CodeBlock
	extra := 0
	for _, p := range []*uint{cb.Indent, cb.Margin, cb.Margin, md.text.Document.Indent, md.text.Document.Margin, md.text.Document.Margin} {
		if p != nil {
			extra += int(*p)
		}
	}
	widest := 0
	for l := range strings.SplitSeq(src, "\n") {
		widest = max(widest, ansi.StringWidth(l))
	}
	if widest+extra <= w {
		return w
	}
	// Rounded up to 16 columns, so a few renderers serve every block.
	return min(max(w, codeWrapCap), (widest+extra+15)/16*16)
}

// tableRows splits a table's text into its lines.
func tableRows(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
