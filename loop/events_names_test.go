package loop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// findUp returns the first rel found in dir or a directory above it.
func findUp(dir, rel string) (string, bool) {
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

// contractEventTable returns the event types of CONTRACT.md's JSON Lines
// table.
func contractEventTable(text string) []string {
	_, rest, _ := strings.Cut(text, "## JSON Lines events")
	rest, _, _ = strings.Cut(rest, "\n## ")
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.]+)` \\|").FindAllStringSubmatch(rest, -1) {
		if m[1] != "type" {
			out = append(out, m[1])
		}
	}
	return out
}

// TestEventTableMatchesContract: every event type of CONTRACT.md's JSON
// Lines table is in the one table of event names, and every name in the
// table is documented, in CONTRACT.md or in README.md ("Beyond
// CONTRACT.md").
func TestEventTableMatchesContract(t *testing.T) {
	wd, _ := os.Getwd()
	readme, err := os.ReadFile(filepath.Join(wd, "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := string(readme)
	if p, ok := findUp(wd, filepath.Join("shared", "CONTRACT.md")); ok {
		contract, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		table := contractEventTable(string(contract))
		if len(table) < 17 {
			t.Fatalf("found only %d event types in %s: %v", len(table), p, table)
		}
		known := map[string]bool{}
		for _, n := range eventNames {
			known[n] = true
		}
		for _, n := range table {
			if !known[n] {
				t.Errorf("CONTRACT.md's event %s is not in the table", n)
			}
		}
		docs += string(contract)
	} else {
		// README documents only what goes beyond the contract: without
		// the contract beside the checkout (a clone elsewhere, as CI's)
		// there is nothing to check the names against.
		t.Skip("no shared/CONTRACT.md above this checkout: the event names cannot be checked against it")
	}
	for _, n := range eventNames {
		if !strings.Contains(docs, "`"+n+"`") && !strings.Contains(docs, "`"+n+" {") {
			t.Errorf("event %s is documented nowhere", n)
		}
	}
}

// TestEventTypeStampsEveryEvent: each type of the table marshals with its
// contract name once emitted, whatever its header said before.
func TestEventTypeStampsEveryEvent(t *testing.T) {
	seen := map[string]bool{}
	for typ, name := range eventNames {
		if seen[name] {
			t.Errorf("%s names two types", name)
		}
		seen[name] = true
		e := reflect.New(typ.Elem()).Interface().(Event)
		e.Meta().Type = "wrong"
		e.Meta().Type = EventType(e)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var h struct{ Type string }
		if json.Unmarshal(b, &h) != nil || h.Type != name {
			t.Errorf("%v marshals as %q, want %q", typ, h.Type, name)
		}
	}
}
