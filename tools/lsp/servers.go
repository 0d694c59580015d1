package lsp

import (
	"os"
	"path/filepath"
	"strings"
)

// ServerConfig is one language server: the command that runs it on
// stdio, the file types (extensions without the dot) it checks and the
// files whose nearest directory is its workspace root.
type ServerConfig struct {
	// Name names the server in results and notes ("gopls").
	Name string
	// Command is the program and its arguments.
	Command []string
	// Filetypes are the extensions it checks, without the dot.
	Filetypes []string
	// RootMarkers are the files or directories that mark a workspace
	// root; the nearest directory above the edited file holding one is
	// the root (the session's directory when none does).
	RootMarkers []string
}

// DefaultServers returns the built-in servers, used when their program is
// on PATH.
func DefaultServers() []ServerConfig {
	return []ServerConfig{
		{Name: "gopls", Command: []string{"gopls"}, Filetypes: []string{"go"}, RootMarkers: []string{"go.work", "go.mod"}},
		{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"},
			Filetypes:   []string{"ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
		{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Filetypes: []string{"py", "pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Filetypes: []string{"rs"}, RootMarkers: []string{"Cargo.toml"}},
		{Name: "clangd", Command: []string{"clangd"}, Filetypes: []string{"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}},
	}
}

// languageIDs maps an extension to the LSP language identifier.
var languageIDs = map[string]string{
	"go": "go", "ts": "typescript", "mts": "typescript", "cts": "typescript", "tsx": "typescriptreact",
	"js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascriptreact",
	"py": "python", "pyi": "python", "rs": "rust", "c": "c", "h": "c",
	"cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp", "hxx": "cpp",
}

// languageID returns the LSP language identifier of a file type; the
// type itself when it has no known one.
func languageID(ext string) string {
	if id, ok := languageIDs[ext]; ok {
		return id
	}
	return ext
}

// fileType is the extension of path without the dot, lower case.
func fileType(path string) string {
	return strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
}

// findRoot returns the nearest directory from dir up holding one of
// markers; fallback when none does (or markers is empty).
func findRoot(dir string, markers []string, fallback string) string {
	if len(markers) == 0 {
		return fallback
	}
	for d := dir; ; {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return fallback
		}
		d = up
	}
}
