package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// ollamaRun runs one headless --json turn of the binary against o with the
// given model section (provider, name, base_url and extra keys).
func ollamaRun(t *testing.T, o *pt.Ollama, provider, extra, prompt string) (run, []map[string]any) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	dir := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "model:\n  provider: " + provider + "\n  name: qwen3:latest\n  base_url: " + o.URL() + "\n" + extra
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "-p", prompt, "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + dir}
	cmd.Dir = cwd
	r := runCmd(t, cmd)
	return r, events(t, r.stdout)
}

// finished returns the turn.finished event of evs.
func finished(t *testing.T, evs []map[string]any) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e["type"] == "turn.finished" {
			return e
		}
	}
	t.Fatalf("no turn.finished in %d events", len(evs))
	return nil
}

// Issue 30 through the binary: a 4,096-token runtime context refuses the
// turn before any chat request; /api/show's num_ctx is read when nothing is
// loaded; model.ollama_num_ctx reaches the server; a server that is not
// Ollama is used as before.
func TestOllamaRuntimeContextEndToEnd(t *testing.T) {
	long := "hello " + strings.Repeat("and more words ", 1500)

	t.Run("loaded_4096_refused", func(t *testing.T) {
		o := pt.NewOllama(t)
		o.Loaded = 4096
		r, evs := ollamaRun(t, o, "ollama", "", long)
		f := finished(t, evs)
		if r.code != 1 || f["exit_reason"] != "ollama_runtime_context_too_small" {
			t.Fatalf("exit %d, turn.finished %v\nstderr: %s", r.code, f, r.stderr)
		}
		if n := o.Hits("/v1/chat/completions") + o.Hits("/api/chat"); n != 0 {
			t.Fatalf("%d chat requests were sent for a refused turn", n)
		}
		if !strings.Contains(r.stdout+r.stderr, "model.ollama_num_ctx") {
			t.Errorf("the explanation does not say how to raise the context:\n%s\n%s", r.stdout, r.stderr)
		}
	})

	t.Run("not_loaded_show_num_ctx", func(t *testing.T) {
		o := pt.NewOllama(t)
		o.NumCtx = 4096
		r, evs := ollamaRun(t, o, "ollama", "", long)
		if f := finished(t, evs); f["exit_reason"] != "ollama_runtime_context_too_small" {
			t.Fatalf("exit %d, turn.finished %v\nstderr: %s", r.code, f, r.stderr)
		}
		if o.Hits("/api/show") == 0 {
			t.Fatal("/api/show was never asked")
		}
	})

	t.Run("num_ctx_configured_reaches_server", func(t *testing.T) {
		o := pt.NewOllama(t)
		o.Loaded, o.Max = 4096, 131072
		r, evs := ollamaRun(t, o, "ollama", "  ollama_num_ctx: 65536\n", long)
		if f := finished(t, evs); r.code != 0 || f["completed"] != true {
			t.Fatalf("exit %d, turn.finished %v\nstderr: %s", r.code, f, r.stderr)
		}
		chats := o.NativeChats()
		if len(chats) == 0 {
			t.Fatal("no native /api/chat request")
		}
		opts, _ := chats[0]["options"].(map[string]any)
		if n, _ := opts["num_ctx"].(float64); n != 65536 {
			t.Fatalf("options = %v, want num_ctx 65536", opts)
		}
	})

	t.Run("not_ollama_as_before", func(t *testing.T) {
		o := pt.NewOllama(t)
		o.Version, o.Loaded = "", 4096 // no /api/version: vLLM, llama.cpp
		r, evs := ollamaRun(t, o, "custom", "", long)
		if f := finished(t, evs); r.code != 0 || f["completed"] != true {
			t.Fatalf("exit %d, turn.finished %v\nstderr: %s", r.code, f, r.stderr)
		}
		if o.Hits("/v1/chat/completions") != 1 || o.Hits("/api/ps") != 0 {
			t.Fatalf("chat %d, /api/ps %d: a server that is not Ollama must be used as before",
				o.Hits("/v1/chat/completions"), o.Hits("/api/ps"))
		}
	})
}
