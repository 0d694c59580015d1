package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestResponseFormatIsTextFormat: a ResponseFormat goes out as the
// Responses API's text.format of type json_schema; none, no text field.
func TestResponseFormatIsTextFormat(t *testing.T) {
	tr := &transport{ep: providers.Endpoint{Model: "gpt-4.1"}}
	req := providertest.SimpleRequest()
	body, err := tr.buildBody(req)
	if err != nil || body.Text != nil {
		t.Fatalf("no format: %+v %v", body.Text, err)
	}
	req.ResponseFormat = &providers.ResponseFormat{Name: "review", Schema: json.RawMessage(`{"type":"object"}`), Strict: false}
	body, err = tr.buildBody(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body)
	if !strings.Contains(string(b), `"text":{"format":{"type":"json_schema","name":"review","schema":{"type":"object"},"strict":false}}`) {
		t.Fatalf("body %s", b)
	}
}
