package ollama

import (
	"context"
	"encoding/base64"
	"testing"

	"talaria/providers/providertest"
)

// TestUserMessageImage checks that the native chat API gets a user
// message's image in the message's images list, base64.
func TestUserMessageImage(t *testing.T) {
	tr, srv := nativeServer(t, 200, toolStream)
	if _, err := tr.Stream(context.Background(), providertest.UserImageRequest("qwen2.5vl"), nil); err != nil {
		t.Fatal(err)
	}
	msgs := providertest.Objects(srv.TakeRequest(t).Body["messages"])
	if len(msgs) != 2 || msgs[1]["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	ims, _ := msgs[1]["images"].([]any)
	if len(ims) != 1 || ims[0] != base64.StdEncoding.EncodeToString(providertest.PNG) {
		t.Errorf("images %v", msgs[1]["images"])
	}
	if _, ok := msgs[0]["images"]; ok {
		t.Error("the system message got images")
	}
}
