package providers

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// MaxImageBytes caps one image carried in a message (decoded bytes); a
// bigger one is replaced by a text placeholder where it is made.
const MaxImageBytes = 5 << 20

// Image is one image in a message, for wires that take images: on a
// role=tool message it is part of the tool's result, on a role=user
// message an image the user attached. Data holds the raw bytes (not
// base64).
type Image struct {
	// MIME is the media type: image/png, image/jpeg, image/gif or
	// image/webp.
	MIME string `json:"mime"`
	// Data is the image itself.
	Data []byte `json:"data"`
}

// ImageMIMEOK reports whether the wires take images of this media type.
func ImageMIMEOK(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// Placeholder is the text that stands for the image where no image part
// can go.
func (im Image) Placeholder() string {
	return fmt.Sprintf("[image %s, %d bytes]", im.MIME, len(im.Data))
}

// ImageBudget bounds the images one request carries, as a wire's API
// allows them.
type ImageBudget struct {
	// MaxBytes caps the decoded bytes of all the images of a request.
	MaxBytes int
	// MaxCount caps how many images a request holds.
	MaxCount int
	// MaxEach caps one image; a bigger one keeps its placeholder. 0 means
	// MaxImageBytes.
	MaxEach int
}

// MaxRequestImageBytes is the default cap on the decoded image bytes of
// one request (base64 makes it about 27 MiB on the wire).
const MaxRequestImageBytes = 20 << 20

// DefaultImageBudget is the budget of a wire with no tighter limits of
// its own: MaxRequestImageBytes and 50 images.
func DefaultImageBudget() ImageBudget {
	return ImageBudget{MaxBytes: MaxRequestImageBytes, MaxCount: 50}
}

// Select picks the images of msgs (those of role=tool and role=user
// messages) that go on
// the wire, newest first: walking back from the last message, each image is
// taken while the request's total stays within MaxBytes and MaxCount; from
// the first one that does not fit, it and every older image keep only
// their placeholder (already in the message's Content), so the images
// sent are always the latest ones. An image over MaxEach, or of a media
// type no wire takes, is skipped alone. out[i] lists, in their order, the
// images sent with msgs[i]; out is nil when none is sent at all.
func (b ImageBudget) Select(msgs []Message) [][]Image {
	maxEach := b.MaxEach
	if maxEach <= 0 || maxEach > MaxImageBytes {
		maxEach = MaxImageBytes
	}
	var out [][]Image
	total, count := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if (m.Role != RoleTool && m.Role != RoleUser) || len(m.Images) == 0 {
			continue
		}
		first := len(m.Images) // images m.Images[first:] are candidates
		full := false
		for j := len(m.Images) - 1; j >= 0; j-- {
			n := len(m.Images[j].Data)
			if n == 0 || n > maxEach || !ImageMIMEOK(m.Images[j].MIME) {
				first = j // skipped alone; keepImages drops it
				continue
			}
			if total+n > b.MaxBytes || count+1 > b.MaxCount {
				full = true
				break
			}
			first = j
			total += n
			count++
		}
		if kept := keepImages(m.Images[first:], maxEach); len(kept) > 0 {
			if out == nil {
				out = make([][]Image, len(msgs))
			}
			out[i] = kept
		}
		if full {
			break
		}
	}
	return out
}

// keepImages returns ims less those that cannot be sent, without copying
// when all can.
func keepImages(ims []Image, maxEach int) []Image {
	ok := func(im *Image) bool {
		return len(im.Data) > 0 && len(im.Data) <= maxEach && ImageMIMEOK(im.MIME)
	}
	for j := range ims {
		if !ok(&ims[j]) {
			out := make([]Image, 0, len(ims)-1)
			for k := range ims {
				if ok(&ims[k]) {
					out = append(out, ims[k])
				}
			}
			return out
		}
	}
	return ims
}

// Base64 is the image's bytes in standard base64, as the wires carry them.
func (im Image) Base64() string {
	return base64.StdEncoding.EncodeToString(im.Data)
}

// DataURL is the image as a data: URL ("data:image/png;base64,…").
func (im Image) DataURL() string {
	enc := base64.StdEncoding
	b := make([]byte, 0, len("data:;base64,")+len(im.MIME)+enc.EncodedLen(len(im.Data)))
	b = append(b, "data:"...)
	b = append(b, im.MIME...)
	b = append(b, ";base64,"...)
	b = enc.AppendEncode(b, im.Data)
	return string(b)
}

// ImagesCaption is the short text sent with the images of one tool result
// where they cannot sit inside the result itself (a user message after
// the results): which call they come from.
func ImagesCaption(m *Message, n int) string {
	what := "image"
	if n != 1 {
		what = fmt.Sprintf("%d images", n)
	}
	name := m.ToolName
	if name == "" {
		name = "tool"
	}
	return fmt.Sprintf("[%s returned by %s, call %s]", what, name, m.ToolCallID)
}

// TextOnlyModel reports the few well-known models behind OpenAI-style
// APIs that refuse image input (an image part is a 400 there), so that
// their requests keep the placeholders. A provider prefix ("deepseek/…")
// is ignored; a model not listed is taken to accept images.
func TextOnlyModel(model string) bool {
	model = strings.ToLower(ModelBase(model))
	for _, p := range []string{"gpt-3.5", "gpt-oss", "o1-mini", "o1-preview", "o3-mini", "deepseek-chat", "deepseek-reasoner", "deepseek-coder", "deepseek-r1", "deepseek-v3"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}
