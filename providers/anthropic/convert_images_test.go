package anthropic

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestToolResultImage checks that a tool result's image reaches the body
// as an image block with base64 data inside its tool_result, after the
// text, and that both results stay in one user message.
func TestToolResultImage(t *testing.T) {
	srv := providertest.FixtureServer(t, "text.sse")
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.ImageRequest("claude-sonnet-4-5"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	msgs := providertest.Objects(srv.TakeRequest(t).Body["messages"])
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want user, assistant, user with both results", len(msgs))
	}
	results := providertest.Objects(msgs[2]["content"])
	if len(results) != 2 || results[0]["type"] != "tool_result" || results[1]["type"] != "tool_result" {
		t.Fatalf("results %v", results)
	}
	content, _ := results[0]["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("tool_result content %v, want a text and an image block", content)
	}
	text, img := content[0].(map[string]any), content[1].(map[string]any)
	if text["type"] != "text" || img["type"] != "image" {
		t.Fatalf("content types %v, %v", text["type"], img["type"])
	}
	src, _ := img["source"].(map[string]any)
	if src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("image source %v", src)
	}
	if other, _ := results[1]["content"].([]any); len(other) != 1 {
		t.Errorf("the text-only result got %d blocks", len(other))
	}
}

// TestToolResultImageBudget checks that past the image budget's count the
// older images keep only their placeholder text.
func TestToolResultImageBudget(t *testing.T) {
	req := providertest.ImageRequest("claude-sonnet-4-5")
	im := req.Messages[2].Images[0]
	many := make([]providers.Image, imageBudget().MaxCount+3)
	for i := range many {
		many[i] = im
	}
	req.Messages[2].Images = many
	_, out, err := convertMessages(req.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out[2].Content[0].Content) - 1; got != imageBudget().MaxCount {
		t.Errorf("%d image blocks sent, want the cap %d", got, imageBudget().MaxCount)
	}
}
