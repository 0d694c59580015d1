package app_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
)

// An editor's session/prompt with an image block sends the image with
// the user message (OpenAI chat: an image_url part), an image that is not
// one is a JSON-RPC error the editor can show (and the process goes on),
// and session/load replays the image as a user_message_chunk.
func TestACPPromptImage(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	a := startACP(t, home, cwd, srv)
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, a.stderr)
	}
	png := base64.StdEncoding.EncodeToString(pt.PNG)

	// A block whose bytes are no image: invalid params, nothing sent.
	_, err = a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("look"), sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("plain text")), "image/png")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), "not a PNG, JPEG, GIF or WebP image") {
		t.Fatalf("a bad image: %v", err)
	}

	srv.Push(pt.Text("One pixel."))
	resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock(png, "image/png")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr: %s", resp, err, a.stderr)
	}
	raw := srv.RawRequests()
	if len(raw) != 1 {
		t.Fatalf("%d requests", len(raw))
	}
	parts, ok := userContent(t, raw[0]).([]any)
	if !ok || len(parts) != 2 {
		t.Fatalf("user content %v", userContent(t, raw[0]))
	}
	image, _ := parts[1].(map[string]any)
	url, _ := image["image_url"].(map[string]any)
	if image["type"] != "image_url" || url["url"] != "data:image/png;base64,"+png {
		t.Fatalf("image part %v", image)
	}
	a.stop(t)

	b := startACP(t, home, cwd, srv)
	if _, err := b.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\nstderr: %s", err, b.stderr)
	}
	found := false
	for _, u := range b.client.take() {
		if c := u.Update.UserMessageChunk; c != nil && c.Content.Image != nil {
			found = c.Content.Image.Data == png && c.Content.Image.MimeType == "image/png"
		}
	}
	if !found {
		t.Fatal("session/load did not replay the image")
	}
}
