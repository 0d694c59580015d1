package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// callTool runs t with args marshalled to JSON, in a session rooted at dir.
func callTool(t *testing.T, tool Tool, dir string, args map[string]any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), &Env{Cwd: dir}, raw)
}

// mustOK fails the test when r is an error result.
func mustOK(t *testing.T, r Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result:\n%s", r.Output)
	}
	return r.Output
}

// mustErr fails the test unless r is an error result containing all of
// wants.
func mustErr(t *testing.T, r Result, wants ...string) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("expected an error result, got:\n%s", r.Output)
	}
	for _, w := range wants {
		if !strings.Contains(r.Output, w) {
			t.Errorf("error %q does not contain %q", r.Output, w)
		}
	}
	return r.Output
}

// writeFiles creates files (path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuiltinsMetadata(t *testing.T) {
	want := []string{"read_file", "write_file", "patch", "search_files", "terminal",
		"process", "clarify", "todo", "session_search", "delegate_task", "web_fetch", "diagnostics"}
	ts := Builtins()
	if len(ts) != len(want) {
		t.Fatalf("Builtins() has %d tools, want %d", len(ts), len(want))
	}
	for i, tool := range ts {
		if tool.Name() != want[i] {
			t.Errorf("tool %d is %q, want %q", i, tool.Name(), want[i])
		}
		if len(tool.Description()) < 80 {
			t.Errorf("%s: description too short to teach the model", tool.Name())
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Fatalf("%s: schema is not valid JSON: %v", tool.Name(), err)
		}
		if schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: schema must be an object with properties", tool.Name())
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name(), r)
			}
		}
	}
}

func TestSchemaArgumentNames(t *testing.T) {
	want := map[string][]string{
		"read_file":    {"path", "offset", "limit"},
		"write_file":   {"path", "content"},
		"patch":        {"mode", "path", "old_string", "new_string", "replace_all", "patch"},
		"search_files": {"pattern", "target", "path", "file_glob", "limit", "offset", "output_mode", "context"},
		"terminal":     {"command", "timeout", "workdir", "background"},
		// process takes Hermes's list|poll|log|wait|kill subset.
		"process":        {"action", "id", "timeout", "offset", "limit"},
		"clarify":        {"question", "choices"},
		"todo":           {"todos", "merge"},
		"session_search": {"query", "limit", "session_id"},
		"delegate_task":  {"goal", "context", "tasks"},
		"web_fetch":      {"url", "max_bytes"},
		"diagnostics":    {"path"},
	}
	for _, tool := range Builtins() {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Fatal(err)
		}
		for _, name := range want[tool.Name()] {
			if _, ok := schema.Properties[name]; !ok {
				t.Errorf("%s: schema lacks argument %q", tool.Name(), name)
			}
		}
		if len(schema.Properties) != len(want[tool.Name()]) {
			t.Errorf("%s: schema has %d properties, want %d", tool.Name(), len(schema.Properties), len(want[tool.Name()]))
		}
	}
}

func TestRegistryCallErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "hello\n"})
	r := NewRegistry(Builtins()...)
	env := &Env{Cwd: dir}
	ctx := context.Background()

	mustErr(t, r.Call(ctx, env, "no_such_tool", `{}`), "does not exist", "read_file")
	mustErr(t, r.Call(ctx, env, "read_file", `{"path": "a.txt"`), "Invalid JSON")
	mustErr(t, r.Call(ctx, env, "read_file", `["a.txt"]`), "Invalid JSON")

	cases := []struct {
		tool, args string
		wants      []string
	}{
		{"read_file", `{"path": 5}`, []string{`"path"`, "string", "number"}},
		{"read_file", `{"path": "a.txt", "offset": "abc"}`, []string{`"offset"`, "integer"}},
		{"read_file", `{"path": "a.txt", "limit": 2.5}`, []string{`"limit"`, "integer"}},
		{"read_file", `{}`, []string{`"path" is required`}},
		{"write_file", `{"path": "b.txt", "content": {"x": 1}}`, []string{`"content"`, "string", "object"}},
		{"write_file", `{"path": "b.txt"}`, []string{`"content" is required`}},
		{"patch", `{"mode": "replace", "path": "a.txt", "old_string": "x", "new_string": "y", "replace_all": "maybe"}`, []string{`"replace_all"`, "boolean"}},
		{"patch", `{"mode": ["replace"]}`, []string{`"mode"`, "string", "array"}},
		{"search_files", `{"pattern": "x", "limit": [1]}`, []string{`"limit"`, "integer"}},
		{"search_files", `{"pattern": "x", "context": true}`, []string{`"context"`, "integer", "boolean"}},
		{"terminal", `{"command": ["ls"]}`, []string{`"command"`, "string"}},
		{"terminal", `{"command": "true", "background": 3}`, []string{`"background"`, "boolean"}},
	}
	for _, c := range cases {
		t.Run(c.tool+c.args, func(t *testing.T) {
			mustErr(t, r.Call(ctx, env, c.tool, c.args), c.wants...)
		})
	}

	// Lenient forms models send: numeric strings and string booleans.
	out := mustOK(t, r.Call(ctx, env, "read_file", `{"path": "a.txt", "offset": "1", "limit": 10.0}`))
	if !strings.Contains(out, "1|hello") {
		t.Errorf("lenient read_file output = %q", out)
	}
	// An empty argument string means {}.
	mustErr(t, r.Call(ctx, env, "terminal", ""), `"command" is required`)
}

func TestResolvePath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	cases := []struct{ cwd, in, want string }{
		{"/work", "a/b.go", "/work/a/b.go"},
		{"/work", "./a/../b.go", "/work/b.go"},
		{"/work", "/etc//hosts", "/etc/hosts"},
		{"/work", "~", home},
		{"/work", "~/x.txt", filepath.Join(home, "x.txt")},
		{"/work", "~user/x", "/work/~user/x"},
		{"/work", "  spaced.txt ", "/work/spaced.txt"},
	}
	for _, c := range cases {
		got, err := ResolvePath(c.cwd, c.in)
		if err != nil || got != c.want {
			t.Errorf("ResolvePath(%q, %q) = %q, %v; want %q", c.cwd, c.in, got, err, c.want)
		}
	}
	if _, err := ResolvePath("/work", "  "); err == nil {
		t.Error("empty path: want an error")
	}
}

func TestDisplayPath(t *testing.T) {
	if got := displayPath("/work", "/work/a/b.go"); got != "a/b.go" {
		t.Errorf("got %q", got)
	}
	if got := displayPath("/work", "/workshop/x"); got != "/workshop/x" {
		t.Errorf("got %q", got)
	}
	if got := displayPath("/", "/etc/hosts"); got != "etc/hosts" {
		t.Errorf("got %q", got)
	}
}

func TestLooksBinary(t *testing.T) {
	cases := []struct {
		data     string
		complete bool
		want     bool
	}{
		{"plain text\n", true, false},
		{"caf\xc3\xa9", true, false},
		{"nul\x00byte", true, true},
		{"bad \xff utf8", true, true},
		{"cut rune \xe2\x82", false, false}, // partial sniff: rune split by the cut
		{"cut rune \xe2\x82", true, true},   // whole file: really invalid
	}
	for _, c := range cases {
		if got := looksBinary([]byte(c.data), c.complete); got != c.want {
			t.Errorf("looksBinary(%q, %v) = %v, want %v", c.data, c.complete, got, c.want)
		}
	}
}

func TestAvailableBuiltins(t *testing.T) {
	names := func(ts []Tool) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name())
		}
		return strings.Join(out, " ")
	}
	if got := names(AvailableBuiltins(&Env{})); got != "read_file write_file patch search_files terminal clarify web_fetch" {
		t.Errorf("bare env: %s", got)
	}
	full := &Env{Processes: NewProcessManager(), Todos: NewTodoList(), Sessions: &fakeSearcher{},
		Delegate: func(context.Context, DelegateTask) DelegateResult { return DelegateResult{} }, Edits: &recordingChecker{}}
	defer full.Processes.Close()
	if got, want := names(AvailableBuiltins(full)), names(Builtins()); got != want {
		t.Errorf("full env: %s, want %s", got, want)
	}
}
