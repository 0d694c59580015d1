package app

import (
	"slices"
	"sort"

	"talaria/loop/config"
	"talaria/tools/lsp"
)

// lspServers merges the lsp.servers of the config into the built-in
// servers: a built-in name is overridden field by field, a new name is
// added (before the built-ins, so it wins for its file types), and
// enabled: false removes one. A new server without a command or file
// types is left out with a warning.
func lspServers(cfg config.LSP) ([]lsp.ServerConfig, []string) {
	builtin := lsp.DefaultServers()
	names := make([]string, 0, len(cfg.Servers))
	for n := range cfg.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var added, warnings []string
	var extra []lsp.ServerConfig
	for _, n := range names {
		s := cfg.Servers[n]
		i := slices.IndexFunc(builtin, func(b lsp.ServerConfig) bool { return b.Name == n })
		if s.Enabled != nil && !*s.Enabled {
			if i >= 0 {
				builtin = slices.Delete(builtin, i, i+1)
			}
			continue
		}
		if i < 0 {
			if len(s.Command) == 0 || len(s.Filetypes) == 0 {
				warnings = append(warnings, "lsp: server "+n+" needs a command and filetypes; left out")
				continue
			}
			extra = append(extra, lsp.ServerConfig{Name: n, Command: s.Command, Filetypes: s.Filetypes, RootMarkers: s.RootMarkers})
			added = append(added, n)
			continue
		}
		b := &builtin[i]
		if len(s.Command) > 0 {
			b.Command = s.Command
		}
		if len(s.Filetypes) > 0 {
			b.Filetypes = s.Filetypes
		}
		if s.RootMarkers != nil {
			b.RootMarkers = s.RootMarkers
		}
	}
	return append(extra, builtin...), warnings
}
