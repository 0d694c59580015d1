package main

import (
	"flag"
	"fmt"

	"talaria/loop"
	"talaria/providers"
)

// imageFlags are the --image FILE flags, in order.
type imageFlags []string

// defineImageFlags adds --image (repeatable) to fs.
func defineImageFlags(fs *flag.FlagSet, o *options) {
	fs.Func("image", fmt.Sprintf("with -p: attach the image `FILE` (PNG, JPEG, GIF or WebP, at most 5 MiB; repeat for up to %d)", loop.MaxInputImages), func(s string) error {
		o.images = append(o.images, s)
		return nil
	})
}

// checkImageFlags refuses --image without -p and more images than one
// message takes.
func checkImageFlags(o *options) error {
	if len(o.images) > 0 && !o.promptSet {
		return fmt.Errorf("--image needs -p PROMPT (in the TUI, paste the image's path or press Ctrl+V)")
	}
	if len(o.images) > loop.MaxInputImages {
		return fmt.Errorf("%d --image flags, over the limit of %d images for one message", len(o.images), loop.MaxInputImages)
	}
	return nil
}

// readImages reads the --image files; the first that cannot be sent is
// the error.
func readImages(paths imageFlags) ([]providers.Image, error) {
	var out []providers.Image
	for _, p := range paths {
		im, err := loop.ImageFromFile(p)
		if err != nil {
			return nil, fmt.Errorf("--image: %w", err)
		}
		out = append(out, im)
	}
	return out, nil
}
