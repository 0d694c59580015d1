package loop

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"talaria/providers"
)

// HasImageExtension reports whether name ends in .png, .jpg, .jpeg, .gif
// or .webp (any case): the endings of the image types the wires take.
func HasImageExtension(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// SniffImage returns the media type of an image by its first bytes: PNG,
// JPEG, GIF or WebP; "" for anything else.
func SniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}

// ImageFromBytes makes an image of data, whose type is told by its
// content (never by a name); what names it goes in the errors. Data that
// is not a PNG, JPEG, GIF or WebP image, or is over
// providers.MaxImageBytes, is an error that says so.
func ImageFromBytes(what string, data []byte) (providers.Image, error) {
	if len(data) > providers.MaxImageBytes {
		return providers.Image{}, tooBig(what, len(data))
	}
	if len(data) == 0 {
		return providers.Image{}, fmt.Errorf("%s is empty", what)
	}
	mime := SniffImage(data)
	if mime == "" {
		kind, _, _ := strings.Cut(http.DetectContentType(data), ";")
		return providers.Image{}, fmt.Errorf("%s is not a PNG, JPEG, GIF or WebP image (its content looks like %s)", what, kind)
	}
	return providers.Image{MIME: mime, Data: data}, nil
}

// ImageFromFile reads an image file, at most providers.MaxImageBytes of
// it (a bigger one is an error without being read whole).
func ImageFromFile(path string) (providers.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return providers.Image{}, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return providers.Image{}, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, providers.MaxImageBytes+1))
	if err != nil {
		return providers.Image{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > providers.MaxImageBytes {
		size := len(data)
		if st, err := f.Stat(); err == nil {
			size = int(st.Size())
		}
		return providers.Image{}, tooBig(path, size)
	}
	return ImageFromBytes(path, data)
}

// tooBig is the error for an image of n bytes, over the limit.
func tooBig(what string, n int) error {
	return fmt.Errorf("%s is %s (%d bytes), over the %s limit for one image: make it smaller (a lower resolution, or JPEG)",
		what, byteSize(n), n, byteSize(providers.MaxImageBytes))
}
