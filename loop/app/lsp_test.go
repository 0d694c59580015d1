package app

import (
	"testing"

	"talaria/loop/config"
)

func TestLSPServersMergeTheConfigIntoTheBuiltins(t *testing.T) {
	off := false
	got, warnings := lspServers(config.LSP{Servers: map[string]config.LSPServer{
		"gopls":   {Command: []string{"/opt/gopls", "-remote=auto"}},
		"clangd":  {Enabled: &off},
		"zls":     {Command: []string{"zls"}, Filetypes: []string{"zig"}},
		"nothing": {Filetypes: []string{"x"}},
	}})
	byName := map[string]int{}
	for i, s := range got {
		byName[s.Name] = i
	}
	if _, ok := byName["clangd"]; ok {
		t.Error("enabled: false kept clangd")
	}
	if i, ok := byName["zls"]; !ok || i != 0 {
		t.Errorf("an added server goes first: %+v", got)
	}
	g := got[byName["gopls"]]
	if g.Command[0] != "/opt/gopls" || g.Filetypes[0] != "go" || g.RootMarkers[1] != "go.mod" {
		t.Errorf("gopls override: %+v", g)
	}
	if _, ok := byName["nothing"]; ok || len(warnings) != 1 {
		t.Errorf("a server without a command: %v", warnings)
	}
}
