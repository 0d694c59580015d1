package lsp

import (
	"context"
	"path/filepath"
)

// Warm starts, in the background, the server for path's language and
// workspace root, so that the first edit after a read does not pay the
// server's start (gopls takes about 2 s cold). It never waits and never
// reports: a missing server is said on the first edit, as before. A
// server that already runs, or has been given up on, is left as it is.
func (m *Manager) Warm(path string) {
	if m == nil {
		return
	}
	path = m.abs(path)
	cfg, _, ok := m.serverFor(fileType(path))
	if !ok {
		return
	}
	root := findRoot(filepath.Dir(path), cfg.RootMarkers, m.rootFallback(path))
	done, cancel := context.WithCancel(context.Background())
	cancel() // client starts the server and returns at once
	_, _ = m.client(done, cfg, root)
}
