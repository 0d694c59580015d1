package config

import (
	"fmt"
	"time"
)

// LSP configures the language servers that check edited files.
type LSP struct {
	// Wait bounds the wait for a file's diagnostics after an edit
	// (0: 3s).
	Wait time.Duration `yaml:"wait"`
	// MaxDiagnostics caps the diagnostics appended to one edit's result
	// (0: 20).
	MaxDiagnostics int `yaml:"max_diagnostics"`
	// Servers override the built-in servers by name (gopls,
	// typescript-language-server, pyright, rust-analyzer, clangd) or add
	// new ones.
	Servers map[string]LSPServer `yaml:"servers"`
}

// LSPServer is one language server. Fields left empty keep the built-in
// server's (when the name is a built-in one).
type LSPServer struct {
	// Command is the program and its arguments, run on stdio.
	Command []string `yaml:"command"`
	// Filetypes are the extensions it checks, without the dot.
	Filetypes []string `yaml:"filetypes"`
	// RootMarkers mark a workspace root (go.mod, package.json, ...).
	RootMarkers []string `yaml:"root_markers"`
	// Enabled false turns the server off; nil leaves it on.
	Enabled *bool `yaml:"enabled"`
}

// validate checks the lsp section.
func (l LSP) validate(bad func(key, msg string) error) error {
	if l.Wait < 0 {
		return bad("lsp.wait", fmt.Sprintf("must be a duration such as 3s, got %s", l.Wait))
	}
	if l.MaxDiagnostics < 0 {
		return bad("lsp.max_diagnostics", fmt.Sprintf("must be 1 or more (0: the default 20), got %d", l.MaxDiagnostics))
	}
	for name, s := range l.Servers {
		for _, ft := range s.Filetypes {
			if ft == "" || ft[0] == '.' {
				return bad("lsp.servers."+name+".filetypes", fmt.Sprintf("give extensions without the dot (go, py), got %q", ft))
			}
		}
	}
	return nil
}
