package app

import (
	"errors"
	"fmt"

	"talaria/loop"
	"talaria/providers"
)

// usageError reports an error of the input itself (too big, images that
// cannot be sent): nothing was sent, exit 2.
func usageError(err error) bool {
	var big *loop.PromptTooLargeError
	var bad *loop.InputError
	return errors.As(err, &big) || errors.As(err, &bad)
}

// imagesNote is what a person reading a run with n attached images is
// told when the model did not get them: a model known to take text only,
// or one that refused the image parts.
func imagesNote(s *Session, n int) string {
	if n == 0 {
		return ""
	}
	if !s.Agent.ImagesRefused() && !providers.TextOnlyModel(s.Backend.Model) {
		return ""
	}
	what := "the image was"
	if n > 1 {
		what = fmt.Sprintf("the %d images were", n)
	}
	return fmt.Sprintf("the model %s does not take image input: %s not sent (the model got a placeholder and a note saying so)", s.Backend.Model, what)
}
