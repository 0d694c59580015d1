package gemini

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSanitizeSchema covers the rewrites and removals documented in
// schema.go.
func TestSanitizeSchema(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{
			name: "pydantic-style $defs, $ref with sibling description, oneOf, allOf, numeric enum",
			in: `{"$defs":{"Mode":{"type":"string","enum":["fast","slow"],"title":"Mode"}},"type":"object","properties":{
				"mode":{"$ref":"#/$defs/Mode","description":"How."},
				"when":{"type":"string","format":"date-time"},
				"n":{"type":"integer","enum":[1,2,3],"format":"int32","multipleOf":2},
				"either":{"oneOf":[{"type":"string"},{"type":"integer","exclusiveMinimum":0}]},
				"both":{"allOf":[{"type":"string"}]},
				"tags":{"type":"array","items":{"type":"string","minLength":1},"uniqueItems":true,"maxItems":5},
				"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},
				"opts":{"type":"object","description":"Options.","properties":{},"additionalProperties":{"type":"string"}}
			},"required":["mode","opts"]}`,
			want: `{"properties":{"both":{"type":"string"},"either":{"anyOf":[{"type":"string"},{"type":"integer"}]},"mode":{"description":"How.","enum":["fast","slow"],"title":"Mode","type":"string"},"n":{"format":"int32","type":"integer"},"opts":{"description":"Options. (a JSON object, written as a string)","type":"string"},"pair":{"items":{"type":"string"},"type":"array"},"tags":{"items":{"minLength":1,"type":"string"},"maxItems":5,"type":"array"},"when":{"format":"date-time","type":"string"}},"required":["mode","opts"],"type":"object"}`,
		},
		{
			name: "definitions and a recursive $ref stop at the depth limit",
			in:   `{"type":"object","definitions":{"Node":{"type":"object","properties":{"child":{"$ref":"#/definitions/Node"},"v":{"type":"number"}}}},"properties":{"root":{"$ref":"#/definitions/Node"},"bad":{"$ref":"#/elsewhere"}}}`,
		},
		{
			name: "pydantic v1 allOf around a $ref, untyped and nullable members",
			in:   `{"type":"object","definitions":{"Base":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"properties":{"cfg":{"allOf":[{"$ref":"#/definitions/Base"},{"properties":{"b":{"type":["number","null"]},"a":{"type":"integer"}},"required":["b"]}],"description":"Config."},"any":{},"list":{"type":"array"}}}`,
			want: `{"properties":{"any":{"type":"string"},"cfg":{"description":"Config.","properties":{"a":{"type":"string"},"b":{"nullable":true,"type":"number"}},"required":["a","b"],"type":"object"},"list":{"items":{"type":"string"},"type":"array"}},"type":"object"}`,
		},
		{name: "no properties at all", in: `{"type":"object","additionalProperties":false}`, want: ``},
		{name: "null", in: `null`, want: ``},
		{name: "empty", in: ``, want: ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sanitizeSchema(json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && strings.Contains(tc.name, "recursive") {
				s := string(got)
				if strings.Contains(s, "$ref") || strings.Contains(s, "definitions") || strings.Count(s, `"child"`) != maxRefDepth {
					t.Errorf("recursive schema: %s", s)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
