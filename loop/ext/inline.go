package ext

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Bounds of @path inlining.
const (
	// MaxInlineBytes is how much of one @path file is inlined.
	MaxInlineBytes = 256 << 10
	// MaxInlineTotal is how much all of a prompt's @path files may add.
	MaxInlineTotal = 1 << 20
	// MaxInlineFiles is how many @path files one prompt inlines.
	MaxInlineFiles = 20
)

// atPath finds "@path" at the start or after whitespace.
var atPath = regexp.MustCompile(`(^|\s)@([^\s@]+)`)

// inlineFiles appends the content of each @path that names a file inside
// o.Root, after the text, each in a <file path="..."> block; the @path
// stays where it was written. A relative path is tried from Cwd, then
// from Root. An @path outside the project is refused
// with a note in place; one that names nothing stays as written (it may be
// a decorator or a handle, not a path).
func inlineFiles(text string, o ExpandOptions) string {
	if o.Root == "" || !strings.Contains(text, "@") {
		return text
	}
	root := realPath(o.Root)
	cwd := o.Cwd
	if cwd == "" {
		cwd = o.Root
	}
	var blocks []string
	seen := map[string]bool{}
	total, files := 0, 0
	out := atPath.ReplaceAllStringFunc(text, func(m string) string {
		lead, ref := splitLead(m)
		ref = strings.TrimRight(ref, ".,;:!?)]}'\"")
		trail := m[len(lead)+1+len(ref):]
		p := ref
		if strings.HasPrefix(p, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(h, p[2:])
			}
		}
		if !filepath.IsAbs(p) {
			rel := p
			p = filepath.Join(cwd, rel)
			if _, err := os.Stat(p); err != nil {
				p = filepath.Join(o.Root, rel) // a path from the project root
			}
		}
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			return m
		}
		real := realPath(p)
		if !within(root, real) {
			return lead + "@" + ref + " [not inlined: outside the project]" + trail
		}
		if seen[real] {
			return m
		}
		seen[real] = true
		if files >= MaxInlineFiles || total >= MaxInlineTotal {
			return lead + "@" + ref + " [not inlined: too many files for one prompt]" + trail
		}
		content, note := readInline(real, min(MaxInlineBytes, MaxInlineTotal-total))
		if note != "" && content == "" {
			return lead + "@" + ref + " [not inlined: " + note + "]" + trail
		}
		files++
		total += len(content)
		rel, err := filepath.Rel(root, real)
		if err != nil {
			rel = real
		}
		block := fmt.Sprintf("<file path=%q>\n%s", filepath.ToSlash(rel), content)
		if !strings.HasSuffix(content, "\n") {
			block += "\n"
		}
		if note != "" {
			block += "[" + note + "]\n"
		}
		blocks = append(blocks, block+"</file>")
		return m
	})
	if len(blocks) == 0 {
		return out
	}
	return strings.TrimRight(out, "\n") + "\n\n" + strings.Join(blocks, "\n\n")
}

func splitLead(m string) (string, string) {
	i := strings.IndexByte(m, '@')
	return m[:i], m[i+1:]
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readInline reads at most limit bytes of a text file; note says why it is
// cut or refused.
func readInline(path string, limit int) (string, string) {
	f, err := os.Open(path)
	if err != nil {
		return "", "cannot read it"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", "not a regular file"
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", "cannot read it"
	}
	cut := len(data) > limit
	if cut {
		data = data[:limit]
		for i := 0; i < utf8.UTFMax && len(data) > 0; i++ {
			if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size > 1 {
				break
			}
			data = data[:len(data)-1] // a rune cut in half
		}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", "a binary file"
	}
	if cut {
		return string(data), fmt.Sprintf("truncated at %d KiB of %d KiB", limit>>10, fi.Size()>>10)
	}
	return string(data), ""
}
