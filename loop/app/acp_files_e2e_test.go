package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
)

// bufferClient is an editor with unsaved buffers: it answers
// fs/read_text_file from a buffer when it has one (else the disk) and
// keeps fs/write_text_file in its buffers.
type bufferClient struct {
	*acpClient
	mu     sync.Mutex
	bufs   map[string]string
	reads  []string
	writes []string
}

func (b *bufferClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads = append(b.reads, p.Path)
	if s, ok := b.bufs[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: s}, nil
	}
	data, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (b *bufferClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, p.Path)
	b.bufs[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

// TestACPFileToolsUseTheEditorsBuffers: a client offering fs read and
// write gets read_file, patch and write_file through them: the model
// reads the unsaved buffer, the patch lands in the buffer (the disk is
// untouched) and the tool call's diff content is against the buffer.
func TestACPFileToolsUseTheEditorsBuffers(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	real, _ := filepath.EvalSymlinks(cwd)
	main := filepath.Join(real, "main.go")
	writeFile(t, cwd, "main.go", "package main // on disk\n", 0o644)
	bc := &bufferClient{acpClient: newACPClient(), bufs: map[string]string{main: "package main // unsaved\n"}}
	srv := pt.New(t)
	a := startACPClient(t, home, cwd, srv, bc.acpClient, bc,
		sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}, "--yolo")
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, a.stderr)
	}
	srv.Push(pt.ToolCalls(pt.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`}),
		pt.ToolCalls(pt.Call{ID: "p", Name: "patch", Args: `{"path":"main.go","old_string":"unsaved","new_string":"patched"}`}),
		pt.Text("done"))
	resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("edit main.go")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr: %s", resp, err, a.stderr)
	}
	reqs := srv.RawRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[1], "package main // unsaved") {
		t.Fatalf("the model did not read the buffer:\n%s", reqs[len(reqs)-1])
	}
	bc.mu.Lock()
	buf, writes := bc.bufs[main], append([]string(nil), bc.writes...)
	bc.mu.Unlock()
	if buf != "package main // patched\n" || len(writes) != 1 || writes[0] != main {
		t.Fatalf("buffer %q after writes %v", buf, writes)
	}
	if data, _ := os.ReadFile(filepath.Join(cwd, "main.go")); string(data) != "package main // on disk\n" {
		t.Fatalf("the disk changed: %q", data)
	}
	_, updates := toolUpdates(a.client.take(), "p")
	found := false
	for _, u := range updates {
		for _, c := range u.Content {
			if d := c.Diff; d != nil && d.OldText != nil && strings.Contains(*d.OldText, "unsaved") && strings.Contains(d.NewText, "patched") {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no diff content against the buffer in %+v", updates)
	}
}

// TestACPWithoutFileCapabilitiesUsesTheDisk: a client that does not
// offer the fs methods is never asked; the disk is read and written.
func TestACPWithoutFileCapabilitiesUsesTheDisk(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, "a.txt", "disk\n", 0o644)
	bc := &bufferClient{acpClient: newACPClient(), bufs: map[string]string{}}
	srv := pt.New(t)
	a := startACPClient(t, home, cwd, srv, bc.acpClient, bc, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}}, "--yolo")
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"new\n"}`}), pt.Text("ok"))
	if _, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("write")}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(data) != "new\n" {
		t.Fatalf("a.txt on disk: %q", data)
	}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if len(bc.reads)+len(bc.writes) != 0 {
		t.Fatalf("the client was asked: reads %v writes %v", bc.reads, bc.writes)
	}
}
