package gemini

import (
	"encoding/json"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestResponseFormatIsResponseSchema: without tools (or on Gemini 3) a
// ResponseFormat is responseMimeType application/json and the schema in
// Gemini's subset; with tools on an older model it is left to the prompt.
func TestResponseFormatIsResponseSchema(t *testing.T) {
	req := providertest.SimpleRequest()
	req.ResponseFormat = &providers.ResponseFormat{Name: "r", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`)}
	got, err := buildRequest(req, "gemini-2.5-flash")
	if err != nil {
		t.Fatal(err)
	}
	g := got.GenerationConfig
	if g == nil || g.ResponseMimeType != "application/json" || string(g.ResponseSchema) == "" {
		t.Fatalf("generationConfig %+v", g)
	}
	var schema map[string]any
	if err := json.Unmarshal(g.ResponseSchema, &schema); err != nil || schema["additionalProperties"] != nil {
		t.Fatalf("schema not sanitised: %s", g.ResponseSchema)
	}
	req.Tools = []providers.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	got, err = buildRequest(req, "gemini-2.5-flash")
	if err != nil || (got.GenerationConfig != nil && got.GenerationConfig.ResponseMimeType != "") {
		t.Fatalf("with tools on 2.5: %+v %v", got.GenerationConfig, err)
	}
	got, err = buildRequest(req, "gemini-3-pro-preview")
	if err != nil || got.GenerationConfig == nil || got.GenerationConfig.ResponseMimeType != "application/json" {
		t.Fatalf("with tools on 3: %+v %v", got.GenerationConfig, err)
	}
}
