package app_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// TestMCPImageReachesTheModel: the image tool of a stdio MCP server (this
// test binary, see TestMain) returns a PNG; through the loop it reaches the
// next chat-completions request as an image_url data: URL in a user
// message after the tool message, which keeps its placeholder.
func TestMCPImageReachesTheModel(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	cmd, _ := json.Marshal(os.Args[0])
	writeConfig(t, home, "mcp_servers:\n  pics:\n    command: "+string(cmd)+"\n    args: [\"-test.run=^$\"]\n"+
		"    env: {"+mcptest.EnvServer+": \"1\"}\n    startup_timeout: 60s\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "pics__image", Args: `{}`}), pt.Text("a dot"))
	if r := talaria(t, home, cwd, srv, "", "--yolo", "-p", "show me"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	raw := srv.RawRequests()
	if len(raw) != 2 {
		t.Fatalf("%d requests, want 2", len(raw))
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(raw[1]), &body); err != nil {
		t.Fatal(err)
	}
	n := len(body.Messages)
	if n < 2 || body.Messages[n-2].Role != "tool" || body.Messages[n-1].Role != "user" {
		t.Fatalf("the request does not end with the tool message and a user message: %s", raw[1])
	}
	var toolText string
	_ = json.Unmarshal(body.Messages[n-2].Content, &toolText)
	if !strings.Contains(toolText, "a dot:") || !strings.Contains(toolText, "[image image/png, ") {
		t.Errorf("tool message %q lacks its text or placeholder", toolText)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(body.Messages[n-1].Content, &parts); err != nil || len(parts) != 2 {
		t.Fatalf("user message content %s: %v", body.Messages[n-1].Content, err)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(mcptest.PNG)
	if parts[0].Type != "text" || !strings.Contains(parts[0].Text, body.Messages[n-2].ToolCallID) ||
		parts[1].Type != "image_url" || parts[1].ImageURL.URL != want {
		t.Errorf("image message parts %+v", parts)
	}
}
