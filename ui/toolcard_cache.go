package ui

// resultCache keeps the rendered lines under a call's header once it has
// a result. A running call redraws its whole batch every frame (its
// spinner and elapsed time move), and without the cache every finished
// call of the batch would wrap and colour its output again each time.
type resultCache struct {
	width, gen   int
	indent       string
	state        toolState
	output, diff string
	live         int // lines of live output seen (they pick the preview's end)
	liveLines    int
	lines        []string
	ok           bool
}

// result renders the lines under a call's header that are not its live
// output: the diff it applied, or its output's preview. They are
// rendered again only when the width, the theme or the result changes.
func (c *toolCall) result(rc *renderCtx, indent string) []string {
	k := resultCache{width: rc.width, gen: rc.gen, indent: indent, state: c.state, output: c.output, diff: c.diff,
		live: c.live.total(), liveLines: rc.liveLines, ok: true}
	b := &c.body
	if b.ok && b.width == k.width && b.gen == k.gen && b.indent == k.indent && b.state == k.state &&
		b.output == k.output && b.diff == k.diff && b.live == k.live && b.liveLines == k.liveLines {
		return b.lines
	}
	switch {
	case c.diff != "":
		k.lines = append(c.diffPreview(rc, indent), c.diagLines(rc, indent)...)
	case c.state >= toolDone:
		k.lines = c.preview(rc, indent)
	}
	*b = k
	return b.lines
}
