package loop

import (
	"context"
	"fmt"
	"strings"

	"talaria/providers"
)

// MaxInputImages caps the images one user message carries.
const MaxInputImages = 10

// Input is what the user sends as one turn: the text and the images
// attached to it (pasted, from the clipboard, --image, an editor's
// prompt). The images go with the user message on every wire that takes
// images; its text holds a placeholder for each, which is all a text-only
// model gets.
type Input struct {
	Text   string
	Images []providers.Image
}

// InputError is input that cannot be sent: an image of the wrong kind,
// too big, or too many of them. Nothing was sent.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return e.Reason + "; nothing was sent" }

// Check reports input whose images cannot be sent.
func (in Input) Check() error {
	if len(in.Images) > MaxInputImages {
		return &InputError{Reason: fmt.Sprintf("%d images attached, over the limit of %d for one message", len(in.Images), MaxInputImages)}
	}
	for i, im := range in.Images {
		switch {
		case !providers.ImageMIMEOK(im.MIME):
			return &InputError{Reason: fmt.Sprintf("image %d is %q: only PNG, JPEG, GIF and WebP images can be sent", i+1, im.MIME)}
		case len(im.Data) == 0:
			return &InputError{Reason: fmt.Sprintf("image %d is empty", i+1)}
		case len(im.Data) > providers.MaxImageBytes:
			return &InputError{Reason: fmt.Sprintf("image %d is %s, over the %s limit for one image", i+1, byteSize(len(im.Data)), byteSize(providers.MaxImageBytes))}
		}
	}
	return nil
}

// StartInput is Start for input with images: it returns an *InputError
// for images that cannot be sent, before anything happens.
func (a *Agent) StartInput(ctx context.Context, in Input) error {
	if err := in.Check(); err != nil {
		return err
	}
	t, err := a.begin(ctx, in.Text)
	if err != nil {
		return err
	}
	t.images = in.Images
	go a.runTurn(t, in.Text)
	return nil
}

// RunInput is Run for input with images: it returns an *InputError for
// images that cannot be sent, before anything happens.
func (a *Agent) RunInput(ctx context.Context, in Input) (Result, error) {
	if err := in.Check(); err != nil {
		return Result{}, err
	}
	t, err := a.begin(ctx, in.Text)
	if err != nil {
		return Result{}, err
	}
	t.images = in.Images
	return a.runTurn(t, in.Text), nil
}

// ImagesRefused reports whether the session's backend refused image parts
// (a text-only model): later requests carry the placeholders only.
func (a *Agent) ImagesRefused() bool { return a.noImages.Load() }

// userMessage is the turn's user message: content, then a placeholder
// line for each attached image, and the images themselves.
func userMessage(content string, images []providers.Image) providers.Message {
	m := providers.Message{Role: providers.RoleUser, Content: content}
	if len(images) == 0 {
		return m
	}
	var b strings.Builder
	b.WriteString(content)
	for _, im := range images {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(im.Placeholder())
	}
	m.Content = b.String()
	m.Images = append([]providers.Image(nil), images...)
	return m
}

// imagesNotSent is the line added to a user message whose images were
// left out of a request, so that the model can tell the user why it does
// not see them.
const imagesNotSent = "[note: the image(s) above were not sent: the model in use does not take image input]"

// withoutImages is m without its image parts; a user message's text
// says they were not sent.
func withoutImages(m providers.Message) providers.Message {
	if m.Role == providers.RoleUser && len(m.Images) > 0 {
		m.Content += "\n" + imagesNotSent
	}
	m.Images = nil
	return m
}

// textOnly reports whether the request goes to a model known to refuse
// images, so that the loop drops them (with the note) before the wire
// would drop them silently.
func (t *turn) textOnly(req *providers.Request) bool {
	return t.a.noImages.Load() || providers.TextOnlyModel(req.Model) || providers.TextOnlyModel(t.a.route.backend().Model)
}
