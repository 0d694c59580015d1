package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseExecRequest: whatever a script writes on its channel, the
// parser never panics, and a request it accepts names a well-formed tool
// with an arguments object that the registry's own check (parseArgs)
// accepts too, so nothing reaches a tool that a direct call would not.
// The reply to any result is one valid JSON line. Seeds are under
// testdata/fuzz/FuzzParseExecRequest.
func FuzzParseExecRequest(f *testing.F) {
	for _, s := range []string{
		`{"tool":"read_file","args":{"path":"a.txt"}}`,
		`{"tool":"terminal","args":null}`,
		`{"tool":"x"}`,
		`{"tool":"write_file","args":{"path":"a","content":"\u0000\ud800"}}`,
		`{"tool":"a","args":[1]}`,
		`{"tool":"a","args":{},"extra":1}`,
		`{"tool":"../etc","args":{}}`,
		`null`, `[]`, `{"tool":1}`, `{"tool":"a","args":"{}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := parseExecRequest(line)
		if err == nil {
			if !execToolName.MatchString(req.Tool) {
				t.Fatalf("accepted tool name %q", req.Tool)
			}
			if _, err := parseArgs(string(req.Args)); err != nil {
				t.Fatalf("accepted args %q the registry refuses: %v", req.Args, err)
			}
		}
		rep := encodeExecReply(Result{Output: string(line), IsError: len(line)%2 == 0})
		if bytes.Count(rep, []byte("\n")) != 1 || rep[len(rep)-1] != '\n' || !json.Valid(rep[:len(rep)-1]) {
			t.Fatalf("reply is not one JSON line: %q", rep)
		}
		// The line reader gives back what was written, or drops an
		// over-long line whole.
		br := bufio.NewReaderSize(bytes.NewReader(append(bytes.ReplaceAll(line, []byte("\n"), nil), '\n')), 16)
		got, err := readExecLine(br, 64)
		want := bytes.ReplaceAll(line, []byte("\n"), nil)
		switch {
		case len(want) > 64:
			if err != errLineTooLong {
				t.Fatalf("over-long line: %v", err)
			}
		case err != nil || !bytes.Equal(got, want):
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	})
}

// TestExecModuleNames: tool names and parameters Python cannot spell
// still give callable functions (or are left out), never a module that
// does not compile; the excluded tools are absent.
func TestExecModuleNames(t *testing.T) {
	reg := NewRegistry(Builtins()...)
	reg.Register(fakeSchemaTool{name: "srv__get-item", schema: `{"type":"object","properties":{"from":{"type":"string"},"id":{"type":"integer"}},"required":["id"]}`})
	reg.Register(fakeSchemaTool{name: "_private", schema: `{}`})
	reg.Register(fakeSchemaTool{name: "9lives", schema: `not json`})
	src := execModule(reg.All())
	for _, want := range []string{"def srv__get_item(_args=None, **kwargs):", "def tool_9lives(", "def read_file(path, limit=None, offset=None):", `"ToolError"`} {
		if !strings.Contains(src, want) {
			t.Errorf("module lacks %q", want)
		}
	}
	for _, absent := range []string{"def clarify", "def delegate_task", "def execute_code", "def _private"} {
		if strings.Contains(src, absent) {
			t.Errorf("module has %q", absent)
		}
	}
}

// fakeSchemaTool is a tool with a given name and schema.
type fakeSchemaTool struct{ name, schema string }

func (f fakeSchemaTool) Name() string            { return f.name }
func (f fakeSchemaTool) Traits() Traits          { return Traits{} }
func (f fakeSchemaTool) Description() string     { return "a \"quoted\"\n'description' \\ with \u00e9" }
func (f fakeSchemaTool) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f fakeSchemaTool) Run(_ context.Context, _ *Env, args json.RawMessage) Result {
	return Result{Output: f.name + " " + string(args)}
}
