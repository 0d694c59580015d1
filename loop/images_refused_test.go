package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// fakeShot returns a screenshot, as an MCP tool with an image result does.
type fakeShot struct{}

func (fakeShot) Name() string            { return "shot" }
func (fakeShot) Traits() tools.Traits    { return tools.Traits{} }
func (fakeShot) Description() string     { return "take a screenshot" }
func (fakeShot) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (fakeShot) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	img := providers.Image{MIME: "image/png", Data: pt.PNG}
	return tools.Result{Output: "[image image/png, 67 bytes]", Images: []providers.Image{img}}
}

// A text-only model (llama.cpp without its projector) refuses the image
// part: the call is retried at once with the placeholders only, and later
// calls of the session leave the images out instead of failing again.
func TestImagesRefusedAreDroppedForTheSession(t *testing.T) {
	f := newFixture(t, nil)
	f.agent.opts.Tools.Register(fakeShot{})
	// llama.cpp's own answer: a 500, which must not be retried as a server
	// error with the image still in it.
	refusal := `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "shot", Args: `{}`}), pt.Error(500, refusal, nil),
		pt.ToolCalls(pt.Call{Name: "shot", Args: `{}`}), pt.Text("Two screenshots, both blank."))
	res := f.run(t, "look")
	if !res.Completed || res.FinalResponse != "Two screenshots, both blank." {
		t.Fatalf("result: %+v", res)
	}
	raw := f.srv.RawRequests()
	if len(raw) != 4 {
		t.Fatalf("%d requests, want 4", len(raw))
	}
	if !strings.Contains(raw[1], "image_url") {
		t.Fatal("the first request after the tool did not carry the image")
	}
	for i := 2; i < 4; i++ {
		if strings.Contains(raw[i], "image_url") || !strings.Contains(raw[i], "[image image/png") {
			t.Fatalf("request %d: the image was sent again or its placeholder lost:\n%s", i, raw[i])
		}
	}
}
