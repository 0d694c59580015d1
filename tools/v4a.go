package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// v4aOp is what one file section of a V4A patch does.
type v4aOp int

const (
	v4aAdd v4aOp = iota
	v4aUpdate
	v4aDelete
)

// v4aFile is one file section of a parsed V4A patch.
type v4aFile struct {
	op     v4aOp
	path   string // as written in the patch
	moveTo string // Update only: the new path, "" when not moved
	add    []string
	hunks  []v4aHunk
	line   int // 1-based line of the section header in the patch
}

// v4aHunk is one "@@" section of an Update File: its anchors and its
// lines, each starting with ' ', '-' or '+'.
type v4aHunk struct {
	hints []string
	lines []string
	eof   bool // "*** End of File": the hunk must match at the end
}

// oldLines returns the lines the hunk expects in the file (context and
// removed lines).
func (h v4aHunk) oldLines() []string {
	var out []string
	for _, l := range h.lines {
		if l[0] != '+' {
			out = append(out, l[1:])
		}
	}
	return out
}

// label names the hunk in error messages: its number and anchor.
func (h v4aHunk) label(i int) string {
	s := fmt.Sprintf("hunk %d", i+1)
	if len(h.hints) > 0 {
		s += fmt.Sprintf(" (@@ %s)", clip(strings.Join(h.hints, " / "), 80))
	}
	return s
}

// v4aHeader recognises a "*** Verb File: path" header line.
func v4aHeader(line string) (verb, arg string, ok bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "***") {
		return "", "", false
	}
	t = strings.TrimSpace(t[3:])
	for _, v := range []string{"Add File:", "Update File:", "Delete File:", "Move File:", "Move to:"} {
		if strings.HasPrefix(t, v) {
			return strings.TrimSuffix(v, ":"), strings.TrimSpace(t[len(v):]), true
		}
	}
	return "", "", false
}

// v4aControl returns the control line ("*** ...") that l is, with
// surrounding whitespace removed, or "" when l is content. A line starting
// with "***" is control. Inside a file section (inSection) a line starting
// with '-' or '+' is always content, and one padded with whitespace is
// control only when it is a known marker (a file header, "*** End of
// File", "*** End Patch"): models pad marker lines, while content such as
// " *** bold" stays a context line. Before the first file section leading
// whitespace is always tolerated.
func v4aControl(l string, inSection bool) string {
	t := strings.TrimLeft(l, " \t")
	if !strings.HasPrefix(t, "***") {
		return ""
	}
	t = strings.TrimRight(t, " \t")
	if !inSection || strings.HasPrefix(l, "***") {
		return t
	}
	if _, _, ok := v4aHeader(t); ok || t == "*** End Patch" || t == "*** End of File" {
		return t
	}
	return ""
}

// v4aTruncated is the error of a patch without its closing marker.
const v4aTruncated = "the patch ends without *** End Patch; it may have been cut off. Send the whole patch again, ending with a line \"*** End Patch\""

// onlyTrailer reports whether lines hold nothing but blank lines and
// Markdown fences: what may follow the end of a patch.
func onlyTrailer(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "```") {
			return false
		}
	}
	return true
}

// parseV4A parses the text of a V4A patch. It tolerates a missing
// "*** Begin Patch", surrounding Markdown fences, CRLF line endings,
// marker lines padded with whitespace and context lines whose leading
// space was stripped. A patch without "*** End Patch" is refused whole: it
// may have been cut off, and applying part of it (above all its deletes)
// would do what nobody asked. See v4aControl for what counts as a marker.
func parseV4A(text string) ([]v4aFile, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	p := &v4aParser{}
	for i := v4aStart(lines); i < len(lines) && !p.ended; i++ {
		if err := p.line(lines, i); err != nil {
			return nil, err
		}
	}
	p.flushHunk()
	if !p.ended && len(p.files) > 0 {
		return nil, errors.New(v4aTruncated)
	}
	if err := checkV4AFiles(p.files); err != nil {
		return nil, err
	}
	return p.files, nil
}

// v4aStart is the index of the first line after "*** Begin Patch", or of
// the first file header when the patch starts without it.
func v4aStart(lines []string) int {
	for i, l := range lines {
		c := v4aControl(l, false)
		if c == "*** Begin Patch" {
			return i + 1
		}
		if _, _, ok := v4aHeader(c); ok {
			return 0 // the patch starts without "*** Begin Patch"
		}
	}
	return 0
}

// v4aParser is the state of parseV4A between lines.
type v4aParser struct {
	files []v4aFile
	cur   *v4aFile
	hunk  *v4aHunk
	ended bool
	// blanks counts empty lines not yet known to belong to the section:
	// they do when a line of the section follows, not when a header does.
	blanks int
}

// flushHunk ends the current hunk, keeping it when it holds anything.
func (p *v4aParser) flushHunk() {
	if p.cur != nil && p.hunk != nil && (len(p.hunk.lines) > 0 || len(p.hunk.hints) > 0) {
		p.cur.hunks = append(p.cur.hunks, *p.hunk)
	}
	p.hunk = nil
	p.blanks = 0
}

// line reads line i: a control line (end of patch, end of file, a
// header) or a line of the current section.
func (p *v4aParser) line(lines []string, i int) error {
	l, n := lines[i], i+1
	ctl := v4aControl(l, p.cur != nil)
	switch {
	case ctl == "*** End Patch" && (strings.HasPrefix(l, "***") || p.cur == nil || onlyTrailer(lines[i+1:])):
		p.ended = true
		return nil
	case ctl == "*** End Patch":
		// A padded "*** End Patch" with patch lines after it is the
		// context line of a file that holds that text.
		ctl = ""
	case ctl == "*** End of File":
		if p.cur == nil || p.cur.op != v4aUpdate || p.hunk == nil {
			return fmt.Errorf("line %d: \"*** End of File\" must follow the lines of a hunk in an Update File section", n)
		}
		p.hunk.eof = true
		p.flushHunk()
		return nil
	}
	if verb, arg, ok := v4aHeader(ctl); ok {
		return p.header(verb, arg, n)
	}
	if ctl != "" {
		return fmt.Errorf("line %d: unknown header %q; use *** Add File:, *** Update File:, *** Delete File:, *** Move to:, *** End of File or *** End Patch", n, clip(ctl, 80))
	}
	t := strings.TrimSpace(l)
	if p.cur == nil {
		if t == "" || strings.HasPrefix(t, "```") {
			return nil
		}
		return fmt.Errorf("line %d: expected a file header such as \"*** Update File: path\", got %q", n, clip(l, 80))
	}
	switch p.cur.op {
	case v4aDelete:
		if t != "" {
			return fmt.Errorf("line %d: a Delete File section (%s) takes no lines", n, p.cur.path)
		}
	case v4aAdd:
		return p.addLine(l, t, n)
	case v4aUpdate:
		p.updateLine(l)
	}
	return nil
}

// header starts a file section (or sets an Update's Move to) at line n.
func (p *v4aParser) header(verb, arg string, n int) error {
	if verb == "Move to" {
		if p.cur == nil || p.cur.op != v4aUpdate || len(p.cur.hunks) > 0 || p.hunk != nil {
			return fmt.Errorf("line %d: \"*** Move to:\" must come right after an \"*** Update File:\" header", n)
		}
		if arg == "" {
			return fmt.Errorf("line %d: \"*** Move to:\" needs a path", n)
		}
		p.cur.moveTo = arg
		return nil
	}
	p.flushHunk()
	if arg == "" {
		return fmt.Errorf("line %d: \"*** %s:\" needs a path", n, verb)
	}
	f := v4aFile{path: arg, line: n}
	switch verb {
	case "Add File":
		f.op = v4aAdd
	case "Update File":
		f.op = v4aUpdate
	case "Delete File":
		f.op = v4aDelete
	case "Move File":
		from, to, ok := strings.Cut(arg, "->")
		if !ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
			return fmt.Errorf("line %d: write \"*** Move File: OLD -> NEW\"", n)
		}
		f.op, f.path, f.moveTo = v4aUpdate, strings.TrimSpace(from), strings.TrimSpace(to)
	}
	p.files = append(p.files, f)
	p.cur = &p.files[len(p.files)-1]
	return nil
}

// addLine reads line l (t trimmed) of an Add File section.
func (p *v4aParser) addLine(l, t string, n int) error {
	switch {
	case strings.HasPrefix(l, "+"):
		for ; p.blanks > 0; p.blanks-- {
			p.cur.add = append(p.cur.add, "")
		}
		p.cur.add = append(p.cur.add, l[1:])
	case t == "":
		p.blanks++
	default:
		return fmt.Errorf("line %d: every line of an Add File section (%s) must start with '+', got %q", n, p.cur.path, clip(l, 80))
	}
	return nil
}

// updateLine reads line l of an Update File section: an @@ anchor or a
// hunk line.
func (p *v4aParser) updateLine(l string) {
	if strings.HasPrefix(l, "@@") {
		if p.hunk != nil && len(p.hunk.lines) > 0 {
			p.flushHunk()
		}
		if p.hunk == nil {
			p.hunk = &v4aHunk{}
		}
		if hint := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l[2:]), "@@")); hint != "" {
			p.hunk.hints = append(p.hunk.hints, hint)
		}
		return
	}
	if p.hunk == nil {
		p.hunk = &v4aHunk{}
	}
	if l == "" {
		p.blanks++
		return
	}
	for ; p.blanks > 0; p.blanks-- {
		p.hunk.lines = append(p.hunk.lines, " ")
	}
	switch {
	case l[0] == ' ' || l[0] == '-' || l[0] == '+':
		p.hunk.lines = append(p.hunk.lines, l)
	default:
		// A context line whose leading space was lost.
		p.hunk.lines = append(p.hunk.lines, " "+l)
	}
}

// checkV4AFiles refuses a patch without files, an Update without hunks
// (and without a move) and a hunk that changes nothing.
func checkV4AFiles(files []v4aFile) error {
	if len(files) == 0 {
		return fmt.Errorf("no file sections found; a V4A patch looks like \"*** Begin Patch\\n*** Update File: path\\n@@ anchor\\n context\\n-old\\n+new\\n*** End Patch\"")
	}
	for _, f := range files {
		if f.op == v4aUpdate && len(f.hunks) == 0 && f.moveTo == "" {
			return fmt.Errorf("Update File %s (line %d) has no hunks; give @@ sections with ' ' context, '-' removed and '+' added lines", f.path, f.line)
		}
		for j, h := range f.hunks {
			changed := false
			for _, l := range h.lines {
				changed = changed || l[0] != ' '
			}
			if !changed {
				return fmt.Errorf("Update File %s: %s has no '-' or '+' lines", f.path, h.label(j))
			}
		}
	}
	return nil
}

// diffHunk is one hunk of a unified diff: its 1-based start lines and its
// lines prefixed by ' ', '-' or '+'.
type diffHunk struct {
	oldStart, newStart int
	lines              []string
}

// prefixAll prefixes every line with sign.
func prefixAll(sign byte, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(sign) + l
	}
	return out
}

// fileDiff renders hunks as a unified diff between the names from and to,
// eliding the middle of long runs and hunks past patchMaxHunks. It returns
// "" when no hunk has lines.
func fileDiff(from, to string, hunks []diffHunk) string {
	var b strings.Builder
	for i, h := range hunks {
		if len(h.lines) == 0 {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", filepath.ToSlash(from), filepath.ToSlash(to))
		}
		if i == patchMaxHunks {
			fmt.Fprintf(&b, "[… %d more hunks not shown …]\n", len(hunks)-i)
			break
		}
		oldN, newN := 0, 0
		for _, l := range h.lines {
			if l[0] != '+' {
				oldN++
			}
			if l[0] != '-' {
				newN++
			}
		}
		oStart, nStart := h.oldStart, h.newStart
		if oldN == 0 {
			oStart--
		}
		if newN == 0 {
			nStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", max(oStart, 0), oldN, max(nStart, 0), newN)
		for j, l := range h.lines {
			n := len(h.lines)
			if n > 2*patchMaxHunkLines && j >= patchMaxHunkLines && j < n-patchMaxHunkLines {
				if j == patchMaxHunkLines {
					fmt.Fprintf(&b, "[… %d lines …]\n", n-2*patchMaxHunkLines)
				}
				continue
			}
			b.WriteString(clip(l, 500))
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
