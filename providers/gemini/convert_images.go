package gemini

import "talaria/providers"

// inlineData is an image sent in the request: base64 data and its type.
type inlineData struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

// imageBudget bounds the images of a request: inline data counts towards
// the API's 20 MB request limit after base64 grows it by a third, so 14
// MiB of raw bytes leaves room for the text.
func imageBudget() providers.ImageBudget {
	return providers.ImageBudget{MaxBytes: 14 << 20, MaxCount: 50}
}

// imageParts is one inlineData part per image.
func imageParts(ims []providers.Image) []part {
	out := make([]part, 0, len(ims))
	for _, im := range ims {
		out = append(out, part{InlineData: &inlineData{MimeType: im.MIME, Data: im.Base64()}})
	}
	return out
}
