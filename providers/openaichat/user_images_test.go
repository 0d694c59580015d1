package openaichat

import (
	"encoding/base64"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestUserMessageImage checks that a user message with an image is sent
// as a list of a text part and an image_url part, that the cache keeps
// those bytes for the same history, and that a request without the image
// (stripped for a text-only backend) sends the text only.
func TestUserMessageImage(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "openai")
	req := providertest.UserImageRequest("gpt-4o")
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(providertest.PNG)
	for round := range 2 {
		msgs := sentMessages(t, tr, reqs, req)
		if len(msgs) != 2 || msgs[1]["role"] != "user" {
			t.Fatalf("round %d: messages %v", round, msgs)
		}
		urls, texts := imageURLs(t, msgs[1])
		if len(urls) != 1 || urls[0] != want || len(texts) != 1 || !strings.HasPrefix(texts[0], "what is this?") {
			t.Fatalf("round %d: urls %v texts %v", round, urls, texts)
		}
	}
	stripped := req
	stripped.Messages = append([]providers.Message(nil), req.Messages...)
	stripped.Messages[1].Images = nil
	msgs := sentMessages(t, tr, reqs, stripped)
	if c, ok := msgs[1]["content"].(string); !ok || !strings.HasPrefix(c, "what is this?") {
		t.Fatalf("stripped user message %v", msgs[1])
	}
	// A text-only model keeps the placeholder only.
	tr = newTestTransport(t, srv, "deepseek")
	msgs = sentMessages(t, tr, reqs, providertest.UserImageRequest("deepseek-chat"))
	if _, ok := msgs[1]["content"].(string); !ok {
		t.Fatalf("text-only model got parts: %v", msgs[1])
	}
}
