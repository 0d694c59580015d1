package openaichat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// sentMessages streams req through tr and returns the messages of the
// request body the server saw.
func sentMessages(t *testing.T, tr *chatTransport, reqs <-chan providertest.Captured, req providers.Request) []map[string]any {
	t.Helper()
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	c := <-reqs
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(c.Raw, &body); err != nil {
		t.Fatalf("body %s: %v", c.Raw, err)
	}
	return body.Messages
}

// imageURLs returns the image_url URLs and the text parts of a message
// whose content is a list of parts.
func imageURLs(t *testing.T, m map[string]any) (urls, texts []string) {
	t.Helper()
	parts, ok := m["content"].([]any)
	if !ok {
		t.Fatalf("content is not a list of parts: %v", m)
	}
	for _, p := range parts {
		part := p.(map[string]any)
		switch part["type"] {
		case "image_url":
			urls = append(urls, part["image_url"].(map[string]any)["url"].(string))
		case "text":
			texts = append(texts, part["text"].(string))
		default:
			t.Errorf("part of type %v", part["type"])
		}
	}
	return urls, texts
}

// TestToolImagesAsUserMessage checks that a tool result's image reaches the
// body as an image_url data: URL in one user message after the batch's
// last tool message, with the tool messages contiguous and kept as text.
func TestToolImagesAsUserMessage(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "openai")
	msgs := sentMessages(t, tr, reqs, providertest.ImageRequest("gpt-4o"))
	if len(msgs) != 5 {
		t.Fatalf("%d messages, want 5 (user, assistant, 2 tool, user with the image): %v", len(msgs), msgs)
	}
	for i, want := range []string{"user", "assistant", "tool", "tool", "user"} {
		if msgs[i]["role"] != want {
			t.Errorf("message %d role %v, want %s", i, msgs[i]["role"], want)
		}
	}
	if c, _ := msgs[2]["content"].(string); !strings.Contains(c, "[image image/png, ") {
		t.Errorf("tool message lost its placeholder: %v", msgs[2]["content"])
	}
	urls, texts := imageURLs(t, msgs[4])
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(providertest.PNG)
	if len(urls) != 1 || urls[0] != want {
		t.Errorf("image urls %v, want [%s]", urls, want)
	}
	if len(texts) != 1 || !strings.Contains(texts[0], "call_img") || !strings.Contains(texts[0], "shot") {
		t.Errorf("caption %v does not name the call", texts)
	}
}

// TestToolImagesTextOnlyModel checks that a model known to refuse images
// gets the placeholder only.
func TestToolImagesTextOnlyModel(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "deepseek")
	msgs := sentMessages(t, tr, reqs, providertest.ImageRequest("deepseek-chat"))
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want 4 without an image message: %v", len(msgs), msgs)
	}
	raw, _ := json.Marshal(msgs)
	if strings.Contains(string(raw), "image_url") || !strings.Contains(string(raw), "[image image/png") {
		t.Errorf("text-only model body: %s", raw)
	}
}

// TestToolImagesCache checks that the per-message encode cache follows the
// images: the same history reuses the image message's bytes, other image
// bytes in the same message change it, and dropping the images drops it.
func TestToolImagesCache(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "openai")
	req := providertest.ImageRequest("gpt-4o")
	sentMessages(t, tr, reqs, req)
	first := tr.cache.entries[3].images
	if first == nil {
		t.Fatal("no image message cached on the batch's last tool message")
	}
	sentMessages(t, tr, reqs, req)
	if e := tr.cache.entries[3].images; &e[0] != &first[0] {
		t.Error("the same history encoded its image message again")
	}

	other := append([]byte(nil), providertest.PNG...)
	other[len(other)-1] ^= 0xff
	req.Messages[2].Images = []providers.Image{{MIME: "image/png", Data: other}}
	urls, _ := imageURLs(t, sentMessages(t, tr, reqs, req)[4])
	if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(other); len(urls) != 1 || urls[0] != want {
		t.Errorf("after the image changed, urls %v, want the new image", urls)
	}

	req.Messages[2].Images = nil
	if msgs := sentMessages(t, tr, reqs, req); len(msgs) != 4 {
		t.Errorf("after the images went, %d messages, want 4", len(msgs))
	}
}

// TestToolImagesBatches checks that each batch gets its own image message
// right after its last tool message, and that a later batch does not
// repeat an earlier one's images.
func TestToolImagesBatches(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "openai")
	req := providertest.ImageRequest("gpt-4o")
	jpeg := providers.Image{MIME: "image/jpeg", Data: []byte("\xff\xd8\xff\xe0 not really a jpeg")}
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "call_2", Name: "shot", Arguments: `{}`}}},
		providers.Message{Role: providers.RoleTool, ToolCallID: "call_2", ToolName: "shot", Content: jpeg.Placeholder(), Images: []providers.Image{jpeg}},
		providers.Message{Role: providers.RoleUser, Content: "thanks"},
	)
	msgs := sentMessages(t, tr, reqs, req)
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m["role"].(string)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,tool,user,assistant,tool,user,user" {
		t.Fatalf("roles %s", got)
	}
	urls, _ := imageURLs(t, msgs[7])
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/jpeg;base64,") {
		t.Errorf("second batch urls %v", urls)
	}
}

// BenchmarkEncodeImages encodes a request whose history holds four 1 MiB
// images: "cached" is the next call of a session (the image message's
// bytes come from the cache), "cold" encodes them every time.
func BenchmarkEncodeImages(b *testing.B) {
	req := providertest.ImageRequest("gpt-4o")
	for i := range 4 {
		im := providers.Image{MIME: "image/png", Data: make([]byte, 1<<20)}
		im.Data[0] = byte(i)
		id := "call_" + string(rune('a'+i))
		req.Messages = append(req.Messages,
			providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: "shot", Arguments: `{}`}}},
			providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: "shot", Content: im.Placeholder(), Images: []providers.Image{im}})
	}
	for _, cached := range []bool{true, false} {
		name := "cold"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			tr := &chatTransport{ep: providers.Endpoint{Provider: "bench", Model: "gpt-4o"}, cache: &msgCache{}}
			b.ReportAllocs()
			for b.Loop() {
				if !cached {
					tr.cache = &msgCache{}
				}
				raw, err := tr.encodeRequest(req)
				if err != nil || len(raw) < 4<<20 {
					b.Fatalf("encode: %v, %d bytes", err, len(raw))
				}
			}
		})
	}
}
