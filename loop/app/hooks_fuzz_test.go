package app

import (
	"encoding/json"
	"strings"
	"testing"

	"talaria/loop/ext"
)

// FuzzHookToolInput: whatever arguments the model sends, a hook that runs
// gets them as a JSON object on a stdin that marshals (never a silent
// "{}" in their place), or no hook runs and the tool refuses them.
func FuzzHookToolInput(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"command":"rm -rf /"}`, `{"command":"ls","command":"rm x"}`, `[1]`, `null`, `"x"`, `{"a":`, "{\"a\":\"\xff\"}", ` {"path":"a"} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		in, ok := hookToolInput(args)
		if !ok {
			var obj map[string]any
			if strings.TrimSpace(args) != "" && json.Unmarshal([]byte(args), &obj) == nil && obj != nil {
				t.Fatalf("a JSON object was refused: %q", args)
			}
			return
		}
		stdin, err := json.Marshal(ext.Input{ToolName: "terminal", ToolInput: in})
		if err != nil {
			t.Fatalf("stdin does not marshal for %q: %v", args, err)
		}
		var back struct {
			ToolInput map[string]any `json:"tool_input"`
		}
		if err := json.Unmarshal(stdin, &back); err != nil || back.ToolInput == nil {
			t.Fatalf("tool_input is not an object for %q: %s", args, stdin)
		}
	})
}
