package ext

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// checkSimpleAgrees fails when the fast path accepts a header that YAML
// reads differently.
func checkSimpleAgrees(t *testing.T, header string) {
	simple, ok := parseSimple([]byte(header), 2)
	if !ok {
		return
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(header), &m); err != nil {
		t.Fatalf("fast path accepted %q, YAML rejects it: %v", header, err)
	}
	if len(m) != len(simple.keys) {
		t.Fatalf("%q: fast path keys %v, YAML %v", header, simple.names, m)
	}
	for k, v := range m {
		n, ok := simple.keys[k]
		if !ok {
			t.Fatalf("%q: key %q missing from the fast path", header, k)
		}
		if v == nil {
			if n.Tag != "!!null" {
				t.Fatalf("%q: %q is null in YAML, %q in the fast path", header, k, n.Value)
			}
			continue
		}
		var want yaml.Node
		_ = yaml.Unmarshal([]byte(header), &want)
		got, _ := (&frontMatter{keys: simple.keys}).str(k)
		mapping := want.Content[0]
		for i := 0; i+1 < len(mapping.Content); i += 2 {
			if mapping.Content[i].Value == k && mapping.Content[i+1].Value != got {
				t.Fatalf("%q: %q is %q in YAML, %q in the fast path", header, k, mapping.Content[i+1].Value, got)
			}
		}
	}
}

var frontMatterSeeds = []string{
	"description: Review a pull request\nmodel: x\n",
	"description: a, b and c\ntools: Read, Grep, Bash\n",
	"name: x\ndescription:\n",
	"model: ~\n",
	"a: null\nb: true\nc: 12\n",
	"description: with: colon\n",
	"description: 'quoted'\n",
	"tools:\n  - Read\n",
	"k: v # comment\n",
	"k: v\n\nk2: v2\n",
	"k: \"x\"\n",
	"k: \"[file]\"\n",
	"k: 'a b'\n",
	"k: \"\"\n",
	"k: -x\n",
	"k: x\\y\n",
	"K_1-a: yes\n",
	"key:value\n",
}

func TestFrontMatterFastPathAgreesWithYAML(t *testing.T) {
	for _, h := range frontMatterSeeds {
		checkSimpleAgrees(t, h)
	}
	if _, ok := parseSimple([]byte(frontMatterSeeds[0]), 2); !ok {
		t.Error("the common case must take the fast path")
	}
}

func FuzzFrontMatterFastPath(f *testing.F) {
	for _, h := range frontMatterSeeds {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) { checkSimpleAgrees(t, header) })
}
