package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Gemini's functionDeclarations[].parameters is an OpenAPI 3.0 Schema
// subset, not JSON Schema: depending on the API version, unknown keywords
// are a 400 ("Invalid JSON payload received. Unknown name
// \"additionalProperties\"", "Invalid format 'uri'", "properties: should be
// non-empty for OBJECT type", "items: missing field"). sanitizeSchema
// therefore keeps only the keys below, recursively, and rewrites the
// common JSON Schema idioms:
//
//   - kept: type, format (enum, date-time, int32, int64, float, double
//     only), title, description, nullable, enum (strings only), items,
//     properties, required (only names present in properties), anyOf,
//     minItems, maxItems, minProperties, maxProperties, minLength,
//     maxLength, minimum, maximum, pattern, example, propertyOrdering;
//   - rewritten: "type": ["T", "null"] → "type": "T", "nullable": true;
//     "const": "v" → "enum": ["v"]; oneOf → anyOf; allOf members are
//     merged into one schema; local "$ref"s (#/$defs/…, #/definitions/…)
//     are inlined, up to maxRefDepth deep; a schema without a type gets
//     one (object with properties, array with items, else string); an
//     array without items gets string items; a nested object without
//     properties (a free-form map) becomes a string described as holding
//     the JSON object;
//   - dropped: everything else, notably additionalProperties, $schema, $id,
//     $ref that cannot be inlined, $defs, definitions, default, examples,
//     not, if/then/else, patternProperties, exclusiveMinimum,
//     exclusiveMaximum, multipleOf, uniqueItems, readOnly, writeOnly,
//     deprecated, $comment, non-string enums, tuple-form items, and empty
//     "properties" objects.
//
// A top-level schema that ends up with no properties is left out of the
// declaration altogether (Gemini refuses an OBJECT with no properties).

// maxRefDepth bounds $ref inlining (recursive schemas stop there).
const maxRefDepth = 8

// keptScalar reports the keys copied as they are.
func keptScalar(k string) bool {
	switch k {
	case "title", "description", "nullable", "pattern", "example",
		"minItems", "maxItems", "minProperties", "maxProperties",
		"minLength", "maxLength", "minimum", "maximum", "propertyOrdering":
		return true
	}
	return false
}

// keptFormat reports the format values Gemini accepts.
func keptFormat(f string) bool {
	switch f {
	case "enum", "date-time", "int32", "int64", "float", "double":
		return true
	}
	return false
}

// sanitizeSchema returns the Gemini form of a tool's JSON Schema, or nil
// when the tool takes no parameters.
func sanitizeSchema(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("parameters is not a JSON object: %w", err)
	}
	s := &sanitizer{root: root}
	out := s.schema(root, 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	return json.Marshal(out)
}

// sanitizer holds the root schema, for resolving local $refs.
type sanitizer struct {
	root map[string]any
}

func (s *sanitizer) schema(in map[string]any, depth int) map[string]any {
	if ref, ok := in["$ref"].(string); ok {
		if target, ok := s.resolve(ref); ok && depth < maxRefDepth {
			return s.schema(overlay(target, in, "$ref"), depth+1)
		}
	}
	if all, ok := in["allOf"].([]any); ok && depth < maxRefDepth {
		merged := overlay(nil, in, "allOf")
		for _, sub := range all {
			m, ok := sub.(map[string]any)
			if !ok {
				continue
			}
			if ref, ok := m["$ref"].(string); ok {
				if target, ok := s.resolve(ref); ok {
					m = overlay(target, m, "$ref")
				}
			}
			merged = mergeSchema(merged, m)
		}
		return s.schema(merged, depth+1)
	}
	out := map[string]any{}
	for k, v := range in {
		switch {
		case keptScalar(k):
			out[k] = v
		case k == "type":
			s.setType(out, v)
		case k == "format":
			if f, ok := v.(string); ok && keptFormat(f) {
				out[k] = f
			}
		case k == "enum":
			if enum, ok := stringList(v); ok {
				out[k] = enum
			}
		case k == "const":
			if c, ok := v.(string); ok {
				if _, has := in["enum"]; !has {
					out["enum"] = []any{c}
				}
			}
		case k == "items":
			if m, ok := v.(map[string]any); ok {
				out[k] = s.sub(m, depth)
			}
		case k == "properties":
			if props := s.properties(v, depth); len(props) > 0 {
				out[k] = props
			}
		case k == "anyOf" || (k == "oneOf" && in["anyOf"] == nil):
			if list := s.schemaList(v, depth); len(list) > 0 {
				out["anyOf"] = list
			}
		}
	}
	if req, ok := in["required"].([]any); ok {
		props, _ := out["properties"].(map[string]any)
		var kept []any
		for _, r := range req {
			if name, ok := r.(string); ok && props[name] != nil {
				kept = append(kept, name)
			}
		}
		if len(kept) > 0 {
			out["required"] = kept
		}
	}
	fillType(out)
	return out
}

// fillType gives every schema the type Gemini requires: inferred from
// properties, items or enum, else "string"; an array gets string items
// when it declares none.
func fillType(out map[string]any) {
	if out["type"] == nil && out["anyOf"] == nil {
		switch {
		case out["properties"] != nil:
			out["type"] = "object"
		case out["items"] != nil:
			out["type"] = "array"
		default:
			out["type"] = "string"
		}
	}
	if t, _ := out["type"].(string); strings.EqualFold(t, "array") && out["items"] == nil {
		out["items"] = map[string]any{"type": "string"}
	}
}

// sub sanitizes a nested schema. A nested object without properties (a
// free-form map) cannot be declared to Gemini, which wants properties on
// every OBJECT: it becomes a string holding the JSON object, and its
// description says so.
func (s *sanitizer) sub(in map[string]any, depth int) map[string]any {
	out := s.schema(in, depth)
	if t, _ := out["type"].(string); strings.EqualFold(t, "object") && out["properties"] == nil {
		desc, _ := out["description"].(string)
		out = map[string]any{"type": "string", "description": strings.TrimSpace(desc + " (a JSON object, written as a string)")}
	}
	return out
}

// overlay returns base with the keys of top (except skip) on top of it.
func overlay(base, top map[string]any, skip string) map[string]any {
	out := make(map[string]any, len(base)+len(top))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range top {
		if k != skip {
			out[k] = v
		}
	}
	return out
}

// mergeSchema adds one allOf member to dst: properties are united,
// required lists joined, other keys kept from dst when both have them.
func mergeSchema(dst, src map[string]any) map[string]any {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst[k].(map[string]any)
			props = overlay(props, nil, "")
			if sp, ok := v.(map[string]any); ok {
				for name, sub := range sp {
					if _, has := props[name]; !has {
						props[name] = sub
					}
				}
			}
			dst[k] = props
		case "required":
			a, _ := dst[k].([]any)
			b, _ := v.([]any)
			dst[k] = append(append([]any(nil), a...), b...)
		default:
			if _, has := dst[k]; !has {
				dst[k] = v
			}
		}
	}
	return dst
}

// setType writes "type", turning ["T", "null"] into T plus nullable.
func (s *sanitizer) setType(out map[string]any, v any) {
	switch t := v.(type) {
	case string:
		out["type"] = t
	case []any:
		var types []string
		for _, x := range t {
			if name, ok := x.(string); ok {
				if name == "null" {
					out["nullable"] = true
				} else {
					types = append(types, name)
				}
			}
		}
		if len(types) > 0 {
			out["type"] = types[0]
		}
	}
}

func (s *sanitizer) properties(v any, depth int) map[string]any {
	in, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]any, len(in))
	for name, sub := range in {
		if m, ok := sub.(map[string]any); ok {
			out[name] = s.sub(m, depth)
		}
	}
	return out
}

func (s *sanitizer) schemaList(v any, depth int) []any {
	in, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []any
	for _, sub := range in {
		if m, ok := sub.(map[string]any); ok {
			out = append(out, s.sub(m, depth))
		}
	}
	return out
}

// resolve finds a local $ref target: #/$defs/Name or #/definitions/Name.
func (s *sanitizer) resolve(ref string) (map[string]any, bool) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := s.root[strings.Trim(prefix[1:], "/")].(map[string]any)
			target, ok := defs[name].(map[string]any)
			return target, ok
		}
	}
	return nil, false
}

// stringList returns v when it is a list of strings only.
func stringList(v any) ([]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return nil, false
		}
	}
	return list, true
}
