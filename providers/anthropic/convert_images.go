package anthropic

import "talaria/providers"

// imageBudget bounds the images of a request. The API takes up to 100,
// but past 20 each must be at most 2000 px a side, which this transport
// cannot check, so 20 is the cap; 20 MiB of raw bytes leaves the 32 MB
// request limit room for the text once base64 grows it by a third.
func imageBudget() providers.ImageBudget {
	return providers.ImageBudget{MaxBytes: providers.MaxRequestImageBytes, MaxCount: 20}
}

// appendImages adds an image block, with base64 data, for each image.
func appendImages(content []block, ims []providers.Image) []block {
	for _, im := range ims {
		content = append(content, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: im.MIME, Data: im.Base64()}})
	}
	return content
}
