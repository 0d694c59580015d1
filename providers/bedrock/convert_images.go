package bedrock

import (
	"strings"

	"talaria/providers"
)

// imageBlock is an image in a toolResult: its format and its bytes
// (base64 in JSON).
type imageBlock struct {
	Format string      `json:"format"`
	Source imageSource `json:"source"`
}

type imageSource struct {
	Bytes []byte `json:"bytes"`
}

// imageBudget bounds the images of a request as Converse does: 20 images,
// each at most 3.75 MB.
func imageBudget() providers.ImageBudget {
	return providers.ImageBudget{MaxBytes: providers.MaxRequestImageBytes, MaxCount: 20, MaxEach: 3_750_000}
}

// sentImages picks the images of a request: only for the model families
// whose tool results take images through Converse (Anthropic Claude,
// Amazon Nova Lite, Pro and Premier; named in the model id or inference
// profile), the latest within imageBudget. Other models (Llama, Mistral,
// Titan, Nova Micro, ...) keep the placeholders.
func sentImages(model string, msgs []providers.Message) [][]providers.Image {
	if !takesImages(model) {
		return nil
	}
	return imageBudget().Select(msgs)
}

func takesImages(model string) bool {
	for _, family := range []string{"anthropic.claude", "amazon.nova-lite", "amazon.nova-pro", "amazon.nova-premier"} {
		if strings.Contains(model, family) {
			return true
		}
	}
	return false
}

func imagesOf(sent [][]providers.Image, i int) []providers.Image {
	if i < len(sent) {
		return sent[i]
	}
	return nil
}

// appendImages adds an image entry per image; the format is the media
// type's subtype (png, jpeg, gif, webp).
func appendImages(content []toolResultEntry, ims []providers.Image) []toolResultEntry {
	for _, im := range ims {
		content = append(content, toolResultEntry{Image: &imageBlock{
			Format: strings.TrimPrefix(im.MIME, "image/"),
			Source: imageSource{Bytes: im.Data},
		}})
	}
	return content
}

// userImageBlocks is an image content block per image of a user message.
func userImageBlocks(ims []providers.Image) []contentBlock {
	out := make([]contentBlock, 0, len(ims))
	for _, im := range ims {
		out = append(out, contentBlock{Image: &imageBlock{
			Format: strings.TrimPrefix(im.MIME, "image/"),
			Source: imageSource{Bytes: im.Data},
		}})
	}
	return out
}
