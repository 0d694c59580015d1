package config

import (
	"strings"
	"testing"
)

// model.ollama_num_ctx reaches the backend, and an impossible value is a
// config error naming the key.
func TestOllamaNumCtx(t *testing.T) {
	b, err := Resolve(Model{Provider: "ollama", Name: "qwen3", OllamaNumCtx: 65536}, func(string) string { return "" })
	if err != nil || b.OllamaNumCtx != 65536 {
		t.Fatalf("Resolve: %+v %v", b, err)
	}
	bad := func(key, msg string) error { return &Error{Key: key, Msg: msg} }
	for _, n := range []int{-1, 100, 1 << 25} {
		err := validateModel(Model{Provider: "ollama", OllamaNumCtx: n}, "model", bad)
		if err == nil || !strings.Contains(err.Error(), "model.ollama_num_ctx") {
			t.Errorf("%d: %v", n, err)
		}
	}
	if err := validateModel(Model{Provider: "ollama", OllamaNumCtx: 65536}, "model", bad); err != nil {
		t.Errorf("65536: %v", err)
	}
}
