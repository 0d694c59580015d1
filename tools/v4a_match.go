package tools

import (
	"fmt"
	"strings"
)

// Locating the hunks of a V4A patch in a file.

// v4aNorms are the line comparisons tried in order: exact, ignoring
// trailing whitespace, ignoring all whitespace, and last with Unicode
// punctuation folded to ASCII (models write "-" and '"' for the dashes,
// non-breaking spaces and curly quotes files hold).
var v4aNorms = [...]func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\r\f\v") },
	func(s string) string { return strings.Join(strings.Fields(s), "") },
	func(s string) string { return strings.Join(strings.Fields(foldPunct(s)), "") },
}

// punctFolder maps Unicode punctuation to the ASCII models type for it.
var punctFolder = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-", "\u00ad", "",
	"\u00a0", " ", "\u2007", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u3000", " ", "\u200b", "", "\ufeff", "",
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'", "\u00b4", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u2033", `"`, "\u00ab", `"`, "\u00bb", `"`,
	"\u2026", "...",
)

// foldPunct folds Unicode dashes, spaces, quotes and the ellipsis to ASCII.
func foldPunct(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return punctFolder.Replace(s)
		}
	}
	return s
}

// locateHunk finds where the old lines of hunk h (context and '-' lines)
// start: at or after from (its anchor), else at or after cursor (the anchor
// may be wrong while the lines are right), else anywhere above when they
// match once there without overlapping an earlier hunk. The errors say
// which of these failed.
func locateHunk(lines, old []string, h v4aHunk, from, cursor int, anchored bool, edits []v4aEdit, where string) (int, error) {
	at := findLines(lines, old, from, h.eof)
	if len(at) == 0 && anchored {
		at = findLines(lines, old, cursor, h.eof)
		anchored = false
	}
	if len(at) > 1 && !anchored && !h.eof {
		return 0, fmt.Errorf("%s: its lines match at %d places (lines %s); add more context lines or an \"@@ line above the change\" anchor so that it matches once", where, len(at), joinInts(plusOne(at, 5)))
	}
	if len(at) > 0 {
		return at[0], nil
	}
	above := findLines(lines[:min(cursor+len(old)-1, len(lines))], old, 0, false)
	if h.eof {
		above = nil
	}
	switch {
	case len(above) == 1:
		for _, e := range edits {
			if above[0] < e.start+e.n && e.start < above[0]+len(old) {
				return 0, fmt.Errorf("%s: its lines match at line %d, which hunk %d already changes; merge the two hunks into one", where, above[0]+1, e.hunk+1)
			}
		}
		return above[0], nil
	case len(above) > 1:
		return 0, fmt.Errorf("%s: its lines were not found below the previous hunk (line %d), and above it they match at %d places (lines %s); put the hunks in file order or add context lines", where, cursor+1, len(above), joinInts(plusOne(above, 5)))
	}
	return 0, fmt.Errorf("%s: its context and '-' lines were not found in the file.%s Re-read the file and copy the lines exactly.", where, notFoundHint(strings.Join(lines, "\n"), strings.Join(old, "\n")))
}

// findLines returns the indexes at or after from where want matches lines,
// using the first comparison of v4aNorms that finds any match. With atEOF
// only a match ending at the last line counts.
func findLines(lines, want []string, from int, atEOF bool) []int {
	for _, norm := range v4aNorms {
		w := make([]string, len(want))
		for i, s := range want {
			w[i] = norm(s)
		}
		var at []int
		for s := max(from, 0); s+len(w) <= len(lines); s++ {
			if atEOF && s+len(w) != len(lines) {
				continue
			}
			ok := true
			for j := range w {
				if norm(lines[s+j]) != w[j] {
					ok = false
					break
				}
			}
			if ok {
				at = append(at, s)
			}
		}
		if len(at) > 0 {
			return at
		}
	}
	return nil
}

// findSubstring returns the first index at or after from of a line that
// contains hint, ignoring surrounding whitespace.
func findSubstring(lines []string, hint string, from int) []int {
	hint = strings.TrimSpace(hint)
	for i := max(from, 0); i < len(lines); i++ {
		if strings.Contains(lines[i], hint) {
			return []int{i}
		}
	}
	folded := foldPunct(hint)
	for i := max(from, 0); i < len(lines); i++ {
		if strings.Contains(foldPunct(lines[i]), folded) {
			return []int{i}
		}
	}
	return nil
}

// plusOne converts up to n 0-based indexes to 1-based line numbers.
func plusOne(xs []int, n int) []int {
	out := make([]int, 0, n)
	for _, x := range xs[:min(n, len(xs))] {
		out = append(out, x+1)
	}
	return out
}
