package providers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestEndpointBase checks the base URL rule every wire shares: spaces and
// trailing slashes trimmed, the default for an empty one, and a clear
// error quoting the configured value for anything but an http(s) URL.
func TestEndpointBase(t *testing.T) {
	for raw, want := range map[string]string{
		"":                         "https://def.example/v1",
		"  https://x.example/v1/ ": "https://x.example/v1",
		"http://127.0.0.1:8080//":  "http://127.0.0.1:8080",
	} {
		base, u, err := Endpoint{Provider: "p", BaseURL: raw}.Base("https://def.example/v1", "https://eg")
		if err != nil || base != want || u == nil || u.Host == "" {
			t.Errorf("Base(%q) = %q, %v, %v; want %q", raw, base, u, err, want)
		}
	}
	for _, raw := range []string{"localhost:8080", "ftp://x.example", "https://", "%zz"} {
		_, _, err := Endpoint{Provider: "p", BaseURL: raw}.Base("https://def.example", "https://eg")
		if err == nil || !strings.Contains(err.Error(), `p: base_url "`+raw+`" is not an http(s) URL`) || !strings.Contains(err.Error(), "https://eg") {
			t.Errorf("Base(%q) error %v", raw, err)
		}
	}
}

// TestEndpointModelAndClient checks the model a call goes to and the
// client that carries it.
func TestEndpointModelAndClient(t *testing.T) {
	ep := Endpoint{Model: "ep-model"}
	if m, err := ep.ModelFor(Request{Model: "req-model"}, ModelHint); m != "req-model" || err != nil {
		t.Errorf("request model: %q, %v", m, err)
	}
	if m, err := ep.ModelFor(Request{}, ModelHint); m != "ep-model" || err != nil {
		t.Errorf("endpoint model: %q, %v", m, err)
	}
	if _, err := (Endpoint{}).ModelFor(Request{}, "set it"); err == nil || err.Error() != "no model set; set it" {
		t.Errorf("no model: %v", err)
	}
	hc := &http.Client{}
	if (Endpoint{HTTPClient: hc}).Client() != hc || (Endpoint{}).Client() == nil {
		t.Error("Client ignores HTTPClient or returns nil")
	}
	le := LocalError("p", errors.New("bad request"))
	if le.Provider != "p" || le.Message != "bad request" || le.Status != 0 || ClassifyWith(le, ClassifyInput{}).Reason != ReasonLocalError {
		t.Errorf("LocalError %+v", le)
	}
}

// TestConvertTools checks the shared tool loop: no specs give nil, a
// nameless spec and conv's errors stop it, and the order is kept.
func TestConvertTools(t *testing.T) {
	name := func(ts *ToolSpec) (string, error) { return ts.Name, nil }
	if out, err := ConvertTools(nil, name); out != nil || err != nil {
		t.Errorf("no tools: %v, %v", out, err)
	}
	if _, err := ConvertTools([]ToolSpec{{Name: "a"}, {Description: "x"}}, name); err == nil || !strings.Contains(err.Error(), "without a name") {
		t.Errorf("nameless tool: %v", err)
	}
	params := func(ts *ToolSpec) (json.RawMessage, error) { return ts.WireParams() }
	if _, err := ConvertTools([]ToolSpec{{Name: "a", Parameters: json.RawMessage(`{`)}}, params); err == nil || !strings.Contains(err.Error(), `tool "a"`) {
		t.Errorf("invalid schema: %v", err)
	}
	out, err := ConvertTools([]ToolSpec{{Name: "b"}, {Name: "a"}}, name)
	if err != nil || len(out) != 2 || out[0] != "b" || out[1] != "a" {
		t.Errorf("order: %v, %v", out, err)
	}
}
