package providers

import "context"

// RuntimeContext is what a local server says about the context window it
// runs a model with, which may be far smaller than the model's own: Ollama
// serves a model with num_ctx tokens (a few thousand unless raised) and
// silently cuts a longer prompt.
type RuntimeContext struct {
	// Server names the server and its version, e.g. "Ollama 0.12.6".
	Server string
	// Tokens is the runtime context in tokens; 0 when not learnt.
	Tokens int
	// Max is the model's own maximum context; 0 when unknown.
	Max int
	// Source says where Tokens comes from, e.g. "the loaded model
	// (/api/ps)", for the explanation of a refused turn.
	Source string
	// Assumed is true when Tokens is the server's documented default
	// rather than a value the server reported: it is shown, never used to
	// refuse a request.
	Assumed bool
}

// RuntimeContexter is a transport that can ask its server for the runtime
// context of a model. ok is false when the server is not one that has a
// runtime context (not Ollama): the caller need not ask again.
type RuntimeContexter interface {
	RuntimeContext(ctx context.Context, model string) (rc RuntimeContext, ok bool, err error)
}
