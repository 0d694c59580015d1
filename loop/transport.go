package loop

import (
	"context"

	"talaria/providers"
)

// Transport is what the loop needs of a provider wire: one streamed call.
// Stream sends req and assembles the answer, calling onDelta (when
// non-nil) for each fragment as it arrives. Errors from the server are
// *providers.APIError; a stream cut mid-way returns the partial Response
// with the error. Every wire in providers/ (and providers/scripted for the
// demo) satisfies it; their conversions stay unexported in their packages.
type Transport interface {
	Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error)
}
