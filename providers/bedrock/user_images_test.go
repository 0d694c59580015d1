package bedrock

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestUserMessageImage checks that an image the user attached is an image
// block (format and base64 bytes) after the text of the user message, for
// a model that takes images.
func TestUserMessageImage(t *testing.T) {
	srv, reqs := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, "converse_max_tokens.json")})
	tr := newTestTransport(t, srv, false)
	req := providertest.UserImageRequest("anthropic.claude-3-5-sonnet-20241022-v2:0")
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	msgs := providertest.Objects((<-reqs).Body["messages"])
	if len(msgs) != 1 {
		t.Fatalf("messages %v", msgs)
	}
	blocks := providertest.Objects(msgs[0]["content"])
	if len(blocks) != 2 || blocks[0]["text"] == nil {
		t.Fatalf("content %v, want text then image", blocks)
	}
	img, _ := blocks[1]["image"].(map[string]any)
	src, _ := img["source"].(map[string]any)
	if img["format"] != "png" || src["bytes"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("image block %v", blocks[1])
	}
}
