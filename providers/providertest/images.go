package providertest

import "talaria/providers"

// PNG is a valid 1×1 PNG, for tests of image parts.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// ImageRequest is a conversation in which one of two parallel tool calls
// returned an image: user, assistant calling "shot" (call_img) and "ls"
// (call_txt), the image result with its placeholder, the text result.
func ImageRequest(model string) providers.Request {
	im := providers.Image{MIME: "image/png", Data: PNG}
	return providers.Request{Model: model, Messages: []providers.Message{
		{Role: providers.RoleUser, Content: "take a screenshot"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: "call_img", Name: "shot", Arguments: `{}`},
			{ID: "call_txt", Name: "ls", Arguments: `{}`},
		}},
		{Role: providers.RoleTool, ToolCallID: "call_img", ToolName: "shot", Content: "screen:\n" + im.Placeholder(), Images: []providers.Image{im}},
		{Role: providers.RoleTool, ToolCallID: "call_txt", ToolName: "ls", Content: "a.go"},
	}}
}
