package bedrock

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestToolResultImage checks that a tool result's image reaches the
// Converse body as an image entry of its toolResult (format and base64
// bytes) after the text, for a Claude model.
func TestToolResultImage(t *testing.T) {
	srv, reqs := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, "converse_max_tokens.json")})
	tr := newTestTransport(t, srv, false)
	req := providertest.ImageRequest("")
	req.Tools = []providers.ToolSpec{{Name: "shot"}, {Name: "ls"}} // else Converse gets the results as text
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	msgs, _ := (<-reqs).Body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want user, assistant, user with the results", len(msgs))
	}
	blocks := msgs[2].(map[string]any)["content"].([]any)
	result := blocks[0].(map[string]any)["toolResult"].(map[string]any)
	entries := result["content"].([]any)
	if len(entries) != 2 {
		t.Fatalf("toolResult content %v, want text and image", entries)
	}
	if text, _ := entries[0].(map[string]any)["text"].(string); !strings.Contains(text, "[image image/png") {
		t.Errorf("text entry %v", entries[0])
	}
	img, _ := entries[1].(map[string]any)["image"].(map[string]any)
	src, _ := img["source"].(map[string]any)
	if img["format"] != "png" || src["bytes"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("image entry %v", entries[1])
	}
	if other := blocks[1].(map[string]any)["toolResult"].(map[string]any)["content"].([]any); len(other) != 1 {
		t.Errorf("the text-only result has %d entries", len(other))
	}
}

// TestToolResultImageModels checks which model families get images, and
// that a request without tools (results written as text) sends none.
func TestToolResultImageModels(t *testing.T) {
	req := providertest.ImageRequest("")
	for model, want := range map[string]bool{
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": true,
		"amazon.nova-pro-v1:0":                         true,
		"amazon.nova-micro-v1:0":                       false,
		"meta.llama3-1-70b-instruct-v1:0":              false,
	} {
		if got := sentImages(model, req.Messages) != nil; got != want {
			t.Errorf("%s: images sent %v, want %v", model, got, want)
		}
	}
	msgs, err := convertMessages(req.Messages, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.ToolResult != nil {
				t.Errorf("tool result block in a text-only conversion")
			}
		}
	}
	big := providers.Image{MIME: "image/jpeg", Data: make([]byte, 4_000_000)}
	req.Messages[2].Images = []providers.Image{big}
	if sentImages("anthropic.claude-3-5-sonnet", req.Messages) != nil {
		t.Error("an image over Converse's 3.75 MB was sent")
	}
}
