package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"talaria/loop/config"
	pt "talaria/providers/providertest"
)

// noKeys clears every provider key variable for the test (restored
// after it, even when Setup sets one).
func noKeys(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "AWS_BEARER_TOKEN_BEDROCK", "OPENAI_BASE_URL", "MY_PROXY_KEY"} {
		t.Setenv(k, "")
	}
}

// TestSetupStoresTypedKeyAndNextOpenUsesIt: the setup dialog's result
// with a typed key stores the key in $TALARIA_HOME/credentials.yaml with
// mode 0600 (never in config.yaml), writes provider and model into
// config.yaml keeping its other keys and comments, opens a session; a
// later Open in a fresh environment (a new process) uses both.
func TestSetupStoresTypedKeyAndNextOpenUsesIt(t *testing.T) {
	noKeys(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), t.TempDir()
	cfgPath := filepath.Join(home, "config.yaml")
	writeConfig(t, cfgPath, "# my settings\nagent:\n  max_iterations: 7 # keep it short\ndisplay:\n  theme: light\nmodel:\n  context_length: 64000\n")
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	defer w.Close()
	if _, err := w.Open(); !errors.Is(err, config.ErrNoProvider) {
		t.Fatalf("first open: %v", err)
	}
	const key = "sk-proj-typedSECRET0123456789"
	s, note, err := w.Setup(context.Background(), SetupRequest{Provider: "openai", BaseURL: srv.URL(), KeyEnv: "OPENAI_API_KEY", Key: key, Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend.Provider != "openai" || s.Backend.Model != "gpt-4o-mini" || w.Current() != s || strings.Contains(note, key) {
		t.Fatalf("session %+v, note %q", s.Backend, note)
	}
	fi, err := os.Stat(filepath.Join(home, KeysFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keys file: %v %v", fi, err)
	}
	data, _ := os.ReadFile(cfgPath)
	cfgText := string(data)
	if strings.Contains(cfgText, key) {
		t.Fatalf("the key is in config.yaml:\n%s", cfgText)
	}
	for _, want := range []string{"# my settings", "max_iterations: 7 # keep it short", "theme: light", "context_length: 64000", "provider: openai", "name: gpt-4o-mini", "base_url: " + srv.URL()} {
		if !strings.Contains(cfgText, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfgText)
		}
	}
	if _, err := config.Load(cfgPath, false); err != nil {
		t.Fatalf("the written config does not load: %v", err)
	}
	w.Close()

	// A new process: the environment has no key; Open reads the stored one.
	t.Setenv("OPENAI_API_KEY", "")
	next, err := Open(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if next.Backend.Model != "gpt-4o-mini" || len(next.Backend.APIKeys) != 1 || next.Backend.APIKeys[0] != key || next.Config.Agent.MaxIterations != 7 {
		t.Fatalf("next open: %+v", next.Backend)
	}
	// An exported variable wins over the stored key.
	t.Setenv("OPENAI_API_KEY", "sk-exported")
	again, err := Open(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Backend.APIKeys[0] != "sk-exported" {
		t.Fatalf("stored key over the exported one: %v", again.Backend.APIKeys)
	}
}

// TestSetupKeyFromVariableNeverWritten: a key taken from an environment
// variable is named in config.yaml (api_key_env, when it is not the
// provider's usual one) and its value is written nowhere under
// $TALARIA_HOME.
func TestSetupKeyFromVariableNeverWritten(t *testing.T) {
	noKeys(t)
	srv := pt.New(t)
	const key = "sk-from-the-environment-987654321"
	t.Setenv("MY_PROXY_KEY", key)
	home, cwd := t.TempDir(), t.TempDir()
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	defer w.Close()
	s, _, err := w.Setup(context.Background(), SetupRequest{Provider: "custom", BaseURL: srv.URL(), KeyEnv: "MY_PROXY_KEY", Model: "local-model"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Backend.APIKeys) != 1 || s.Backend.APIKeys[0] != key {
		t.Fatalf("backend keys: %v", s.Backend.APIKeys)
	}
	w.Close()
	fi, err := os.Stat(filepath.Join(home, "config.yaml"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new config.yaml: %v %v", fi, err)
	}
	var doc struct {
		Model map[string]string `yaml:"model"`
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Model["api_key_env"] != "MY_PROXY_KEY" || doc.Model["provider"] != "custom" {
		t.Fatalf("config.yaml: %s %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(home, KeysFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a keys file was written for a variable's key: %v", err)
	}
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("the key's value is in %s", p)
			}
		}
		return nil
	})
}

// TestSetupRefusesBadInput: what cannot be written is refused before
// anything is, with a message naming it.
func TestSetupRefusesBadInput(t *testing.T) {
	noKeys(t)
	home := t.TempDir()
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: t.TempDir()}, nil)
	defer w.Close()
	for _, req := range []SetupRequest{
		{Provider: "nope", Model: "m"},
		{Provider: "openai", Model: "two words"},
		{Provider: "openai", Model: "m", KeyEnv: "NOT-A-NAME"},
		{Provider: "openai", Model: "m", KeyEnv: "OPENAI_API_KEY", Key: "sk-a\nmodel:\n  provider: evil"},
		{Provider: "custom", Model: "m", BaseURL: "file:///etc/passwd"},
	} {
		if _, _, err := w.Setup(context.Background(), req); err == nil {
			t.Errorf("%+v was accepted", req)
		}
	}
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		if e.Name() == "config.yaml" || e.Name() == KeysFile {
			t.Errorf("%s was written for a refused request", e.Name())
		}
	}
}

// TestStoreKeyKeepsOthersAndTightens: storing a key keeps the keys of
// other variables and makes a file loosened by hand 0600 again.
func TestStoreKeyKeepsOthersAndTightens(t *testing.T) {
	home := t.TempDir()
	if _, err := StoreKey(home, "ANTHROPIC_API_KEY", "sk-ant-1"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, KeysFile)
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := StoreKey(home, "OPENAI_API_KEY", `sk-"quoted": #x`); err != nil {
		t.Fatal(err)
	}
	keys, err := readKeys(file)
	if err != nil || keys["ANTHROPIC_API_KEY"] != "sk-ant-1" || keys["OPENAI_API_KEY"] != `sk-"quoted": #x` {
		t.Fatalf("keys: %v %v", keys, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}
