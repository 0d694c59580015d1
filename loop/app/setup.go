package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"talaria/loop/config"
	"talaria/loop/port"
)

// KeysFile is the file under $TALARIA_HOME that keeps the keys typed in
// the setup dialog: a YAML mapping of variable name to key, mode 0600.
const KeysFile = "credentials.yaml"

// keysFileMax bounds what is read of the keys file.
const keysFileMax = 1 << 20

// envVarName is what a key's variable name must look like.
var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// SetupRequest is what the first-run setup dialog collected: a provider,
// its base URL (custom servers), the variable the key is read from and,
// when the user typed one, the key itself (stored in KeysFile under that
// variable's name), and a model. The screen's port carries it as it is.
type SetupRequest = port.SetupRequest

// checkSetup refuses what cannot be written: an unknown provider, a model
// name or URL with spaces, a variable name that is not one, a key with
// spaces or control characters.
func checkSetup(r SetupRequest) error {
	switch {
	case !slices.Contains(config.Providers(), r.Provider):
		return fmt.Errorf("provider %q is not one of %s", r.Provider, strings.Join(config.Providers(), ", "))
	case strings.TrimSpace(r.Model) == "" || strings.ContainsFunc(r.Model, unicode.IsSpace):
		return fmt.Errorf("model %q: give a model name without spaces", r.Model)
	case r.BaseURL != "" && !strings.HasPrefix(r.BaseURL, "http://") && !strings.HasPrefix(r.BaseURL, "https://"):
		return fmt.Errorf("base URL %q: it must start with http:// or https://", r.BaseURL)
	case strings.ContainsFunc(r.BaseURL, unicode.IsSpace):
		return fmt.Errorf("base URL %q has spaces", r.BaseURL)
	case r.KeyEnv != "" && !envVarName.MatchString(r.KeyEnv):
		return fmt.Errorf("%q is not an environment variable name", r.KeyEnv)
	case r.Key != "" && r.KeyEnv == "":
		return errors.New("a key needs the name of the variable to keep it under")
	case strings.ContainsFunc(r.Key, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }):
		return errors.New("the key has spaces or control characters: paste the key alone")
	}
	return nil
}

// configPath is the config file the flags read: --config, or
// $TALARIA_HOME/config.yaml.
func (w *Switcher) configPath() string {
	if w.flags.ConfigPath != "" {
		return w.flags.ConfigPath
	}
	return filepath.Join(Home(w.flags.Home), "config.yaml")
}

// Setup is the first-run setup dialog's result: it stores a typed key in
// $TALARIA_HOME/credentials.yaml (mode 0600; the process's environment
// gets it too), writes the provider and model into the config file
// (atomically, every other key and comment kept; never the key itself),
// and opens a new session with them, which becomes current. It returns
// the session and a line saying what was written where.
func (w *Switcher) Setup(ctx context.Context, req SetupRequest) (*Session, string, error) {
	req.Provider, req.Model, req.BaseURL = strings.TrimSpace(req.Provider), strings.TrimSpace(req.Model), strings.TrimSpace(req.BaseURL)
	if err := checkSetup(req); err != nil {
		return nil, "", err
	}
	if w.Current() != nil {
		return nil, "", errors.New("a session is open: /model PROVIDER/NAME switches its model")
	}
	home := Home(w.flags.Home)
	var notes []string
	if req.Key != "" {
		file, err := StoreKey(home, req.KeyEnv, req.Key)
		if err != nil {
			return nil, "", err
		}
		if err := os.Setenv(req.KeyEnv, req.Key); err != nil {
			return nil, "", err
		}
		notes = append(notes, fmt.Sprintf("key stored in %s as %s (mode 0600)", file, req.KeyEnv))
	}
	path := w.configPath()
	if err := WriteModelConfig(path, req); err != nil {
		return nil, "", fmt.Errorf("writing %s: %w", path, err)
	}
	notes = append([]string{fmt.Sprintf("wrote model.provider %s and model.name %s to %s", req.Provider, req.Model, path)}, notes...)
	f := w.flags
	f.Continue, f.Resume = false, ""
	f.Overrides.Provider, f.Overrides.Model, f.Overrides.BaseURL = "", "", "" // the file now says
	s, err := w.Switch(f)
	if err != nil {
		return nil, "", fmt.Errorf("%s, but opening a session with it failed: %w", strings.Join(notes, "; "), err)
	}
	return s, strings.Join(notes, "; "), nil
}

// SetupModels lists the models of the provider req sets up (the setup
// dialog's model step), with the typed key when there is one.
func SetupModels(ctx context.Context, cat *ModelCatalog, req SetupRequest) ([]string, error) {
	m := config.Model{Provider: req.Provider, BaseURL: req.BaseURL, APIKeyEnv: req.KeyEnv, Name: "-"}
	b, err := config.Resolve(m, getenvWith(req.KeyEnv, req.Key))
	if err != nil {
		return nil, err
	}
	return cat.List(ctx, b)
}

// WriteModelConfig sets model.provider and model.name (and model.base_url
// when req has one, model.api_key_env when req's variable is not the
// provider's usual one) in the config file at path, creating it (mode
// 0600) when missing. It edits the YAML tree, so the file's other keys,
// their order and comments stay; the write is atomic.
func WriteModelConfig(path string, req SetupRequest) error {
	var doc yaml.Node
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("not YAML: %w", err)
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return errors.New("the file is not a YAML mapping")
	}
	model := mappingValue(root, "model", yaml.MappingNode)
	if model.Kind != yaml.MappingNode {
		return errors.New("model: is not a mapping")
	}
	setScalar(model, "provider", req.Provider)
	setScalar(model, "name", req.Model)
	if req.BaseURL != "" {
		setScalar(model, "base_url", req.BaseURL)
	}
	if req.KeyEnv != "" && req.KeyEnv != config.Defaults(req.Provider).APIKeyEnv {
		setScalar(model, "api_key_env", req.KeyEnv)
		deleteKey(model, "api_keys_env")
	} else if req.KeyEnv != "" {
		deleteKey(model, "api_key_env") // the usual variable: no stale name overrides it
		deleteKey(model, "api_keys_env")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return config.WriteFileAtomic(path, buf.Bytes(), 0o600, 0o700)
}

// mappingValue returns the value of key in mapping m, adding an empty one
// of kind when missing (or null).
func mappingValue(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "") {
				*v = yaml.Node{Kind: kind, Tag: "!!map"}
			}
			return v
		}
	}
	v := &yaml.Node{Kind: kind, Tag: "!!map"}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v
}

// setScalar sets key in mapping m to the string value, keeping the key's
// place and comments when it is there.
func setScalar(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			v.Kind, v.Tag, v.Value, v.Style, v.Content = yaml.ScalarNode, "!!str", value, 0, nil
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

// deleteKey removes key from mapping m.
func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// StoreKey keeps key under the variable name in $TALARIA_HOME's keys
// file (mode 0600, its folder 0700), replacing an earlier key of that
// name and keeping the others. It returns the file's path.
func StoreKey(home, name, key string) (string, error) {
	if !envVarName.MatchString(name) {
		return "", fmt.Errorf("%q is not an environment variable name", name)
	}
	file := filepath.Join(home, KeysFile)
	keys, err := readKeys(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if keys == nil {
		keys = map[string]string{}
	}
	keys[name] = key
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# Keys typed in talaria's setup dialog, read into the environment when the\n# variable is not set. Keep this file private (mode 0600).\n")
	for _, n := range names {
		v, err := yaml.Marshal(keys[n])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s: %s", n, v)
	}
	// A file loosened by hand is tightened before the write keeps its mode.
	if fi, err := os.Stat(file); err == nil && fi.Mode().Perm() != 0o600 {
		if err := os.Chmod(file, 0o600); err != nil {
			return "", err
		}
	}
	if err := config.WriteFileAtomic(file, []byte(b.String()), 0o600, 0o700); err != nil {
		return "", fmt.Errorf("storing the key in %s: %w", file, err)
	}
	return file, nil
}

// readKeys reads the keys file: variable name to key.
func readKeys(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, keysFileMax+1)); err != nil {
		return nil, err
	}
	if buf.Len() > keysFileMax {
		return nil, fmt.Errorf("%s is over %d bytes", file, keysFileMax)
	}
	keys := map[string]string{}
	if err := yaml.Unmarshal(buf.Bytes(), &keys); err != nil {
		return nil, fmt.Errorf("%s: not a mapping of variable names to keys: %w", file, err)
	}
	return keys, nil
}

// applyStoredKeys puts the keys of $TALARIA_HOME's keys file into the
// environment, each only where its variable is unset or empty (an
// exported variable wins), so every wire, the fallback chain, masking
// and the command environment's scrubbing see them exactly as exported
// keys. A missing file is nothing to do; an unreadable one is an error.
func applyStoredKeys(home string) error {
	keys, err := readKeys(filepath.Join(home, KeysFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &UsageError{Err: err}
	}
	for name, key := range keys {
		if envVarName.MatchString(name) && key != "" && os.Getenv(name) == "" {
			if err := os.Setenv(name, key); err != nil {
				return err
			}
		}
	}
	return nil
}
