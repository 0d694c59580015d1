package anthropic

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestUserMessageImage checks that an image the user attached is an image
// block with base64 data in the user message, after its text.
func TestUserMessageImage(t *testing.T) {
	srv := providertest.FixtureServer(t, "text.sse")
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.UserImageRequest("claude-sonnet-4-5"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	msgs := providertest.Objects(srv.TakeRequest(t).Body["messages"])
	if len(msgs) != 1 || msgs[0]["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	blocks := providertest.Objects(msgs[0]["content"])
	if len(blocks) != 2 || blocks[0]["type"] != "text" || blocks[1]["type"] != "image" {
		t.Fatalf("user content %v, want a text and an image block", blocks)
	}
	src, _ := blocks[1]["source"].(map[string]any)
	if src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("image source %v", src)
	}
}
