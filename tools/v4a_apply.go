package tools

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// v4aChange is the planned effect of one file section.
type v4aChange struct {
	f       v4aFile
	src     string      // absolute path read or deleted, as given
	dst     string      // absolute path written ("" for a delete), as given
	srcT    *fileTarget // the checked handle on src
	dstT    *fileTarget // the checked handle on dst (srcT when the same; nil for a delete)
	before  string      // content before ("" for an add)
	after   string      // content after ("" for a delete)
	mode    fs.FileMode
	diff    string
	added   int
	removed int
}

// close releases the change's directory handles.
func (c v4aChange) close() {
	c.srcT.close()
	if c.dstT != c.srcT {
		c.dstT.close()
	}
}

// applyV4A parses and applies a V4A patch with all-or-nothing semantics:
// every section is validated and every hunk located before any file is
// written, and a failed write rolls back the files already written.
func applyV4A(ctx context.Context, env *Env, text string) Result {
	if strings.TrimSpace(text) == "" {
		return Errorf("patch: argument \"patch\" is required in mode \"patch\" (a V4A patch starting with \"*** Begin Patch\")")
	}
	files, err := parseV4A(text)
	if err != nil {
		return Errorf("patch: invalid V4A patch: %v. No file was changed.", err)
	}
	cwd := envCwd(env)
	// Every section is read, decided and written on checked directory
	// handles (see writeGuard), held until the patch is applied.
	g := newWriteGuard(env)
	seen := map[string]string{}
	claim := func(real, shown string) error {
		if prev, ok := seen[real]; ok {
			return fmt.Errorf("%s is touched by more than one section (also as %s); merge them into one section", shown, prev)
		}
		seen[real] = shown
		return nil
	}
	var changes []v4aChange
	defer func() {
		for _, c := range changes {
			c.close()
		}
	}()
	for _, f := range files {
		c, err := planV4ASection(env, g, f)
		if err == nil {
			changes = append(changes, c)
			err = claim(c.srcT.real(), f.path)
		}
		if err == nil && c.dstT != nil && c.dstT != c.srcT {
			err = claim(c.dstT.real(), f.moveTo)
		}
		if err != nil {
			return Errorf("patch: %s. No file was changed.", strings.TrimSuffix(err.Error(), "."))
		}
	}
	if ctx.Err() != nil {
		return Errorf("patch: cancelled before writing; no file was changed")
	}
	for _, c := range changes {
		ReportDiff(ctx, v4aFileChange(cwd, c).Diff())
	}
	if err := commitV4A(changes); err != nil {
		return Errorf("patch: %v", err)
	}
	var summary, diffs, written []string
	totalAdd, totalDel := 0, 0
	for _, c := range changes {
		if c.f.op != v4aDelete {
			written = append(written, c.dst)
		}
		shown := displayPath(cwd, c.src)
		switch {
		case c.f.op == v4aAdd:
			summary = append(summary, "A "+shown)
		case c.f.op == v4aDelete:
			summary = append(summary, "D "+shown)
		case c.dst != c.src:
			summary = append(summary, "R "+shown+" -> "+displayPath(cwd, c.dst))
		default:
			summary = append(summary, "M "+shown)
		}
		totalAdd += c.added
		totalDel += c.removed
		if c.diff != "" {
			diffs = append(diffs, c.diff)
		}
	}
	res := Result{Output: fmt.Sprintf("Applied patch to %s (-%d +%d lines): %s\n%s",
		plural(len(changes), "file"), totalDel, totalAdd, strings.Join(summary, ", "), strings.Join(diffs, "\n"))}
	return checkEdits(ctx, env, res, written...)
}

// planV4AFile plans one section as planV4ASection does, for a preview:
// the handles it opens are closed before it returns.
func planV4AFile(env *Env, f v4aFile) (v4aChange, error) {
	c, err := planV4ASection(env, newWriteGuard(env), f)
	c.close()
	c.srcT, c.dstT = nil, nil
	return c, err
}

// planV4ASection checks one section against the file system and computes
// its new content and diff, writing nothing. It opens the section's checked
// handles (an Update follows a symlink to its target; Add, Delete and the
// source of a Move act on the name itself); on error it closes them.
func planV4ASection(env *Env, g *writeGuard, f v4aFile) (c v4aChange, err error) {
	c = v4aChange{f: f, mode: 0o644}
	defer func() {
		if err != nil {
			c.close()
			c.srcT, c.dstT = nil, nil
		}
	}()
	src, err := resolveArgPath(env, f.path)
	if err != nil {
		return c, fmt.Errorf("%s: %v", f.path, err)
	}
	c.src = src
	if c.srcT, err = g.open(src, f.op == v4aUpdate && f.moveTo == ""); err != nil {
		return c, err
	}
	data, mode, exists, err := c.srcT.read()
	switch {
	case err != nil:
		return c, fmt.Errorf("cannot access %s: %v", f.path, err)
	case exists && mode&fs.ModeSymlink != 0:
		return c, fmt.Errorf("%s is a symbolic link; patch adds, deletes and moves regular files only (remove or move the link with terminal)", f.path)
	case exists && !mode.IsRegular():
		return c, fmt.Errorf("%s is not a regular file (it is a %s)", f.path, fileKind(mode))
	}
	if f.op == v4aAdd {
		if exists {
			return c, fmt.Errorf("Add File %s: the file already exists; use \"*** Update File:\" to change it, or write_file to replace it", f.path)
		}
		c.dst, c.dstT = src, c.srcT
		c.after = strings.Join(f.add, "\n")
		if len(f.add) > 0 {
			c.after += "\n"
		}
		c.added = len(f.add)
		c.diff = fileDiff("/dev/null", "b/"+displayPath(envCwd(env), src), []diffHunk{{newStart: 1, lines: prefixAll('+', f.add)}})
		return c, nil
	}
	verb := "Update File"
	if f.op == v4aDelete {
		verb = "Delete File"
	}
	if !exists {
		return c, fmt.Errorf("%s %s: the file does not exist (resolved to %s); use \"*** Add File:\" to create it", verb, f.path, src)
	}
	c.mode = mode.Perm()
	if looksBinary(data, true) {
		return c, fmt.Errorf("%s looks like a binary file; patch edits text files only", f.path)
	}
	c.before = string(data)
	shown := displayPath(envCwd(env), src)
	if f.op == v4aDelete {
		old := splitLines(c.before)
		c.removed = len(old)
		c.diff = fileDiff("a/"+shown, "/dev/null", []diffHunk{{oldStart: 1, lines: prefixAll('-', old)}})
		return c, nil
	}
	c.dst, c.dstT = src, c.srcT
	if f.moveTo != "" {
		dst, err := resolveArgPath(env, f.moveTo)
		if err != nil {
			return c, fmt.Errorf("Move to %s: %v", f.moveTo, err)
		}
		if dst != src {
			if c.dstT, err = g.open(dst, false); err != nil {
				return c, err
			}
			if _, there, err := c.dstT.mode(); err != nil || there {
				return c, fmt.Errorf("cannot move %s to %s: the destination already exists", f.path, f.moveTo)
			}
		}
		c.dst = dst
	}
	after, hunks, err := applyHunks(c.before, f)
	if err != nil {
		return c, err
	}
	c.after = after
	for _, h := range hunks {
		for _, l := range h.lines {
			switch l[0] {
			case '+':
				c.added++
			case '-':
				c.removed++
			}
		}
	}
	c.diff = fileDiff("a/"+shown, "b/"+displayPath(envCwd(env), c.dst), hunks)
	if c.diff == "" {
		c.diff = fmt.Sprintf("--- a/%s\n+++ b/%s\n(renamed, content unchanged)", shown, displayPath(envCwd(env), c.dst))
	}
	return c, nil
}

// commitV4A writes the planned changes through their checked handles.
// When a write fails, the files already changed are restored, so that the
// patch applies fully or not at all.
func commitV4A(changes []v4aChange) error {
	type undo struct {
		t       *fileTarget
		content *string // nil: remove the path
		mode    fs.FileMode
	}
	var undos []undo
	rollback := func(cause error) error {
		var failed []string
		for i := len(undos) - 1; i >= 0; i-- {
			u := undos[i]
			var err error
			if u.content == nil {
				err = u.t.remove()
			} else {
				err = u.t.write([]byte(*u.content), u.mode)
			}
			if err != nil {
				failed = append(failed, u.t.g.shown(u.t.lex))
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("%v; rolling back also failed for %s, check them by hand", cause, strings.Join(failed, ", "))
		}
		return fmt.Errorf("%v; the files already written were restored, so no file was changed", cause)
	}
	for _, c := range changes {
		before := c.before
		if c.dst != "" {
			if err := c.dstT.write([]byte(c.after), c.mode); err != nil {
				return rollback(err)
			}
			if c.f.op == v4aAdd || c.dst != c.src {
				undos = append(undos, undo{t: c.dstT})
			} else {
				undos = append(undos, undo{t: c.dstT, content: &before, mode: c.mode})
			}
		}
		if c.dst != c.src {
			if err := c.srcT.remove(); err != nil {
				return rollback(fmt.Errorf("cannot remove %s: %v", c.src, err))
			}
			undos = append(undos, undo{t: c.srcT, content: &before, mode: c.mode})
		}
	}
	return nil
}

// v4aEdit is one located hunk: it replaces n lines from start with repl.
type v4aEdit struct {
	start, n int
	repl     []eolLine
	diff     diffHunk
	hunk     int // index of the hunk in the section
}

// applyHunks applies the hunks of an Update File section to content. Each
// hunk is looked for at or after the end of the previous one (after its @@
// anchors when given); when it is not anchored its lines must match in one
// place only. A hunk found only above the previous one still applies when
// it matches once and overlaps no other hunk. A hunk that only adds lines
// goes right after its anchor (an anchor that is not found is an error), or
// at the end of the file without one; such an addition does not move the
// search past the earlier hunks. Every line kept keeps its own line
// ending; a line that replaces another takes that line's ending, an added
// one the ending of the line above it (the file's dominant one when there
// is none). It returns the new content and the hunks as diff hunks.
func applyHunks(content string, f v4aFile) (string, []diffHunk, error) {
	if len(f.hunks) == 0 {
		return content, nil, nil // a pure move keeps the bytes as they are
	}
	finalNL := content == "" || strings.HasSuffix(content, "\n")
	lines, ends := splitLineEnds(content)
	eol := dominantEOL(ends)
	var edits []v4aEdit
	cursor := 0
	for i, h := range f.hunks {
		where := fmt.Sprintf("Update File %s: %s", f.path, h.label(i))
		from, anchor := cursor, -1
		for _, hint := range h.hints {
			at := findLines(lines, []string{hint}, max(from, anchor+1), false)
			if len(at) == 0 {
				// The anchor may be a fragment of a line, e.g. "func Foo".
				at = findSubstring(lines, hint, max(from, anchor+1))
			}
			if len(at) > 0 {
				// The hunk may repeat the anchor line as its first context.
				from, anchor = at[0], at[0]
			}
		}
		anchored := anchor >= 0
		old := h.oldLines()
		if len(old) == 0 && !anchored && len(h.hints) > 0 && !h.eof {
			return "", nil, fmt.Errorf("%s: its @@ anchor was not found (at or after line %d), so there is no place to insert its lines. "+
				"Re-read the file and anchor the hunk on a line that exists below the previous hunk, or add context lines",
				where, from+1)
		}
		var start int
		switch {
		case len(old) == 0 && (h.eof || !anchored):
			start = len(lines)
		case len(old) == 0:
			start = anchor + 1
		default:
			var err error
			if start, err = locateHunk(lines, old, h, from, cursor, anchored, edits, where); err != nil {
				return "", nil, err
			}
		}
		repl, dl := hunkLines(h, lines, ends, start, eol)
		edits = append(edits, v4aEdit{start: start, n: len(old), repl: repl, diff: diffHunk{oldStart: start + 1, lines: dl}, hunk: i})
		if len(old) > 0 || start < len(lines) {
			// An addition at the end of the file leaves the search where
			// it was: a later hunk may still match above it.
			cursor = max(cursor, start+len(old))
		}
	}
	// Hunks found above an earlier one are applied in file order; equal
	// starts keep the patch's order.
	sort.SliceStable(edits, func(a, b int) bool { return edits[a].start < edits[b].start })
	var out []eolLine
	keep := func(from, to int) {
		for i := from; i < to; i++ {
			out = append(out, eolLine{lines[i], ends[i]})
		}
	}
	var hunks []diffHunk
	pos, shift := 0, 0
	for _, e := range edits {
		keep(pos, e.start)
		out = append(out, e.repl...)
		pos = e.start + e.n
		e.diff.newStart = e.start + 1 + shift
		shift += len(e.repl) - e.n
		hunks = append(hunks, e.diff)
	}
	keep(pos, len(lines))
	var b strings.Builder
	for i, l := range out {
		end := l.end
		switch {
		case i == len(out)-1 && !finalNL:
			end = "" // the file keeps lacking a final newline
		case end != "\n" && end != "\r\n":
			end = eol // a formerly last line that now has a successor
		}
		b.WriteString(l.text)
		b.WriteString(end)
	}
	return b.String(), hunks, nil
}

// hunkLines builds the replacement of a hunk placed at start and its diff
// lines. Context lines keep the file's text and ending; a '+' line takes
// the ending of the '-' line it replaces, else of the line above it.
func hunkLines(h v4aHunk, lines, ends []string, start int, eol string) ([]eolLine, []string) {
	var repl []eolLine
	var dl []string
	var removed []string // endings of the '-' lines not yet replaced
	above := ""
	if start > 0 {
		above = ends[start-1]
	}
	k := start
	for _, l := range h.lines {
		switch l[0] {
		case ' ':
			repl = append(repl, eolLine{lines[k], ends[k]})
			dl = append(dl, " "+lines[k])
			above, removed = ends[k], nil
			k++
		case '-':
			dl = append(dl, "-"+lines[k])
			removed = append(removed, ends[k])
			k++
		case '+':
			end := above
			if len(removed) > 0 {
				end, removed = removed[0], removed[1:]
			}
			if end != "\n" && end != "\r\n" {
				end = eol
			}
			repl = append(repl, eolLine{l[1:], end})
			dl = append(dl, l)
			above = end
		}
	}
	return repl, dl
}

// eolLine is a line of a file and the line ending that follows it.
type eolLine struct {
	text, end string
}

// splitLineEnds splits s into lines as splitLines does and also returns
// the ending of each: "\n", "\r\n", or for a last line without a newline
// "" (or "\r" when it ends in a lone carriage return).
func splitLineEnds(s string) (lines, ends []string) {
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		end := ""
		if found {
			end = "\n"
		}
		if t, ok := strings.CutSuffix(line, "\r"); ok {
			line, end = t, "\r"+end
		}
		lines, ends = append(lines, line), append(ends, end)
		s = rest
	}
	return lines, ends
}

// dominantEOL returns "\r\n" when more lines end with it than with a bare
// "\n", else "\n".
func dominantEOL(ends []string) string {
	crlf, lf := 0, 0
	for _, e := range ends {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}
