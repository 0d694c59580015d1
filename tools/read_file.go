package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Limits of read_file.
const (
	readDefaultLimit = 500
	readMaxLimit     = 2000
	readMaxChars     = 100_000
)

// ReadFileTool is the read_file tool: it returns a window of a text file
// with line numbers.
type ReadFileTool struct{}

// Name implements Tool.
func (ReadFileTool) Name() string { return "read_file" }

// Description implements Tool.
func (ReadFileTool) Description() string {
	return "Read a text file. Each output line is LINE_NUMBER|CONTENT (the number and the '|' are not part of the file). " +
		"Reads up to `limit` lines (default 500, max 2000) starting at line `offset` (1-based, default 1); " +
		"when more remains, a footer gives the offset to continue from. Output is capped at 100,000 characters. " +
		"Use search_files to locate code first and read only the part you need. " +
		"Binary files and directories are refused (list a directory with search_files target=files). " +
		"Paths are relative to the working directory; ~ is expanded."
}

// Schema implements Tool.
func (ReadFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the file to read (relative to the working directory, absolute, or starting with ~)."},
    "offset": {"type": "integer", "minimum": 1, "default": 1, "description": "1-based line number to start reading from."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "default": 500, "description": "Maximum number of lines to return."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
}

type readFileArgs struct {
	Path   string   `json:"path"`
	Offset *flexInt `json:"offset"`
	Limit  *flexInt `json:"limit"`
}

// Run implements Tool.
func (ReadFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a readFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("read_file: %v", err)
	}
	if strings.TrimSpace(a.Path) == "" {
		return Errorf("read_file: argument \"path\" is required")
	}
	offset, limit := 1, readDefaultLimit
	if a.Offset != nil {
		offset = int(*a.Offset)
	}
	if a.Limit != nil {
		limit = int(*a.Limit)
	}
	if offset < 1 {
		return Errorf("read_file: offset must be >= 1 (line numbers start at 1), got %d", offset)
	}
	if limit < 1 {
		return Errorf("read_file: limit must be >= 1, got %d", limit)
	}
	limit = min(limit, readMaxLimit)
	p, err := resolveArgPath(env, a.Path)
	if err != nil {
		return Errorf("read_file: %v", err)
	}
	if err := ctx.Err(); err != nil {
		return Errorf("read_file: cancelled")
	}
	info, err := os.Stat(p)
	if err != nil {
		return statError("read_file", a.Path, p, err)
	}
	if info.IsDir() {
		return Errorf("read_file: %s is a directory, not a file. List it with search_files (target=\"files\", path=%q).", a.Path, a.Path)
	}
	if !info.Mode().IsRegular() {
		return Errorf("read_file: %s is not a regular file (it is a %s); only regular text files can be read", a.Path, fileKind(info.Mode()))
	}
	res := readWindow(ctx, env, a.Path, p, offset, limit)
	if !res.IsError && env != nil && env.Edits != nil {
		env.Edits.Warm(p)
	}
	return res
}

// readWindow reads lines [offset, offset+limit) of the file at p, stopping
// early at readMaxChars of output.
func readWindow(ctx context.Context, env *Env, shown, p string, offset, limit int) Result {
	f, closeFile, err := openForRead(ctx, env, p)
	if err != nil {
		return statError("read_file", shown, p, err)
	}
	defer closeFile()
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Errorf("read_file: cannot read %s: %v", shown, err)
	}
	if looksBinary(head[:n], n < sniffLen) {
		return Errorf("read_file: %s looks like a binary file (NUL bytes or invalid UTF-8); it cannot be shown as text. Inspect it with terminal (e.g. `file`, `xxd | head`) if you must.", shown)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Errorf("read_file: cannot read %s: %v", shown, err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var out strings.Builder
	var buf []byte
	line, shownLines, lastShown := 0, 0, 0
	truncatedAtChars, lineCut := false, false
	for shownLines < limit && !truncatedAtChars {
		if line%4096 == 0 && ctx.Err() != nil {
			return Errorf("read_file: cancelled")
		}
		keep := readMaxChars + 1
		if line+1 < offset {
			keep = 0 // a skipped line is only counted
		}
		text, full, ok, err := readLine(r, keep, buf[:0])
		buf = text
		if err != nil && !errors.Is(err, io.EOF) {
			return Errorf("read_file: cannot read %s: %v", shown, err)
		}
		if !ok {
			break
		}
		line++
		if line < offset {
			continue
		}
		if full == len(text) && bytes.HasSuffix(text, []byte{'\r'}) {
			text, full = text[:len(text)-1], full-1
		}
		prefix := fmt.Sprintf("%d|", line)
		if out.Len()+len(prefix)+full+1 > readMaxChars {
			if shownLines > 0 {
				truncatedAtChars = true
				break
			}
			// A single line too long to show whole: cut it.
			room := min(max(readMaxChars-len(prefix)-200, 0), len(text))
			fmt.Fprintf(&out, "%s%s … [line truncated: %d more characters]\n", prefix, strings.ToValidUTF8(string(text[:room]), ""), full-room)
			lineCut = true
		} else {
			out.WriteString(prefix)
			out.Write(text)
			out.WriteByte('\n')
		}
		shownLines++
		lastShown = line
	}
	rest, err := countRemainingLines(ctx, r)
	if err != nil {
		return Errorf("read_file: cannot read %s: %v", shown, err)
	}
	line += rest
	total := line
	if total == 0 {
		return Result{Output: fmt.Sprintf("%s is empty (0 lines).", shown)}
	}
	if offset > total {
		return Errorf("read_file: offset %d is past the end of %s, which has %s. Use an offset between 1 and %d.", offset, shown, plural(total, "line"), total)
	}
	if lastShown < total {
		reason := ""
		if truncatedAtChars {
			reason = " (output capped at 100,000 characters)"
		}
		fmt.Fprintf(&out, "\n[Showing lines %d-%d of %d%s. Use offset=%d to read more.]", offset, lastShown, total, reason, lastShown+1)
	} else if offset > 1 || lineCut {
		fmt.Fprintf(&out, "\n[Showing lines %d-%d of %d (end of file).]", offset, lastShown, total)
	}
	return Result{Output: strings.TrimSuffix(out.String(), "\n")}
}

// readLine reads one line of r and keeps at most keep bytes of it, in buf,
// without the newline; full is the line's length without the newline. A
// line of any length costs no more memory than keep bytes and r's buffer.
// ok is false at the end of the input (err then says why).
func readLine(r *bufio.Reader, keep int, buf []byte) (text []byte, full int, ok bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		ok = ok || len(frag) > 0
		if n := len(frag); n > 0 && frag[n-1] == '\n' {
			frag = frag[:n-1]
		}
		full += len(frag)
		if room := keep - len(buf); room > 0 {
			buf = append(buf, frag[:min(room, len(frag))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if ok && errors.Is(err, io.EOF) {
			err = nil
		}
		return buf, full, ok, err
	}
}

// countRemainingLines counts the lines left in r, which sits at the start
// of a line.
func countRemainingLines(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// fileKind names the type of a non-regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// statError turns a failed stat or open of p into an error Result; a
// missing file gets suggestions of similar names from its directory.
func statError(tool, shown, p string, err error) Result {
	if !errors.Is(err, fs.ErrNotExist) {
		if errors.Is(err, fs.ErrPermission) {
			return Errorf("%s: permission denied reading %s", tool, shown)
		}
		return Errorf("%s: cannot access %s: %v", tool, shown, err)
	}
	dir := filepath.Dir(p)
	if _, derr := os.Stat(dir); derr != nil {
		return Errorf("%s: %s does not exist (its directory %s does not exist either). Check the path with search_files target=\"files\".", tool, shown, dir)
	}
	msg := fmt.Sprintf("%s: file not found: %s", tool, shown)
	if s := similarNames(dir, filepath.Base(p), 3); len(s) > 0 {
		for i := range s {
			s[i] = filepath.Join(filepath.Dir(shown), s[i])
		}
		msg += ". Did you mean: " + strings.Join(s, ", ") + "?"
	} else {
		msg += ". Use search_files with target=\"files\" to find it."
	}
	return Errorf("%s", msg)
}

// similarNames returns up to n entry names of dir that resemble name: same
// name in another case, same stem, a small edit distance, or containment.
// Large directories are not scanned.
func similarNames(dir, name string, n int) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(5000)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	type cand struct {
		name  string
		score int
	}
	lname := strings.ToLower(name)
	stem := strings.TrimSuffix(lname, filepath.Ext(lname))
	var cands []cand
	for _, e := range names {
		if strings.HasPrefix(e, ".") && !strings.HasPrefix(name, ".") {
			continue // .git, .env: never what a plain name meant
		}
		le := strings.ToLower(e)
		score := -1
		switch {
		case le == lname:
			score = 0
		case stem != "" && strings.TrimSuffix(le, filepath.Ext(le)) == stem:
			score = 1
		default:
			if d := EditDistance(lname, le, 3); d <= 2 || (d <= 3 && len(lname) > 8) {
				score = 1 + d
			} else if len(lname) >= 3 && (strings.Contains(le, stem) || strings.Contains(lname, strings.TrimSuffix(le, filepath.Ext(le)))) && len(le) >= 3 {
				score = 5
			}
		}
		if score >= 0 {
			cands = append(cands, cand{e, score})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}
