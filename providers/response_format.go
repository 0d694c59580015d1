package providers

import (
	"encoding/json"
	"regexp"
)

// ResponseFormat asks for a final answer that is JSON valid against a JSON
// Schema (--output-schema). Each wire asks for it the way it can: chat
// completions response_format {type: json_schema}, Responses text.format,
// Gemini responseMimeType/responseSchema; Anthropic and Bedrock have no
// such field here and rely on the instruction in the prompt and the
// loop's validation.
type ResponseFormat struct {
	// Name is the schema's name on the wire (letters, digits, _ and -, at
	// most 64: what OpenAI accepts); SchemaName makes one.
	Name string
	// Schema is the JSON Schema, as the user wrote it.
	Schema json.RawMessage
	// Strict asks for OpenAI's strict mode; only a schema that satisfies
	// its rules (StrictCompatible) may set it, or the request is refused.
	Strict bool
}

var schemaNameBad = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// SchemaName turns s (the schema's title or file name) into a wire name.
func SchemaName(s string) string {
	n := schemaNameBad.ReplaceAllString(s, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	if n == "" || n == "_" {
		return "output"
	}
	return n
}

// StrictCompatible reports whether schema meets OpenAI's strict-mode
// rules as far as they can be seen structurally: every object lists all
// its properties in required and sets additionalProperties to false. A
// schema that does not is sent with strict false (the answer is still
// validated).
func StrictCompatible(schema json.RawMessage) bool {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return false
	}
	return strictNode(v, 0)
}

func strictNode(v any, depth int) bool {
	if depth > 64 {
		return false
	}
	switch n := v.(type) {
	case []any:
		for _, e := range n {
			if !strictNode(e, depth+1) {
				return false
			}
		}
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok || n["type"] == "object" {
			if n["additionalProperties"] != false {
				return false
			}
			req := map[string]bool{}
			list, _ := n["required"].([]any)
			for _, r := range list {
				if s, ok := r.(string); ok {
					req[s] = true
				}
			}
			for k := range props {
				if !req[k] {
					return false
				}
			}
		}
		for _, e := range n {
			if !strictNode(e, depth+1) {
				return false
			}
		}
	}
	return true
}
