package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Limits of search_files.
const (
	searchDefaultLimit = 50
	searchMaxLimit     = 1000
	searchMaxContext   = 20
	searchMaxFileSize  = 20 << 20
	searchMaxLineChars = 500
)

// SearchFilesTool is the search_files tool: a regular-expression search of
// file contents (target "content") or a glob search of file names (target
// "files") that respects .gitignore.
type SearchFilesTool struct{}

// Name implements Tool.
func (SearchFilesTool) Name() string { return "search_files" }

// Description implements Tool.
func (SearchFilesTool) Description() string {
	return "Search the working tree. target=\"content\" (default; alias \"grep\"): `pattern` is a regular expression (Go RE2 syntax: no lookaround or backreferences; prefix (?i) for case-insensitive) matched against each line of text files; " +
		"results are `path:line:text` ordered by path, with `context` lines around each match shown as `path-line-text`. " +
		"output_mode \"files_only\" lists matching files, \"count\" gives matching-line counts per file. " +
		"target=\"files\" (alias \"find\"): `pattern` is a glob on file names (e.g. \"*.go\", \"*.{ts,tsx}\"; a glob with / matches the path, \"**\" spans directories), results newest-modified first. " +
		"`path` (default \".\") is the directory or file to search; `file_glob` restricts which files are searched (e.g. \"*_test.go\"). " +
		".gitignore rules are honoured; .git and hidden files/directories are skipped (a pattern or file_glob starting with \".\" includes hidden files); binary files are skipped. " +
		"Results are paginated by `limit` (default 50) and `offset`; a footer gives the next offset when more remain."
}

// Schema implements Tool.
func (SearchFilesTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression for target=content, or a file-name glob for target=files."},
    "target": {"type": "string", "enum": ["content", "files", "grep", "find"], "default": "content", "description": "\"content\" searches inside files, \"files\" searches file names (\"grep\" and \"find\" are aliases)."},
    "path": {"type": "string", "default": ".", "description": "Directory (or single file) to search, relative to the working directory."},
    "file_glob": {"type": "string", "description": "Only search files whose name matches this glob, e.g. \"*.py\" or \"src/**/*.ts\"."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50, "description": "Maximum number of results to return."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Number of results to skip, for paging."},
    "output_mode": {"type": "string", "enum": ["content", "files_only", "count"], "default": "content", "description": "For target=content: matching lines, matching file paths, or per-file match counts."},
    "context": {"type": "integer", "minimum": 0, "maximum": 20, "default": 0, "description": "Lines of context to show before and after each match (target=content, output_mode=content)."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)
}

type searchArgs struct {
	Pattern    *string  `json:"pattern"`
	Target     string   `json:"target"`
	Path       string   `json:"path"`
	FileGlob   string   `json:"file_glob"`
	Limit      *flexInt `json:"limit"`
	Offset     *flexInt `json:"offset"`
	OutputMode string   `json:"output_mode"`
	Context    *flexInt `json:"context"`
}

// searchQuery is a validated search_files call.
type searchQuery struct {
	pattern       string
	root          string // absolute
	shownRoot     string // as the model gave it
	cwd           string
	fileGlob      *fileGlob
	allowHidden   bool
	limit, offset int
	mode          string // content | files_only | count
	context       int
}

// Run implements Tool.
func (SearchFilesTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a searchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("search_files: %v", err)
	}
	q := searchQuery{limit: searchDefaultLimit, cwd: envCwd(env)}
	if a.Pattern != nil {
		q.pattern = *a.Pattern
	}
	var target string
	switch strings.ToLower(strings.TrimSpace(a.Target)) {
	case "", "content", "grep":
		target = "content"
	case "files", "find":
		target = "files"
	default:
		return Errorf("search_files: unknown target %q; use \"content\" (search inside files) or \"files\" (search file names)", a.Target)
	}
	switch strings.ToLower(strings.TrimSpace(a.OutputMode)) {
	case "", "content":
		q.mode = "content"
	case "files_only", "files", "files_with_matches":
		q.mode = "files_only"
	case "count":
		q.mode = "count"
	default:
		return Errorf("search_files: unknown output_mode %q; use \"content\", \"files_only\" or \"count\"", a.OutputMode)
	}
	if a.Limit != nil && *a.Limit != 0 {
		q.limit = int(*a.Limit)
	}
	if q.limit < 1 {
		return Errorf("search_files: limit must be >= 1, got %d", q.limit)
	}
	q.limit = min(q.limit, searchMaxLimit)
	if a.Offset != nil {
		q.offset = int(*a.Offset)
	}
	if q.offset < 0 {
		return Errorf("search_files: offset must be >= 0, got %d", q.offset)
	}
	if a.Context != nil {
		q.context = int(*a.Context)
	}
	if q.context < 0 {
		return Errorf("search_files: context must be >= 0, got %d", q.context)
	}
	q.context = min(q.context, searchMaxContext)
	fg, err := compileFileGlob(a.FileGlob)
	if err != nil {
		return Errorf("search_files: file_glob: %v", err)
	}
	q.fileGlob = fg
	q.allowHidden = startsHidden(a.FileGlob)
	q.shownRoot = strings.TrimSpace(a.Path)
	if q.shownRoot == "" {
		q.shownRoot = "."
	}
	if q.root, err = ResolvePath(q.cwd, q.shownRoot); err != nil {
		return Errorf("search_files: %v", err)
	}
	if _, err := os.Stat(q.root); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Errorf("search_files: path %s does not exist. Use path \".\" to search the working directory.", q.shownRoot)
		}
		return Errorf("search_files: cannot access %s: %v", q.shownRoot, err)
	}
	if target == "files" {
		return searchNames(ctx, q)
	}
	if q.pattern == "" {
		return Errorf("search_files: argument \"pattern\" is required: a regular expression to look for (use target=\"files\" to list files)")
	}
	return searchContent(ctx, q)
}

// startsHidden reports whether a glob explicitly names hidden files.
func startsHidden(g string) bool {
	g = strings.TrimPrefix(strings.TrimSpace(g), "./")
	return strings.HasPrefix(g, ".") || strings.Contains(g, "/.") || strings.Contains(g, "{.") || strings.Contains(g, ",.")
}

// relSlash returns p relative to root, slash-separated; for p == root (a
// file searched directly) it returns the base name.
func relSlash(root, p string) string {
	if p == root {
		return filepath.Base(p)
	}
	return filepath.ToSlash(strings.TrimPrefix(p[len(root):], string(filepath.Separator)))
}

// searchNames implements target=files.
func searchNames(ctx context.Context, q searchQuery) Result {
	pattern := strings.TrimSpace(q.pattern)
	if pattern == "" {
		pattern = "*"
	}
	glob, err := compileFileGlob(pattern)
	if err != nil {
		return Errorf("search_files: pattern: %v", err)
	}
	type hit struct {
		path  string
		mtime time.Time
	}
	var hits []hit
	err = walkFiles(ctx, q.root, q.allowHidden || startsHidden(pattern), func(p string, d fs.DirEntry) error {
		rel := relSlash(q.root, p)
		if !glob.match(rel) || !q.fileGlob.match(rel) {
			return nil
		}
		h := hit{path: p}
		if info, err := d.Info(); err == nil {
			h.mtime = info.ModTime()
		}
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return walkError(ctx, q, err)
	}
	if len(hits) == 0 {
		hint := ""
		if !strings.ContainsAny(pattern, "*?[{") {
			hint = fmt.Sprintf(" The pattern matches whole file names; try \"*%s*\" for a partial name.", pattern)
		}
		return Result{Output: fmt.Sprintf("No files matching %q under %s (ignored and hidden files are skipped).%s", pattern, q.shownRoot, hint)}
	}
	if q.mode == "count" {
		return Result{Output: fmt.Sprintf("%s matching %q under %s.", plural(len(hits), "file"), pattern, q.shownRoot)}
	}
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].path < hits[j].path
	})
	lines := make([]string, len(hits))
	for i, h := range hits {
		lines[i] = displayPath(q.cwd, h.path)
	}
	return Result{Output: paginate(lines, q.offset, q.limit, "files")}
}

// paginate renders items[offset:offset+limit] one per line, with a footer
// when more remain or the page does not start at the beginning.
func paginate(items []string, offset, limit int, what string) string {
	total := len(items)
	if offset >= total {
		return fmt.Sprintf("offset %d is past the end: there are only %d %s. Use an offset below %d.", offset, total, what, total)
	}
	end := min(offset+limit, total)
	var b strings.Builder
	for _, it := range items[offset:end] {
		b.WriteString(it)
		b.WriteByte('\n')
	}
	b.WriteString(pageFooter(offset, end, total, what))
	return strings.TrimSuffix(b.String(), "\n")
}

// pageFooter describes the page [offset, end) of total results.
func pageFooter(offset, end, total int, what string) string {
	if end < total {
		return fmt.Sprintf("\n[Showing %s %d-%d of %d. %d more: use offset=%d to see the next page.]", what, offset+1, end, total, total-end, end)
	}
	if offset > 0 {
		return fmt.Sprintf("\n[Showing %s %d-%d of %d.]", what, offset+1, end, total)
	}
	return ""
}

// walkError turns a walk failure into an error Result.
func walkError(ctx context.Context, q searchQuery, err error) Result {
	if ctx.Err() != nil {
		return Errorf("search_files: cancelled")
	}
	return Errorf("search_files: cannot search %s: %v", q.shownRoot, err)
}

// compileSearchRegexp compiles the content pattern, with a hint on failure.
func compileSearchRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v. Patterns use Go RE2 syntax (no lookahead/lookbehind or backreferences); escape literal characters such as ( [ { . * + ? | with a backslash", pattern, err)
	}
	return re, nil
}
