package config

import (
	"strings"
	"testing"
	"time"
)

func TestLSPConfig(t *testing.T) {
	cfg := Default()
	src := "lsp:\n  wait: 5s\n  max_diagnostics: 7\n  servers:\n    gopls: {enabled: false}\n    zls: {command: [zls], filetypes: [zig], root_markers: [build.zig]}\n"
	if err := Parse([]byte(src), "c.yaml", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.LSP.Wait != 5*time.Second || cfg.LSP.MaxDiagnostics != 7 || *cfg.LSP.Servers["gopls"].Enabled || cfg.LSP.Servers["zls"].Command[0] != "zls" {
		t.Fatalf("parsed: %+v", cfg.LSP)
	}
	for _, bad := range []string{"lsp:\n  wait: -1s\n", "lsp:\n  max_diagnostics: -2\n", "lsp:\n  servers:\n    x: {filetypes: [.go]}\n", "lsp:\n  timeout: 1s\n"} {
		c := Default()
		if err := Parse([]byte(bad), "c.yaml", &c); err == nil || !strings.Contains(err.Error(), "lsp") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
