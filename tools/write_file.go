package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// WriteFileTool is the write_file tool: it creates or overwrites a whole
// file.
type WriteFileTool struct{}

// Name implements Tool.
func (WriteFileTool) Name() string { return "write_file" }

// Description implements Tool.
func (WriteFileTool) Description() string {
	return "Write a whole file: creates it (and any missing parent directories) or replaces its entire content. " +
		"`content` is the complete new file text, written exactly as given (no line numbers). " +
		"To change part of an existing file prefer patch, which cannot lose the rest of the file. " +
		"The write is atomic and an existing file keeps its permissions. Paths are relative to the working directory; ~ is expanded. " +
		"A path whose symlinks lead into a .git directory or out of the working directory, where the path itself does not, is refused: use the real path."
}

// Schema implements Tool.
func (WriteFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the file to write (relative to the working directory, absolute, or starting with ~)."},
    "content": {"type": "string", "description": "The complete content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)
}

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// Run implements Tool.
func (WriteFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a writeFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("write_file: %v", err)
	}
	if strings.TrimSpace(a.Path) == "" {
		return Errorf("write_file: argument \"path\" is required")
	}
	if a.Content == nil {
		return Errorf("write_file: argument \"content\" is required (use \"\" for an empty file)")
	}
	p, err := resolveArgPath(env, a.Path)
	if err != nil {
		return Errorf("write_file: %v", err)
	}
	if err := ctx.Err(); err != nil {
		return Errorf("write_file: cancelled before writing %s", a.Path)
	}
	// Decide and write on one directory handle (see writeGuard).
	t, err := newWriteGuard(env).open(p, true)
	if err != nil {
		return Errorf("write_file: %v", err)
	}
	defer t.close()
	mode, existed, err := t.mode()
	switch {
	case err != nil:
		return Errorf("write_file: cannot access %s: %v", a.Path, err)
	case mode.IsDir():
		return Errorf("write_file: %s is a directory; give the path of a file inside it", a.Path)
	case existed && !mode.IsRegular() && mode&fs.ModeSymlink == 0:
		return Errorf("write_file: %s is not a regular file (it is a %s); refusing to replace it", a.Path, fileKind(mode))
	}
	// The diff is of the file the write replaces, read through the same
	// handle; a file that cannot be read is still replaced, without one.
	if old, _, _, err := t.read(); err == nil {
		ReportDiff(ctx, writeChange(envCwd(env), p, string(old), existed, *a.Content).Diff())
	}
	if err := t.write([]byte(*a.Content), 0o644); err != nil {
		return Errorf("write_file: %v", err)
	}
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	res := Result{Output: fmt.Sprintf("%s %s: wrote %s (%s).", verb, a.Path, plural(len(*a.Content), "byte"), plural(countLines(*a.Content), "line"))}
	return checkEdits(ctx, env, res, p)
}
