package responses

import "talaria/providers"

// inputPart is one part of a message item's content list: input_text or
// input_image (with a data: URL).
type inputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// sentImages picks the images of the request to send: none for a model
// known to take only text, else the latest within the default budget.
func sentImages(model string, msgs []providers.Message) [][]providers.Image {
	if providers.TextOnlyModel(model) {
		return nil
	}
	return providers.DefaultImageBudget().Select(msgs)
}

// appendImageParts adds a caption naming m's call and an input_image part
// for each image sent with it.
func appendImageParts(parts []inputPart, m *providers.Message, ims []providers.Image) []inputPart {
	if len(ims) == 0 {
		return parts
	}
	parts = append(parts, inputPart{Type: "input_text", Text: providers.ImagesCaption(m, len(ims))})
	for _, im := range ims {
		parts = append(parts, inputPart{Type: "input_image", ImageURL: im.DataURL()})
	}
	return parts
}

// imagesAt is sent[i], or nil.
func imagesAt(sent [][]providers.Image, i int) []providers.Image {
	if i < len(sent) {
		return sent[i]
	}
	return nil
}

// userParts is a user message's content with images: its text, then an
// input_image part for each image.
func userParts(text string, ims []providers.Image) []inputPart {
	parts := make([]inputPart, 0, 1+len(ims))
	parts = append(parts, inputPart{Type: "input_text", Text: orDefault(text, providers.PlaceholderUser)})
	for _, im := range ims {
		parts = append(parts, inputPart{Type: "input_image", ImageURL: im.DataURL()})
	}
	return parts
}
