package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// File counts of one content search that were not searched.
const (
	skipBinary = -1
	skipLarge  = -2
	skipError  = -3
)

// lineMatcher matches single lines, with an optional whole-file prefilter
// that rules out files without any match in one pass.
type lineMatcher struct {
	re  *regexp.Regexp
	pre *regexp.Regexp // multi-line form of re, or nil
}

func newLineMatcher(pattern string) (*lineMatcher, error) {
	re, err := compileSearchRegexp(pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re}
	// With (?m), ^ and $ hold at line boundaries, so a match on a line is
	// a match in the whole file. \A, \z and a disabled m flag break that.
	if !strings.Contains(pattern, `\A`) && !strings.Contains(pattern, `\z`) && !strings.Contains(pattern, "(?-") {
		m.pre, _ = regexp.Compile("(?m)" + pattern)
	}
	return m, nil
}

// maybe reports whether data can hold a matching line.
func (m *lineMatcher) maybe(data []byte) bool {
	if m.pre == nil || bytes.IndexByte(data, '\r') >= 0 {
		return true
	}
	return m.pre.Match(data)
}

// eachLine calls fn with the 1-based number and text (without line ending)
// of every line of data until fn returns false.
func eachLine(data []byte, fn func(no int, line []byte) bool) {
	for no := 1; len(data) > 0; no++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if !fn(no, bytes.TrimSuffix(line, []byte{'\r'})) {
			return
		}
	}
}

// countLinesMatching counts the lines of data that match.
func (m *lineMatcher) countLinesMatching(data []byte) int {
	if !m.maybe(data) {
		return 0
	}
	n := 0
	eachLine(data, func(_ int, line []byte) bool {
		if m.re.Match(line) {
			n++
		}
		return true
	})
	return n
}

// readSearchable reads the file at p into buf (grown as needed) and says
// whether it can be searched, or why not (a skip code).
func readSearchable(p string, buf []byte) ([]byte, int) {
	f, err := os.Open(p)
	if err != nil {
		return buf, skipError
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return buf, skipError
	}
	if info.Size() > searchMaxFileSize {
		return buf, skipLarge
	}
	size := int(info.Size()) + 1
	if cap(buf) < size {
		buf = make([]byte, 0, size+size/4)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, skipError
		}
	}
	if hasNUL(buf) {
		return buf, skipBinary
	}
	return buf, 0
}

// searchContent implements target=content: phase one counts matching lines
// per file on a pool of runtime.NumCPU() workers; phase two re-reads only
// the files holding the requested page to render its lines.
func searchContent(ctx context.Context, q searchQuery) Result {
	m, err := newLineMatcher(q.pattern)
	if err != nil {
		return Errorf("search_files: %v", err)
	}
	var files []string
	err = walkFiles(ctx, q.root, q.allowHidden, func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !q.fileGlob.match(relSlash(q.root, p)) {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return walkError(ctx, q, err)
	}
	counts := make([]int, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				var data []byte
				var skip int
				data, skip = readSearchable(files[i], buf)
				buf = data
				if skip != 0 {
					counts[i] = skip
					continue
				}
				counts[i] = m.countLinesMatching(data)
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return Errorf("search_files: cancelled")
	}
	total, matchedFiles, binary, large := 0, 0, 0, 0
	for _, c := range counts {
		switch {
		case c > 0:
			total += c
			matchedFiles++
		case c == skipBinary:
			binary++
		case c == skipLarge:
			large++
		}
	}
	if total == 0 {
		msg := fmt.Sprintf("No matches for %q in %s (%s searched", q.pattern, q.shownRoot, plural(len(files)-binary-large, "file"))
		if binary+large > 0 {
			msg += fmt.Sprintf("; skipped %d binary and %d files over 20 MB", binary, large)
		}
		return Result{Output: msg + "; ignored and hidden files are not searched)."}
	}
	switch q.mode {
	case "files_only", "count":
		var items []string
		for i, c := range counts {
			if c <= 0 {
				continue
			}
			if q.mode == "count" {
				items = append(items, fmt.Sprintf("%s:%d", displayPath(q.cwd, files[i]), c))
			} else {
				items = append(items, displayPath(q.cwd, files[i]))
			}
		}
		out := paginate(items, q.offset, q.limit, "files")
		if q.mode == "count" {
			out += fmt.Sprintf("\n[Total: %s in %s.]", plural(total, "matching line"), plural(matchedFiles, "file"))
		}
		return Result{Output: out}
	}
	if q.offset >= total {
		return Result{Output: fmt.Sprintf("offset %d is past the end: there are only %d matches. Use an offset below %d.", q.offset, total, total)}
	}
	end := min(q.offset+q.limit, total)
	var b strings.Builder
	seen := 0
	for i, c := range counts {
		if c <= 0 {
			continue
		}
		if seen+c > q.offset && seen < end {
			skip := max(q.offset-seen, 0)
			take := min(end, seen+c) - (seen + skip)
			renderMatches(&b, q, m, files[i], skip, take)
		}
		seen += c
		if seen >= end {
			break
		}
	}
	b.WriteString(pageFooter(q.offset, end, total, "matches"))
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}
}

// renderMatches writes matches skip..skip+take-1 of the file at p as
// `path:line:text`, with q.context lines around them as `path-line-text`
// and "--" between groups of lines that are not adjacent.
func renderMatches(b *strings.Builder, q searchQuery, m *lineMatcher, p string, skip, take int) {
	data, code := readSearchable(p, nil)
	if code != 0 {
		return
	}
	var lines [][]byte
	var isMatch []bool
	eachLine(data, func(_ int, line []byte) bool {
		lines = append(lines, line)
		isMatch = append(isMatch, m.re.Match(line))
		return true
	})
	want := make([]bool, len(lines))
	k := 0
	for i, ok := range isMatch {
		if !ok {
			continue
		}
		if k >= skip && k < skip+take {
			for j := max(i-q.context, 0); j <= min(i+q.context, len(lines)-1); j++ {
				want[j] = true
			}
		}
		k++
		if k >= skip+take {
			break
		}
	}
	shown := displayPath(q.cwd, p)
	prev := -2
	for i, w := range want {
		if !w {
			continue
		}
		if q.context > 0 && b.Len() > 0 && i != prev+1 {
			b.WriteString("--\n")
		}
		sep := '-'
		if isMatch[i] {
			sep = ':'
		}
		text := clip(strings.ToValidUTF8(string(lines[i]), "\uFFFD"), searchMaxLineChars)
		fmt.Fprintf(b, "%s%c%d%c%s\n", shown, sep, i+1, sep, text)
		prev = i
	}
}
