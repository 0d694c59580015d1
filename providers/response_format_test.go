package providers

import (
	"encoding/json"
	"testing"
)

// TestStrictCompatible: strict only for schemas whose every object lists
// all properties as required and closes additionalProperties.
func TestStrictCompatible(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`:                                       true,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`:                                                                    false,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`:                 false,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"integer"}}}},"required":["a"],"additionalProperties":false}`: false,
		`{"type":"array","items":{"type":"string"}}`:                                                                                                 true,
		`not json`: false,
	} {
		if got := StrictCompatible(json.RawMessage(schema)); got != want {
			t.Errorf("%s: %v, want %v", schema, got, want)
		}
	}
	if SchemaName("my review!.v2") != "my_review_v2" || SchemaName("") != "output" {
		t.Errorf("SchemaName: %q %q", SchemaName("my review!.v2"), SchemaName(""))
	}
}
