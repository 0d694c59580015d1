package providers

import "fmt"

// MaxImageBytes caps one image carried in a message (decoded bytes); a
// bigger one is replaced by a text placeholder where it is made.
const MaxImageBytes = 5 << 20

// Image is one image in a message, for wires that take images: on a
// role=tool message it is part of the tool's result. Data holds the raw
// bytes (not base64).
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
