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
	start := 0
	for i, l := range lines {
		c := v4aControl(l, false)
		if c == "*** Begin Patch" {
			start = i + 1
			break
		}
		if _, _, ok := v4aHeader(c); ok {
			break // the patch starts without "*** Begin Patch"
		}
	}
	var files []v4aFile
	var cur *v4aFile
	var hunk *v4aHunk
	ended := false
	// blanks counts empty lines not yet known to belong to the section:
	// they do when a line of the section follows, not when a header does.
	blanks := 0
	flushHunk := func() {
		if cur != nil && hunk != nil && (len(hunk.lines) > 0 || len(hunk.hints) > 0) {
			cur.hunks = append(cur.hunks, *hunk)
		}
		hunk = nil
		blanks = 0
	}
	for i := start; i < len(lines) && !ended; i++ {
		l, n := lines[i], i+1
		t := strings.TrimSpace(l)
		ctl := v4aControl(l, cur != nil)
		switch {
		case ctl == "*** End Patch" && (strings.HasPrefix(l, "***") || cur == nil || onlyTrailer(lines[i+1:])):
			ended = true
			continue
		case ctl == "*** End Patch":
			// A padded "*** End Patch" with patch lines after it is the
			// context line of a file that holds that text.
			ctl = ""
		case ctl == "*** End of File":
			if cur == nil || cur.op != v4aUpdate || hunk == nil {
				return nil, fmt.Errorf("line %d: \"*** End of File\" must follow the lines of a hunk in an Update File section", n)
			}
			hunk.eof = true
			flushHunk()
			continue
		}
		if verb, arg, ok := v4aHeader(ctl); ok {
			if verb == "Move to" {
				if cur == nil || cur.op != v4aUpdate || len(cur.hunks) > 0 || hunk != nil {
					return nil, fmt.Errorf("line %d: \"*** Move to:\" must come right after an \"*** Update File:\" header", n)
				}
				if arg == "" {
					return nil, fmt.Errorf("line %d: \"*** Move to:\" needs a path", n)
				}
				cur.moveTo = arg
				continue
			}
			flushHunk()
			if arg == "" {
				return nil, fmt.Errorf("line %d: \"*** %s:\" needs a path", n, verb)
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
					return nil, fmt.Errorf("line %d: write \"*** Move File: OLD -> NEW\"", n)
				}
				f.op, f.path, f.moveTo = v4aUpdate, strings.TrimSpace(from), strings.TrimSpace(to)
			}
			files = append(files, f)
			cur = &files[len(files)-1]
			continue
		}
		if ctl != "" {
			return nil, fmt.Errorf("line %d: unknown header %q; use *** Add File:, *** Update File:, *** Delete File:, *** Move to:, *** End of File or *** End Patch", n, clip(ctl, 80))
		}
		if cur == nil {
			if t == "" || strings.HasPrefix(t, "```") {
				continue
			}
			return nil, fmt.Errorf("line %d: expected a file header such as \"*** Update File: path\", got %q", n, clip(l, 80))
		}
		switch cur.op {
		case v4aDelete:
			if t != "" {
				return nil, fmt.Errorf("line %d: a Delete File section (%s) takes no lines", n, cur.path)
			}
		case v4aAdd:
			switch {
			case strings.HasPrefix(l, "+"):
				for ; blanks > 0; blanks-- {
					cur.add = append(cur.add, "")
				}
				cur.add = append(cur.add, l[1:])
			case t == "":
				blanks++
			default:
				return nil, fmt.Errorf("line %d: every line of an Add File section (%s) must start with '+', got %q", n, cur.path, clip(l, 80))
			}
		case v4aUpdate:
			if strings.HasPrefix(l, "@@") {
				if hunk != nil && len(hunk.lines) > 0 {
					flushHunk()
				}
				if hunk == nil {
					hunk = &v4aHunk{}
				}
				hint := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l[2:]), "@@"))
				if hint != "" {
					hunk.hints = append(hunk.hints, hint)
				}
				continue
			}
			if hunk == nil {
				hunk = &v4aHunk{}
			}
			if l == "" {
				blanks++
				continue
			}
			for ; blanks > 0; blanks-- {
				hunk.lines = append(hunk.lines, " ")
			}
			switch {
			case l[0] == ' ' || l[0] == '-' || l[0] == '+':
				hunk.lines = append(hunk.lines, l)
			default:
				// A context line whose leading space was lost.
				hunk.lines = append(hunk.lines, " "+l)
			}
		}
	}
	flushHunk()
	if !ended && len(files) > 0 {
		return nil, errors.New(v4aTruncated)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file sections found; a V4A patch looks like \"*** Begin Patch\\n*** Update File: path\\n@@ anchor\\n context\\n-old\\n+new\\n*** End Patch\"")
	}
	for _, f := range files {
		if f.op == v4aUpdate && len(f.hunks) == 0 && f.moveTo == "" {
			return nil, fmt.Errorf("Update File %s (line %d) has no hunks; give @@ sections with ' ' context, '-' removed and '+' added lines", f.path, f.line)
		}
		for j, h := range f.hunks {
			changed := false
			for _, l := range h.lines {
				changed = changed || l[0] != ' '
			}
			if !changed {
				return nil, fmt.Errorf("Update File %s: %s has no '-' or '+' lines", f.path, h.label(j))
			}
		}
	}
	return files, nil
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
