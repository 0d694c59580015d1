package openaichat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"talaria/providers"
)

// Images of tool results go to the model in a user message after the
// batch's last tool message: the API's tool messages take only text, and
// its tool messages must follow their assistant message without a break.
// The tool messages keep their "[image …]" placeholders; the user message
// holds, for each result with images, a caption naming the call and then
// its images as image_url parts with base64 data: URLs.
//
// A user message's own images (the user attached them) go in that
// message: its content becomes a list, the text part first, then an
// image_url part per image.

// imageRef is one tool result's share of an image message: what it was
// encoded from, to tell on the next call whether the bytes still hold.
type imageRef struct {
	caption string
	images  []providers.Image
}

// sameRefs reports whether two image messages would encode the same.
// Comparing image data that shares its backing array is O(1).
func sameRefs(a, b []imageRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].caption != b[i].caption || len(a[i].images) != len(b[i].images) {
			return false
		}
		for j := range a[i].images {
			x, y := &a[i].images[j], &b[i].images[j]
			if x.MIME != y.MIME || !bytes.Equal(x.Data, y.Data) {
				return false
			}
		}
	}
	return true
}

// encodeImageMessage writes the user message that carries refs' images.
func encodeImageMessage(refs []imageRef) ([]byte, error) {
	enc := base64.StdEncoding
	size := 64
	for _, r := range refs {
		size += len(r.caption) + 32
		for _, im := range r.images {
			size += enc.EncodedLen(len(im.Data)) + len(im.MIME) + 64
		}
	}
	out := make([]byte, 0, size)
	out = append(out, `{"role":"user","content":[`...)
	for i, r := range refs {
		if i > 0 {
			out = append(out, ',')
		}
		caption, err := json.Marshal(r.caption)
		if err != nil {
			return nil, err
		}
		out = append(out, `{"type":"text","text":`...)
		out = append(out, caption...)
		out = append(out, '}')
		for _, im := range r.images {
			mime, err := json.Marshal(im.MIME) // one of the four media types; quoted all the same
			if err != nil {
				return nil, err
			}
			out = append(out, `,{"type":"image_url","image_url":{"url":"data:`...)
			out = append(out, mime[1:len(mime)-1]...)
			out = append(out, `;base64,`...)
			out = enc.AppendEncode(out, im.Data)
			out = append(out, `"}}`...)
		}
	}
	return append(out, "]}"...), nil
}

// sentImages picks the images of a request to model: none for a model
// known to take only text (providers.TextOnlyModel), else the latest ones
// within providers.DefaultImageBudget.
func sentImages(model string, msgs []providers.Message) [][]providers.Image {
	if providers.TextOnlyModel(model) {
		return nil
	}
	return providers.DefaultImageBudget().Select(msgs)
}

// batchImages adds the images sent with msgs[i], a tool message, to the
// batch; any other message starts a new batch.
func batchImages(batch []imageRef, msgs []providers.Message, sent [][]providers.Image, i int) []imageRef {
	if msgs[i].Role != providers.RoleTool {
		return batch[:0]
	}
	if i < len(sent) && len(sent[i]) > 0 {
		batch = append(batch, imageRef{caption: providers.ImagesCaption(&msgs[i], len(sent[i])), images: sent[i]})
	}
	return batch
}

// setImages gives e, the entry of msgs[i], the image message of batch when
// msgs[i] ends its batch of tool messages, encoding it only when it is not
// the one e already holds; otherwise e has none.
func (e *cacheEntry) setImages(msgs []providers.Message, i int, batch []imageRef) error {
	last := msgs[i].Role == providers.RoleTool && (i+1 == len(msgs) || msgs[i+1].Role != providers.RoleTool)
	if !last || len(batch) == 0 {
		e.images, e.imageSrc = nil, nil
		return nil
	}
	if e.images != nil && sameRefs(e.imageSrc, batch) {
		return nil
	}
	raw, err := encodeImageMessage(batch)
	if err != nil {
		e.images, e.imageSrc = nil, nil
		return err
	}
	e.images, e.imageSrc = raw, append([]imageRef(nil), batch...)
	return nil
}

// userSent is the images sent with msgs[i] when it is a user message.
func userSent(msgs []providers.Message, sent [][]providers.Image, i int) []providers.Image {
	if msgs[i].Role != providers.RoleUser || i >= len(sent) {
		return nil
	}
	return sent[i]
}

// sameImages reports whether two image lists encode the same; data that
// shares its backing array compares in O(1).
func sameImages(a, b []providers.Image) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].MIME != b[i].MIME || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// encodeUserMessage writes a user message with images: a text part, then
// an image_url part with a base64 data: URL per image.
func encodeUserMessage(text string, ims []providers.Image) ([]byte, error) {
	body, err := json.Marshal(orDefault(text, providers.PlaceholderUser))
	if err != nil {
		return nil, err
	}
	enc := base64.StdEncoding
	size := len(body) + 64
	for _, im := range ims {
		size += enc.EncodedLen(len(im.Data)) + len(im.MIME) + 64
	}
	out := make([]byte, 0, size)
	out = append(out, `{"role":"user","content":[{"type":"text","text":`...)
	out = append(out, body...)
	out = append(out, '}')
	for _, im := range ims {
		mime, err := json.Marshal(im.MIME)
		if err != nil {
			return nil, err
		}
		out = append(out, `,{"type":"image_url","image_url":{"url":"data:`...)
		out = append(out, mime[1:len(mime)-1]...)
		out = append(out, `;base64,`...)
		out = enc.AppendEncode(out, im.Data)
		out = append(out, `"}}`...)
	}
	return append(out, "]}"...), nil
}
