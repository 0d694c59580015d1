package app

import (
	"maps"

	"talaria/loop/config"
)

// mergeMCP returns the configured MCP servers with extra joined (a
// same-named extra one replaces the configured one); the configured map
// is not changed.
func mergeMCP(configured, extra map[string]config.MCPServer) map[string]config.MCPServer {
	if len(extra) == 0 {
		return configured
	}
	out := maps.Clone(configured)
	if out == nil {
		out = make(map[string]config.MCPServer, len(extra))
	}
	maps.Copy(out, extra)
	return out
}
