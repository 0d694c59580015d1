package responses

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestUserMessageImage checks that a user message with an image is an
// input message of an input_text part and an input_image data: URL.
func TestUserMessageImage(t *testing.T) {
	srv := providertest.FixtureServer(t, "text.sse")
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.UserImageRequest("gpt-4.1"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	items := providertest.Objects(srv.TakeRequest(t).Body["input"])
	if len(items) != 1 || items[0]["role"] != "user" {
		t.Fatalf("items %v", items)
	}
	parts := providertest.Objects(items[0]["content"])
	if len(parts) != 2 || parts[0]["type"] != "input_text" || parts[1]["type"] != "input_image" {
		t.Fatalf("parts %v", parts)
	}
	if parts[1]["image_url"] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("image part %v", parts[1])
	}
}
