package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/tools"
)

// clientFiles reads and writes files through the client (fs/read_text_file,
// fs/write_text_file), so that read_file sees the editor's unsaved buffers
// and edits land in them. It is offered only when the client said it can
// do both; otherwise the tools use the disk.
type clientFiles struct{ s *session }

// clientFiles returns the session's FileIO, or nil when the client does
// not offer both file methods.
func (s *session) clientFiles() tools.FileIO {
	s.srv.mu.Lock()
	fs := s.srv.client.Fs
	s.srv.mu.Unlock()
	if !fs.ReadTextFile || !fs.WriteTextFile {
		return nil
	}
	return clientFiles{s}
}

// sessionID is the id the client knows the session by.
func (s *session) sessionID() sdk.SessionId {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sdk.SessionId(s.id)
}

// ReadTextFile implements tools.FileIO.
func (f clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	resp, err := f.s.srv.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.s.sessionID(), Path: path})
	if err != nil {
		return "", fmt.Errorf("the editor could not read %s: %w", path, err)
	}
	return resp.Content, nil
}

// WriteTextFile implements tools.FileIO.
func (f clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	if _, err := f.s.srv.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.s.sessionID(), Path: path, Content: content}); err != nil {
		return fmt.Errorf("the editor could not write %s: %w", path, err)
	}
	return nil
}
