package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"talaria/tools"
)

// Permissions is the permissions: key: rules in Claude Code's syntax,
// TOOL or TOOL(SPECIFIER) (see tools.Rule). Deny beats ask beats allow.
type Permissions struct {
	// Allow lists calls that run without asking in the ask and auto-edit
	// modes (never a write of a protected path; never in read-only).
	Allow []string `yaml:"allow" json:"allow"`
	// Ask lists calls that are always asked for (except under yolo).
	Ask []string `yaml:"ask" json:"ask"`
	// Deny lists calls that never run, in every mode, yolo included.
	Deny []string `yaml:"deny" json:"deny"`
}

// Rules parses the three lists.
func (p Permissions) Rules() (tools.Rules, error) {
	return tools.ParsePermissions(p.Allow, p.Ask, p.Deny)
}

// Merge returns p with the rules of q added after its own.
func (p Permissions) Merge(q Permissions) Permissions {
	return Permissions{
		Allow: append(append([]string(nil), p.Allow...), q.Allow...),
		Ask:   append(append([]string(nil), p.Ask...), q.Ask...),
		Deny:  append(append([]string(nil), p.Deny...), q.Deny...),
	}
}

// validatePermissions reports the first malformed rule, naming its key
// (permissions.allow[2]) and the rule.
func validatePermissions(p Permissions, bad func(string, string) error) error {
	for _, l := range []struct {
		key  string
		list []string
	}{{"permissions.allow", p.Allow}, {"permissions.ask", p.Ask}, {"permissions.deny", p.Deny}} {
		for i, r := range l.list {
			if _, err := tools.ParseRule(r); err != nil {
				return bad(fmt.Sprintf("%s[%d]", l.key, i), err.Error())
			}
		}
	}
	return nil
}

// ProjectConfigFile is the project's own config, root/.talaria/config.yaml.
func ProjectConfigFile(root string) string {
	return filepath.Join(root, ".talaria", "config.yaml")
}

// ReadPermissions reads the permissions: key of a config file (a
// project's .talaria/config.yaml); a missing file has none. A malformed
// rule is an *Error naming the key and the rule.
func ReadPermissions(file string) (Permissions, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Permissions{}, nil
	}
	if err != nil {
		return Permissions{}, &Error{File: file, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	var doc struct {
		Permissions Permissions `yaml:"permissions"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Permissions{}, &Error{File: file, Key: "permissions", Msg: oneLine(err.Error())}
	}
	bad := func(key, msg string) error { return &Error{File: file, Key: key, Msg: msg} }
	if err := validatePermissions(doc.Permissions, bad); err != nil {
		return Permissions{}, err
	}
	return doc.Permissions, nil
}

// ReadClaudePermissions reads the "permissions" of a Claude Code
// settings.json (allow, ask, deny; its other keys such as defaultMode are
// ignored). A rule talaria cannot read is left out, and the error names
// each one left out (a deny rule left out is a rule that does not apply:
// the caller must show it); the rules that parse are returned with it.
func ReadClaudePermissions(file string) (Permissions, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Permissions{}, nil
	}
	if err != nil {
		return Permissions{}, &Error{File: file, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	var doc struct {
		Permissions Permissions `json:"permissions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Permissions{}, &Error{File: file, Key: "permissions", Msg: oneLine(err.Error())}
	}
	var out Permissions
	var skipped []string
	keep := func(key string, in []string, dst *[]string) {
		for i, r := range in {
			if _, err := tools.ParseRule(r); err != nil {
				skipped = append(skipped, fmt.Sprintf("%s[%d] %s", key, i, err))
				continue
			}
			*dst = append(*dst, r)
		}
	}
	keep("permissions.allow", doc.Permissions.Allow, &out.Allow)
	keep("permissions.ask", doc.Permissions.Ask, &out.Ask)
	keep("permissions.deny", doc.Permissions.Deny, &out.Deny)
	if len(skipped) > 0 {
		return out, &Error{File: file, Msg: "rules left out: " + strings.Join(skipped, "; ")}
	}
	return out, nil
}

// maxConfigFile bounds the config file AddAllowRule rewrites.
const maxConfigFile = 1 << 20

// AddAllowRule adds rule to permissions.allow of the config file (a
// project's .talaria/config.yaml), creating the file, its folder and the
// keys when missing; a rule already listed is not added twice. The file
// is edited as a YAML tree, so other keys, their order and comments
// stay, and replaced atomically (a temporary file renamed over it).
func AddAllowRule(file, rule string) error {
	if _, err := tools.ParseRule(rule); err != nil {
		return err
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	if len(data) > maxConfigFile {
		return fmt.Errorf("%s is larger than %d bytes; not rewriting it", file, maxConfigFile)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s does not parse, so the rule was not saved: %s", file, oneLine(err.Error()))
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("%s does not hold a mapping at the top; the rule was not saved", file)
	}
	perms, err := mappingChild(top, "permissions", yaml.MappingNode)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	allow, err := mappingChild(perms, "allow", yaml.SequenceNode)
	if err != nil {
		return fmt.Errorf("%s: permissions.%w", file, err)
	}
	for _, n := range allow.Content {
		if n.Kind == yaml.ScalarNode && n.Value == rule {
			return nil
		}
	}
	allow.Content = append(allow.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: rule})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	return WriteFileAtomic(file, buf.Bytes(), 0o644, 0o755)
}

// mappingChild returns the value of key in the mapping m, adding an empty
// one of kind when missing (or null); a value of another kind is an
// error.
func mappingChild(m *yaml.Node, key string, kind yaml.Kind) (*yaml.Node, error) {
	tag := map[yaml.Kind]string{yaml.MappingNode: "!!map", yaml.SequenceNode: "!!seq"}[kind]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		v := m.Content[i+1]
		if v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "") {
			*v = yaml.Node{Kind: kind, Tag: tag}
		}
		if v.Kind != kind {
			return nil, fmt.Errorf("%s is not a %s", key, map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[kind])
		}
		return v, nil
	}
	v := &yaml.Node{Kind: kind, Tag: tag}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v, nil
}

// WriteFileAtomic replaces file with data: a temporary file in the same
// folder, synced, then renamed over it, keeping the old file's mode (mode
// for a new one; its folder is made with dirMode). The user's config
// (trust) and a project's (saved rules) are both written through it.
func WriteFileAtomic(file string, data []byte, mode, dirMode os.FileMode) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename it is gone already
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, file)
}
