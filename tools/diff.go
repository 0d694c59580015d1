package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// DiffMaxBytes is the largest file (old or new content) whose change is
// printed line by line; a larger one gets a one-line note instead.
const DiffMaxBytes = 8 << 20

// FileChange is the change one tool call makes to one file, computed
// before anything is written.
type FileChange struct {
	// OldPath and NewPath are the file's path before and after, as shown
	// (relative to the working directory when inside it); OldPath is ""
	// for a file the call creates and NewPath "" for one it deletes.
	OldPath, NewPath string
	// Old and New are the contents before and after.
	Old, New string
}

// Diff is the change as a unified diff: "--- a/PATH", "+++ b/PATH" and
// "@@" hunks (see UnifiedDiff).
func (c FileChange) Diff() string {
	oldL, newL := "/dev/null", "/dev/null"
	if c.OldPath != "" {
		oldL = "a/" + strings.TrimPrefix(c.OldPath, "/")
	}
	if c.NewPath != "" {
		newL = "b/" + strings.TrimPrefix(c.NewPath, "/")
	}
	return UnifiedDiff(oldL, newL, c.Old, c.New)
}

// UnifiedDiff returns the unified diff (3 lines of context) that turns old
// into new under the given labels ("a/PATH", "b/PATH" or "/dev/null"). It
// is "" when nothing changed. Binary content (a NUL byte) and content over
// DiffMaxBytes get the header and a note instead of hunks; a rename that
// keeps the content says so.
func UnifiedDiff(oldLabel, newLabel, old, new string) string {
	head := "--- " + oldLabel + "\n+++ " + newLabel + "\n"
	switch {
	case old == new && strings.TrimPrefix(oldLabel, "a/") != strings.TrimPrefix(newLabel, "b/") && oldLabel != "/dev/null" && newLabel != "/dev/null":
		return head + "(renamed, content unchanged)\n"
	case old == new:
		return ""
	case strings.IndexByte(old, 0) >= 0 || strings.IndexByte(new, 0) >= 0:
		return head + fmt.Sprintf("(binary file: %s → %s; not shown)\n", plural(len(old), "byte"), plural(len(new), "byte"))
	case len(old) > DiffMaxBytes || len(new) > DiffMaxBytes:
		return head + fmt.Sprintf("(file too large to show a diff: %s → %s)\n", plural(len(old), "byte"), plural(len(new), "byte"))
	}
	return windowDiff(oldLabel, newLabel, old, new)
}

// diffContext is the number of unchanged lines shown around a change.
const diffContext = udiff.DefaultContextLines

// hunkHeader matches the line numbers of an "@@ -A,B +C,D @@" line.
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@`)

// windowDiff diffs only the lines between the common start and end of old
// and new (with the context lines around them) and renumbers the hunks: the
// same diff as of the whole files, but for a small change to a big file the
// cost is that of scanning it once, not of splitting it into lines twice.
func windowDiff(oldLabel, newLabel, old, new string) string {
	i := 0
	for n := min(len(old), len(new)); i < n && old[i] == new[i]; i++ {
	}
	a := strings.LastIndexByte(old[:i], '\n') + 1
	for k := 0; k < diffContext && a > 0; k++ {
		a = strings.LastIndexByte(old[:a-1], '\n') + 1
	}
	j := 0 // bytes in common at the end, not overlapping the start
	for n := min(len(old), len(new)) - i; j < n && old[len(old)-1-j] == new[len(new)-1-j]; j++ {
	}
	b := 0 // bytes cut from the end of both: whole lines, after the context
	if j > 0 {
		tail := old[len(old)-j:]
		if k := strings.IndexByte(tail, '\n'); k >= 0 && (len(old)-j == 0 || old[len(old)-j-1] != '\n') {
			tail = tail[k+1:] // the suffix starts mid-line: cut after that line
		}
		for k := 0; k < diffContext && tail != ""; k++ {
			nl := strings.IndexByte(tail, '\n')
			if nl < 0 {
				tail = ""
				break
			}
			tail = tail[nl+1:]
		}
		b = len(tail)
	}
	if a == 0 && b == 0 {
		return udiff.Unified(oldLabel, newLabel, old, new)
	}
	d := udiff.Unified(oldLabel, newLabel, old[a:len(old)-b], new[a:len(new)-b])
	shift := strings.Count(old[:a], "\n")
	if shift == 0 {
		return d
	}
	lines := strings.SplitAfter(d, "\n")
	for k, l := range lines {
		m := hunkHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[3])
		lines[k] = fmt.Sprintf("@@ -%d%s +%d%s @@", x+shift, m[2], y+shift, m[4]) + l[len(m[0]):]
	}
	return strings.Join(lines, "")
}

// DiffStats counts the added and removed lines of a unified diff.
func DiffStats(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// EditPreview is what a write_file or patch call would change, computed
// from its arguments and the files as they are now, writing nothing.
type EditPreview struct {
	// Files are the changes, in the order the call makes them.
	Files []FileChange
}

// Diff is the diffs of every file, one after another.
func (p EditPreview) Diff() string {
	var b strings.Builder
	for _, f := range p.Files {
		b.WriteString(f.Diff())
	}
	return b.String()
}

// PreviewEdit computes what a call of a built-in tool with a
// Traits.Preview (write_file; patch: replace, replace_all, or a V4A patch
// of any number of adds, updates, moves and deletes) would change, from its raw JSON arguments and the files under
// cwd as they are now. It reads files and writes nothing, so an approval
// can show it before the call runs. It returns an error for another tool
// or when the call would fail (the tool then reports why).
func PreviewEdit(cwd, tool, rawArgs string) (EditPreview, error) {
	raw, err := parseArgs(rawArgs)
	if err != nil {
		return EditPreview{}, err
	}
	tr, _ := BuiltinTraits(tool)
	if tr.Preview == nil {
		return EditPreview{}, fmt.Errorf("%s does not edit files", tool)
	}
	return tr.Preview(&Env{Cwd: cwd}, raw)
}

// previewPatch is the change of a patch call: a replace, or a V4A patch.
func previewPatch(env *Env, raw json.RawMessage) (EditPreview, error) {
	var a patchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return EditPreview{}, err
	}
	if a.isV4A() {
		return previewV4A(env, a.Patch)
	}
	c, err := previewReplace(env, a)
	return EditPreview{Files: []FileChange{c}}, err
}

// previewWriteFile is the change of a write_file call, as a preview.
func previewWriteFile(env *Env, raw json.RawMessage) (EditPreview, error) {
	c, err := previewWrite(env, raw)
	return EditPreview{Files: []FileChange{c}}, err
}

// previewWrite is the change of a write_file call.
func previewWrite(env *Env, raw json.RawMessage) (FileChange, error) {
	var a writeFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return FileChange{}, err
	}
	if strings.TrimSpace(a.Path) == "" || a.Content == nil {
		return FileChange{}, errors.New("write_file needs path and content")
	}
	p, err := resolveArgPath(env, a.Path)
	if err != nil {
		return FileChange{}, err
	}
	old, existed, err := readCurrent(env, p)
	if err != nil {
		return FileChange{}, err
	}
	return writeChange(envCwd(env), p, old, existed, *a.Content), nil
}

// writeChange is the change of writing content to p, which held old when
// existed.
func writeChange(cwd, p, old string, existed bool, content string) FileChange {
	shown := displayPath(cwd, p)
	c := FileChange{NewPath: shown, Old: old, New: content}
	if existed {
		c.OldPath = shown
	}
	return c
}

// readCurrent reads the file at p as it is now, through the checked
// handle a write would use (readGuarded); a missing file is no error
// (existed is false).
func readCurrent(env *Env, p string) (content string, existed bool, err error) {
	data, existed, err := readGuarded(env, p)
	return string(data), existed, err
}

// previewReplace is the change of a replace-mode patch call.
func previewReplace(env *Env, a patchArgs) (FileChange, error) {
	if strings.TrimSpace(a.Path) == "" || a.OldString == nil || *a.OldString == "" || a.NewString == nil {
		return FileChange{}, errors.New("patch needs path, old_string and new_string")
	}
	p, err := resolveArgPath(env, a.Path)
	if err != nil {
		return FileChange{}, err
	}
	data, existed, err := readGuarded(env, p)
	if err == nil && !existed {
		err = &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	if err != nil {
		return FileChange{}, err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return FileChange{}, errors.New("binary file")
	}
	content := string(data)
	oldS, newS, count := matchEOL(content, *a.OldString, *a.NewString)
	switch {
	case count == 0:
		return FileChange{}, errors.New("old_string not found")
	case count > 1 && !bool(a.ReplaceAll):
		return FileChange{}, fmt.Errorf("old_string occurs %d times", count)
	}
	n := 1
	if a.ReplaceAll {
		n = -1
	}
	shown := displayPath(envCwd(env), p)
	return FileChange{OldPath: shown, NewPath: shown, Old: content, New: strings.Replace(content, oldS, newS, n)}, nil
}

// matchEOL adapts a replacement to the file's line endings: when the model
// wrote old without the CRLF endings of a CRLF file, old and new get them;
// new lines in a CRLF file end like the others. It returns the strings to
// replace with and how often old occurs.
func matchEOL(content, oldS, newS string) (string, string, int) {
	count := strings.Count(content, oldS)
	if count == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldS, "\r\n") {
		// The model saw the file without its CRLF line endings.
		crOld := strings.ReplaceAll(oldS, "\n", "\r\n")
		if n := strings.Count(content, crOld); n > 0 {
			return crOld, toCRLF(newS), n
		}
	} else if count > 0 {
		// The file's dominant line ending, as dominantEOL sees it.
		if crlf := strings.Count(content, "\r\n"); crlf > strings.Count(content, "\n")-crlf {
			newS = toCRLF(newS)
		}
	}
	return oldS, newS, count
}

// previewV4A is the change of a V4A patch: every section, planned against
// the files as they are.
func previewV4A(env *Env, text string) (EditPreview, error) {
	files, err := parseV4A(text)
	if err != nil {
		return EditPreview{}, err
	}
	var p EditPreview
	for _, f := range files {
		c, err := planV4AFile(env, f)
		if err != nil {
			return EditPreview{}, err
		}
		p.Files = append(p.Files, v4aFileChange(envCwd(env), c))
	}
	return p, nil
}

// v4aFileChange turns a planned V4A section into a FileChange.
func v4aFileChange(cwd string, c v4aChange) FileChange {
	fc := FileChange{Old: c.before, New: c.after}
	if c.f.op != v4aAdd {
		fc.OldPath = displayPath(cwd, c.src)
	}
	if c.dst != "" {
		fc.NewPath = displayPath(cwd, c.dst)
	}
	return fc
}
