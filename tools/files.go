package tools

import (
	"context"
	"io"
	"os"
	"strings"
	"time"
)

// FileIO reads and writes text files somewhere else than the disk: an
// editor's buffers when talaria runs under one (ACP's fs/read_text_file
// and fs/write_text_file), so the model sees unsaved changes and its
// edits land where the user is looking. Paths are absolute. The tools
// still decide on the disk first: resolution, protected paths, the
// working directory's bounds and checkpoints are unchanged; only the
// bytes come from and go to FileIO.
type FileIO interface {
	// ReadTextFile returns the file's current text.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces the file's text.
	WriteTextFile(ctx context.Context, path, content string) error
}

// fileIOTimeout bounds one FileIO call made where the tool has no
// context at hand (the write guard's reads and writes).
const fileIOTimeout = 30 * time.Second

// readThrough reads path from files, bounded by fileIOTimeout.
func readThrough(files FileIO, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fileIOTimeout)
	defer cancel()
	text, err := files.ReadTextFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return []byte(text), nil
}

// writeThrough writes data to path through files, bounded.
func writeThrough(files FileIO, path string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), fileIOTimeout)
	defer cancel()
	return files.WriteTextFile(ctx, path, string(data))
}

// openForRead opens p for read_file: from env.Files when set, else the
// disk.
func openForRead(ctx context.Context, env *Env, p string) (io.ReadSeeker, func() error, error) {
	if env != nil && env.Files != nil {
		text, err := env.Files.ReadTextFile(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return strings.NewReader(text), func() error { return nil }, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}
