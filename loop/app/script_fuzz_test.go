package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOutputSchemaCheck feeds model answers to the --output-schema check:
// it never panics, and what it accepts is one valid JSON value that the
// schema accepts again.
func FuzzOutputSchemaCheck(f *testing.F) {
	p := filepath.Join(f.TempDir(), "s.json")
	schema := `{"type":"object","properties":{"verdict":{"type":"string","enum":["ok","bad"]},"items":{"type":"array","items":{"type":"integer"}}},"required":["verdict"]}`
	if err := os.WriteFile(p, []byte(schema), 0o644); err != nil {
		f.Fatal(err)
	}
	o, err := LoadOutputSchema(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"verdict":"ok"}`, "```json\n{\"verdict\":\"bad\",\"items\":[1]}\n```", "```", "``````", `{"verdict":"ok"} {"verdict":"ok"}`, `[`, "\x00", `{"verdict":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		out, err := o.Check(answer)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("accepted %q as %q: not JSON", answer, out)
		}
		if _, err := o.Check(string(out)); err != nil {
			t.Fatalf("accepted %q, but not its own output %q: %v", answer, out, err)
		}
	})
}
