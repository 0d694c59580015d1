package mcp

import "context"

// connect starts every server of cfgs and waits until each is connected
// or has failed.
func connect(ctx context.Context, cfgs []ServerConfig) (*Manager, []error) {
	m, errs := Start(cfgs, Options{})
	return m, append(errs, m.Wait(ctx)...)
}

// withProgress returns a context whose MCP tool calls pass each
// notifications/progress to fn as one line.
func withProgress(ctx context.Context, fn func(text string)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}
