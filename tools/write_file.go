package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		"The write is atomic and an existing file keeps its permissions. Paths are relative to the working directory; ~ is expanded."
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
	existed := true
	if info, err := os.Stat(p); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return Errorf("write_file: cannot access %s: %v", a.Path, err)
		}
		existed = false
	} else if info.IsDir() {
		return Errorf("write_file: %s is a directory; give the path of a file inside it", a.Path)
	} else if !info.Mode().IsRegular() {
		return Errorf("write_file: %s is not a regular file (it is a %s); refusing to replace it", a.Path, fileKind(info.Mode()))
	}
	if old, had, err := readCurrent(p); err == nil {
		ReportDiff(ctx, writeChange(envCwd(env), p, old, had, *a.Content).Diff())
	}
	if err := atomicWrite(p, []byte(*a.Content), 0o644); err != nil {
		return Errorf("write_file: %v", err)
	}
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	return Result{Output: fmt.Sprintf("%s %s: wrote %s (%s).", verb, a.Path, plural(len(*a.Content), "byte"), plural(countLines(*a.Content), "line"))}
}

// atomicWrite writes data to p through a temporary file in the same
// directory and a rename, so that readers never see a half-written file.
// Missing parent directories are created. An existing file keeps its mode;
// a new one gets perm. When p is a symlink, its target is written.
func atomicWrite(p string, data []byte, perm fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	mode := perm
	if info, err := os.Stat(p); err == nil {
		mode = info.Mode().Perm()
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create directory %s: %v", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".talaria-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, err)
	}
	name := tmp.Name()
	fail := func(format string, err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf(format, p, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail("cannot write %s: %v", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail("cannot set the mode of %s: %v", err)
	}
	if err := tmp.Sync(); err != nil {
		return fail("cannot write %s: %v", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("cannot write %s: %v", p, err)
	}
	if err := os.Rename(name, p); err != nil {
		os.Remove(name)
		return fmt.Errorf("cannot replace %s: %v", p, err)
	}
	return nil
}
