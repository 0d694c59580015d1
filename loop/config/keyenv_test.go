package config

import (
	"reflect"
	"testing"
)

// TestResolveRecordsKeyVariables: the backend remembers which variables
// its keys came from, so an auth failure can name them.
func TestResolveRecordsKeyVariables(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-1", "KEY_B": "sk-2"}
	getenv := func(k string) string { return env[k] }
	b, err := Resolve(Model{Provider: "openai"}, getenv)
	if err != nil || !reflect.DeepEqual(b.APIKeyEnvs, []string{"OPENAI_API_KEY"}) {
		t.Fatalf("default: %v %v", b.APIKeyEnvs, err)
	}
	b, err = Resolve(Model{Provider: "openai", APIKeysEnv: []string{"OPENAI_API_KEY", "KEY_B"}}, getenv)
	if err != nil || !reflect.DeepEqual(b.APIKeyEnvs, []string{"OPENAI_API_KEY", "KEY_B"}) {
		t.Fatalf("pool: %v %v", b.APIKeyEnvs, err)
	}
}
