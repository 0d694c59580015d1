package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// schema describes which keys a YAML mapping may hold.
type schema struct {
	fields map[string]*schema // nil for a leaf
	elem   *schema            // for lists and free-form maps of structs
	free   bool               // a map with arbitrary keys (mcp_servers, env)
}

// schemaOf derives the allowed keys from the yaml tags of v's type.
func schemaOf(v any) *schema {
	return schemaOfType(reflect.TypeOf(v))
}

func schemaOfType(t reflect.Type) *schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(time.Duration(0)) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		s := &schema{fields: map[string]*schema{}}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			s.fields[name] = schemaOfType(f.Type)
		}
		return s
	case reflect.Slice:
		if e := schemaOfType(t.Elem()); e != nil {
			return &schema{elem: e}
		}
	case reflect.Map:
		return &schema{free: true, elem: schemaOfType(t.Elem())}
	}
	return nil
}

// checkKeys walks the YAML tree and reports the first key the schema does
// not know, with its dotted path and line.
func checkKeys(n *yaml.Node, s *schema, path, file string) error {
	if s == nil || n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		if s.fields == nil && !s.free {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			if s.free {
				if err := checkKeys(v, s.elem, key, file); err != nil {
					return err
				}
				continue
			}
			sub, ok := s.fields[k.Value]
			if !ok {
				return &Error{File: file, Key: key, Line: k.Line, Msg: "unknown key" + suggest(k.Value, s)}
			}
			if err := checkKeys(v, sub, key, file); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := checkKeys(c, s.elem, fmt.Sprintf("%s[%d]", path, i), file); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// suggest names the known keys of the mapping, to help fix a typo.
func suggest(bad string, s *schema) string {
	known := make([]string, 0, len(s.fields))
	for k := range s.fields {
		known = append(known, k)
	}
	slices.Sort(known)
	if near := closestKey(bad, known); near != "" {
		return fmt.Sprintf(" (did you mean %s? known keys here: %s)", near, strings.Join(known, ", "))
	}
	return fmt.Sprintf(" (known keys here: %s)", strings.Join(known, ", "))
}

// decodeNode decodes each top-level key separately so a type error names
// its key.
func decodeNode(n *yaml.Node, cfg *Config, file string) error {
	if n.Kind != yaml.MappingNode {
		return &Error{File: file, Line: n.Line, Msg: "the top level must be a mapping of keys"}
	}
	if err := n.Decode(cfg); err != nil {
		key, line := locateTypeError(n, err)
		msg := oneLine(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:"))
		if line > 0 {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
		}
		return &Error{File: file, Key: key, Line: line, Msg: msg}
	}
	return nil
}

// locateTypeError finds the key whose value failed to decode, by the line
// number yaml reports.
func locateTypeError(n *yaml.Node, err error) (string, int) {
	var line int
	if _, scanErr := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:")), "line %d:", &line); scanErr != nil || line == 0 {
		return "", 0
	}
	if key := keyAtLine(n, "", line); key != "" {
		return key, line
	}
	return "", line
}

func keyAtLine(n *yaml.Node, path string, line int) string {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			if v.Line == line && (v.Kind == yaml.ScalarNode || v.Style&yaml.FlowStyle != 0) {
				if deeper := keyAtLine(v, key, line); deeper != "" {
					return deeper
				}
				return key
			}
			if found := keyAtLine(v, key, line); found != "" {
				return found
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.Line == line {
				return fmt.Sprintf("%s[%d]", path, i)
			}
			if found := keyAtLine(c, fmt.Sprintf("%s[%d]", path, i), line); found != "" {
				return found
			}
		}
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
