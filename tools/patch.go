package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// Limits of the diff summary that patch returns.
const (
	patchMaxHunks     = 10
	patchMaxHunkLines = 40
	patchMaxMatchList = 20
)

// PatchTool is the patch tool. It edits a file by replacing an exact
// string (mode "replace") or applies a V4A multi-file patch (mode "patch")
// all or nothing.
type PatchTool struct{}

// Name implements Tool.
func (PatchTool) Name() string { return "patch" }

// Description implements Tool.
func (PatchTool) Description() string {
	return "Edit a file by exact string replacement (mode \"replace\", the default). " +
		"`old_string` must match the file's current text exactly, including whitespace and indentation, and must occur exactly once: " +
		"include enough surrounding lines to make it unique, or set replace_all=true to replace every occurrence. " +
		"`new_string` replaces it (use \"\" to delete). Copy old_string from read_file output without the LINE_NUMBER| prefixes. " +
		"Returns a diff of the change. Use write_file to create a file.\n\n" +
		"Mode \"patch\" applies a V4A patch (argument `patch`) that can add, update, move and delete several files at once; it applies fully or not at all. Format:\n" +
		"*** Begin Patch\n" +
		"*** Update File: src/app.go\n" +
		"@@ func main() {\n" +
		"   cfg := load()\n" +
		"-  run(cfg)\n" +
		"+  if err := run(cfg); err != nil {\n" +
		"+    log.Fatal(err)\n" +
		"+  }\n" +
		"*** Add File: docs/notes.md\n" +
		"+# Notes\n" +
		"*** Delete File: old.txt\n" +
		"*** Update File: a.go\n" +
		"*** Move to: b.go\n" +
		"@@\n" +
		"-package a\n" +
		"+package b\n" +
		"*** End Patch\n" +
		"In an Update File section each hunk starts with `@@` optionally followed by a line that appears above the change (a function or class header) to anchor it; " +
		"then lines starting with ' ' (unchanged context, about 3 lines around each change), '-' (removed) or '+' (added). " +
		"Hunks must follow file order. Context and '-' lines must match the file (whitespace differences are tolerated); when they match at several places, add context or an @@ anchor. " +
		"Every line of an Add File section starts with '+'. Do not put read_file LINE_NUMBER| prefixes in patches."
}

// Schema implements Tool.
func (PatchTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "mode": {"type": "string", "enum": ["replace", "patch"], "default": "replace", "description": "\"replace\": replace old_string with new_string in path. \"patch\": apply the V4A patch in the patch argument (path, old_string and new_string are then unused)."},
    "path": {"type": "string", "description": "File to edit (relative to the working directory, absolute, or starting with ~)."},
    "old_string": {"type": "string", "description": "Exact text to find; must be unique in the file unless replace_all is true."},
    "new_string": {"type": "string", "description": "Replacement text (empty string deletes old_string)."},
    "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence instead of requiring exactly one."},
    "patch": {"type": "string", "description": "V4A patch text for mode \"patch\", from \"*** Begin Patch\" to \"*** End Patch\"."}
  },
  "required": ["mode"],
  "additionalProperties": false
}`)
}

type patchArgs struct {
	Mode       string   `json:"mode"`
	Path       string   `json:"path"`
	OldString  *string  `json:"old_string"`
	NewString  *string  `json:"new_string"`
	ReplaceAll flexBool `json:"replace_all"`
	Patch      string   `json:"patch"`
}

// isV4A reports whether the call applies a V4A patch: mode "patch", or no
// mode with a non-blank patch and no old_string. The tool, the planner and
// the approver all decide through it (see writePaths), so that they agree
// on which paths a call touches.
func (a patchArgs) isV4A() bool {
	switch strings.TrimSpace(a.Mode) {
	case "patch":
		return true
	case "":
		return strings.TrimSpace(a.Patch) != "" && a.OldString == nil
	}
	return false
}

// Run implements Tool.
func (PatchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a patchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("patch: %v", err)
	}
	if a.isV4A() {
		return applyV4A(ctx, env, a.Patch)
	}
	switch strings.TrimSpace(a.Mode) {
	case "", "replace":
	default:
		return Errorf("patch: unknown mode %q; use \"replace\" or \"patch\"", a.Mode)
	}
	if strings.TrimSpace(a.Path) == "" {
		return Errorf("patch: argument \"path\" is required in replace mode")
	}
	if a.OldString == nil || *a.OldString == "" {
		return Errorf("patch: argument \"old_string\" is required and must not be empty. To create a file use write_file.")
	}
	if a.NewString == nil {
		return Errorf("patch: argument \"new_string\" is required (use \"\" to delete old_string)")
	}
	oldS, newS := *a.OldString, *a.NewString
	if oldS == newS {
		return Errorf("patch: old_string and new_string are identical; nothing to change")
	}
	p, err := resolveArgPath(env, a.Path)
	if err != nil {
		return Errorf("patch: %v", err)
	}
	// Read, decide and write on one directory handle (see writeGuard).
	t, err := newWriteGuard(env).open(p, true)
	if err != nil {
		return Errorf("patch: %v", err)
	}
	defer t.close()
	data, mode, exists, err := t.read()
	switch {
	case err != nil:
		return statError("patch", a.Path, p, err)
	case !exists:
		return statError("patch", a.Path, p, fs.ErrNotExist)
	case mode.IsDir():
		return Errorf("patch: %s is a directory, not a file", a.Path)
	case mode&fs.ModeSymlink != 0:
		return Errorf("patch: %s: %v", a.Path, errChanged)
	case !mode.IsRegular():
		return Errorf("patch: %s is not a regular file (it is a %s)", a.Path, fileKind(mode))
	}
	if hasNUL(data) {
		return Errorf("patch: %s looks like a binary file; patch edits text files only", a.Path)
	}
	content := string(data)
	oldS, newS, count := matchEOL(content, oldS, newS)
	if count == 0 {
		return Errorf("patch: old_string not found in %s.%s Re-read the file with read_file and copy the exact text.", a.Path, notFoundHint(content, oldS))
	}
	if count > 1 && !a.ReplaceAll {
		lines := matchLines(content, oldS, patchMaxMatchList)
		more := ""
		if count > len(lines) {
			more = ", …"
		}
		return Errorf("patch: old_string occurs %d times in %s (at lines %s%s). Add surrounding context to old_string so it matches exactly once, or set replace_all=true to replace all of them.",
			count, a.Path, joinInts(lines), more)
	}
	if err := ctx.Err(); err != nil {
		return Errorf("patch: cancelled before writing %s", a.Path)
	}
	n := 1
	if a.ReplaceAll {
		n = -1
	}
	updated := strings.Replace(content, oldS, newS, n)
	ReportDiff(ctx, writeChange(envCwd(env), p, content, true, updated).Diff())
	if err := t.write([]byte(updated), mode.Perm()); err != nil {
		return Errorf("patch: %v", err)
	}
	diff, removed, added := replaceDiff(content, oldS, newS, count)
	res := Result{Output: fmt.Sprintf("Patched %s: replaced %s (-%d +%d lines).\n%s",
		a.Path, plural(count, "occurrence"), removed, added, diff)}
	return checkEdits(ctx, env, res, p)
}

// toCRLF turns every bare "\n" of s into "\r\n", leaving existing
// "\r\n" as they are.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// matchLines returns the 1-based line numbers where the first limit
// occurrences of sub in s start.
func matchLines(s, sub string, limit int) []int {
	var out []int
	line, pos := 1, 0
	for len(out) < limit {
		i := strings.Index(s[pos:], sub)
		if i < 0 {
			break
		}
		line += strings.Count(s[pos:pos+i], "\n")
		out = append(out, line)
		line += strings.Count(sub, "\n")
		pos += i + len(sub)
	}
	return out
}

// joinInts joins numbers with ", ".
func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// notFoundHint looks for the first non-blank line of old in content and
// says where something close to it is.
func notFoundHint(content, old string) string {
	var first string
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
			break
		}
	}
	if first == "" {
		return " old_string holds only whitespace."
	}
	if hasLineNumberPrefixes(old) {
		return " old_string seems to include the LINE_NUMBER| prefixes of read_file output; remove them."
	}
	lines := strings.Split(content, "\n")
	first = collapseSpace(first)
	var exact []int
	for i, l := range lines {
		if collapseSpace(l) == first {
			exact = append(exact, i+1)
			if len(exact) == 5 {
				break
			}
		}
	}
	if len(exact) > 0 {
		return fmt.Sprintf(" Its first line %q appears (ignoring whitespace) at line %s, so whitespace, indentation or the following lines differ.",
			clip(first, 120), joinInts(exact))
	}
	best, bestScore := -1, 0.0
	want := bigrams(first)
	for i, l := range lines {
		if i >= 20000 {
			break
		}
		t := strings.TrimSpace(l)
		if t == "" || len(t) > 4*len(first)+20 {
			continue
		}
		if sc := dice(want, bigrams(t)); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best >= 0 && bestScore >= 0.5 {
		return fmt.Sprintf(" The closest line to its first line is line %d: %q.", best+1, clip(strings.TrimSpace(lines[best]), 160))
	}
	return " No line resembles its first line; the text may have changed or be in another file."
}

// collapseSpace trims s and collapses its runs of whitespace to one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// hasLineNumberPrefixes reports whether every non-blank line of s starts
// with digits and a '|', as read_file prints them.
func hasLineNumberPrefixes(s string) bool {
	seen := false
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		digits := len(l) - len(strings.TrimLeft(l, "0123456789"))
		if digits == 0 || digits >= len(l) || l[digits] != '|' {
			return false
		}
		seen = true
	}
	return seen
}

// bigrams returns the multiset of byte pairs of s.
func bigrams(s string) map[string]int {
	m := make(map[string]int, len(s))
	for i := 0; i+1 < len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two bigram multisets.
func dice(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for k, v := range a {
		na += v
		common += min(v, b[k])
	}
	for _, v := range b {
		nb += v
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}

// clip shortens s to at most n bytes (on a rune boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// replaceDiff renders a unified-diff-style summary of replacing the first
// count occurrences of oldS with newS in content. Each hunk covers the whole
// lines that one or more neighbouring occurrences touch. It also returns the
// total number of lines removed and added.
func replaceDiff(content, oldS, newS string, count int) (string, int, int) {
	var occ []int
	for pos := 0; len(occ) < count; {
		i := strings.Index(content[pos:], oldS)
		if i < 0 {
			break
		}
		occ = append(occ, pos+i)
		pos += i + len(oldS)
	}
	// lineEnd extends the end e of a match to the end of its line.
	lineEnd := func(e int) int {
		if content[e-1] == '\n' {
			return e
		}
		if j := strings.IndexByte(content[e:], '\n'); j >= 0 {
			return e + j + 1
		}
		return len(content)
	}
	var b strings.Builder
	removed, added, shift, hunks := 0, 0, 0, 0
	lineNo, linePos := 1, 0
	for i := 0; i < len(occ); {
		ls := strings.LastIndexByte(content[:occ[i]], '\n') + 1
		le := lineEnd(occ[i] + len(oldS))
		j := i + 1
		for j < len(occ) && occ[j] < le {
			le = lineEnd(occ[j] + len(oldS))
			j++
		}
		var nb strings.Builder
		cur := ls
		for _, o := range occ[i:j] {
			nb.WriteString(content[cur:o])
			nb.WriteString(newS)
			cur = o + len(oldS)
		}
		nb.WriteString(content[cur:le])
		lineNo += strings.Count(content[linePos:ls], "\n")
		linePos = ls
		oldLines, newLines := splitLines(content[ls:le]), splitLines(nb.String())
		removed += len(oldLines)
		added += len(newLines)
		if hunks < patchMaxHunks {
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", lineNo, len(oldLines), lineNo+shift, len(newLines))
			writeHunk(&b, '-', oldLines)
			writeHunk(&b, '+', newLines)
		} else if hunks == patchMaxHunks {
			b.WriteString("[… more changes not shown …]\n")
		}
		hunks++
		shift += len(newLines) - len(oldLines)
		i = j
	}
	return strings.TrimSuffix(b.String(), "\n"), removed, added
}

// splitLines splits s into lines without their newline characters.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// writeHunk writes lines prefixed by sign, eliding the middle of long runs.
func writeHunk(b *strings.Builder, sign byte, lines []string) {
	for i, l := range lines {
		if len(lines) > patchMaxHunkLines && i == patchMaxHunkLines/2 {
			fmt.Fprintf(b, "%c[… %d lines …]\n", sign, len(lines)-patchMaxHunkLines)
		}
		if len(lines) > patchMaxHunkLines && i >= patchMaxHunkLines/2 && i < len(lines)-patchMaxHunkLines/2 {
			continue
		}
		b.WriteByte(sign)
		b.WriteString(clip(l, 500))
		b.WriteByte('\n')
	}
}
