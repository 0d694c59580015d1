package providertest

import "talaria/providers"

// UserImageRequest is a conversation whose user message carries an image
// the user attached: system, then the user's text with the image's
// placeholder and the image.
func UserImageRequest(model string) providers.Request {
	im := providers.Image{MIME: "image/png", Data: PNG}
	return providers.Request{Model: model, Messages: []providers.Message{
		{Role: providers.RoleSystem, Content: "You are a test agent."},
		{Role: providers.RoleUser, Content: "what is this?\n" + im.Placeholder(), Images: []providers.Image{im}},
	}}
}
