package gemini

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestToolResultImage checks that a tool result's image reaches the body as
// an inlineData part right after its functionResponse, in the same user
// content as the other result.
func TestToolResultImage(t *testing.T) {
	srv, reqs := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "text_thoughts.sse")})
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.ImageRequest("gemini-2.5-flash"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	body := (<-reqs).Body
	contents, _ := body["contents"].([]any)
	if len(contents) != 3 {
		t.Fatalf("%d contents, want user, model, user with the results", len(contents))
	}
	last := contents[2].(map[string]any)
	parts, _ := last["parts"].([]any)
	if last["role"] != "user" || len(parts) != 3 {
		t.Fatalf("results content %v", last)
	}
	kinds := make([]string, len(parts))
	for i, p := range parts {
		for k := range p.(map[string]any) {
			kinds[i] = k
		}
	}
	if kinds[0] != "functionResponse" || kinds[1] != "inlineData" || kinds[2] != "functionResponse" {
		t.Fatalf("part kinds %v", kinds)
	}
	inline := parts[1].(map[string]any)["inlineData"].(map[string]any)
	if inline["mimeType"] != "image/png" || inline["data"] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("inlineData %v", inline)
	}
}
