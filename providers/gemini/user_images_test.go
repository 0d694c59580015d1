package gemini

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestUserMessageImage checks that an image the user attached is an
// inlineData part after the text of the user's content.
func TestUserMessageImage(t *testing.T) {
	srv, reqs := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "text_thoughts.sse")})
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.UserImageRequest("gemini-2.5-flash"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	contents := providertest.Objects((<-reqs).Body["contents"])
	if len(contents) != 1 || contents[0]["role"] != "user" {
		t.Fatalf("contents %v", contents)
	}
	parts := providertest.Objects(contents[0]["parts"])
	if len(parts) != 2 || parts[0]["text"] == nil {
		t.Fatalf("parts %v, want text then inlineData", parts)
	}
	inline, _ := parts[1]["inlineData"].(map[string]any)
	if inline["mimeType"] != "image/png" || inline["data"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("inlineData %v", inline)
	}
}
