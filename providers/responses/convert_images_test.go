package responses

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers/providertest"
)

// TestToolResultImage checks that function_call_output stays text and that
// the batch's image follows its last output as a user message of an
// input_text caption and an input_image data: URL.
func TestToolResultImage(t *testing.T) {
	srv := providertest.FixtureServer(t, "text.sse")
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.ImageRequest("gpt-4.1"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	items := providertest.Objects(srv.TakeRequest(t).Body["input"])
	var types []string
	for _, it := range items {
		types = append(types, it["type"].(string))
	}
	if got := strings.Join(types, ","); got != "message,function_call,function_call,function_call_output,function_call_output,message" {
		t.Fatalf("item types %s", got)
	}
	if out, _ := items[3]["output"].(string); !strings.Contains(out, "[image image/png, ") {
		t.Errorf("function_call_output %v lost its placeholder", items[3]["output"])
	}
	last := items[5]
	parts, _ := last["content"].([]any)
	if last["role"] != "user" || len(parts) != 2 {
		t.Fatalf("image message %v", last)
	}
	caption, img := parts[0].(map[string]any), parts[1].(map[string]any)
	if caption["type"] != "input_text" || !strings.Contains(caption["text"].(string), "call_img") {
		t.Errorf("caption %v", caption)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(providertest.PNG)
	if img["type"] != "input_image" || img["image_url"] != want {
		t.Errorf("image part %v", img)
	}
}

// TestToolResultImageTextOnly checks that a text-only model gets the
// placeholder only.
func TestToolResultImageTextOnly(t *testing.T) {
	srv := providertest.FixtureServer(t, "text.sse")
	tr := newTestTransport(t, srv)
	if _, err := tr.Stream(context.Background(), providertest.ImageRequest("o3-mini"), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	raw, _ := json.Marshal(srv.TakeRequest(t).Body["input"])
	if strings.Contains(string(raw), "input_image") || !strings.Contains(string(raw), "[image image/png") {
		t.Errorf("input %s", raw)
	}
}
