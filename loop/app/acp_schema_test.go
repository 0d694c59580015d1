package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// wireLog keeps the lines one side of an ACP connection wrote.
type wireLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wireLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *wireLog) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// acpSchema resolves one $defs entry of testdata/acp/schema.json.
type acpSchema struct {
	raw  map[string]any
	mu   sync.Mutex
	defs map[string]*jsonschema.Resolved
}

func loadACPSchema(t *testing.T) *acpSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/acp/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s := &acpSchema{defs: map[string]*jsonschema.Resolved{}}
	if err := json.Unmarshal(data, &s.raw); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *acpSchema) def(name string) (*jsonschema.Resolved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.defs[name]; r != nil {
		return r, nil
	}
	root := map[string]any{"$schema": s.raw["$schema"], "$defs": s.raw["$defs"], "$ref": "#/$defs/" + name}
	b, _ := json.Marshal(root)
	var sc jsonschema.Schema
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, err
	}
	r, err := sc.Resolve(nil)
	if err != nil {
		return nil, err
	}
	s.defs[name] = r
	return r, nil
}

// responseDefs names the schema of each agent method's result.
var responseDefs = map[string]string{
	"initialize": "InitializeResponse", "authenticate": "AuthenticateResponse", "session/new": "NewSessionResponse",
	"session/load": "LoadSessionResponse", "session/prompt": "PromptResponse", "session/set_mode": "SetSessionModeResponse",
	"session/close": "CloseSessionResponse",
}

// requestDefs names the schema of the params of what the agent asks or
// tells the client.
var requestDefs = map[string]string{
	"session/update": "SessionNotification", "session/request_permission": "RequestPermissionRequest",
	"fs/read_text_file": "ReadTextFileRequest", "fs/write_text_file": "WriteTextFileRequest",
}

// checkACPWire checks every line the agent wrote against the protocol's
// schema: notifications and requests by their method, results by the
// method of the client request they answer, errors as Error.
func checkACPWire(t *testing.T, s *acpSchema, client, agent *wireLog) {
	t.Helper()
	methods := map[string]string{}
	for _, l := range client.lines() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && len(m.ID) > 0 && m.Method != "" {
			methods[string(m.ID)] = m.Method
		}
	}
	n := 0
	for _, l := range agent.lines() {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("not a JSON-RPC 2.0 message on stdout: %s (%v)", l, err)
			continue
		}
		var def string
		var part json.RawMessage
		switch {
		case m.Method != "":
			def, part = requestDefs[m.Method], m.Params
		case len(m.Error) > 0:
			def, part = "Error", m.Error
		default:
			def, part = responseDefs[methods[string(m.ID)]], m.Result
		}
		if def == "" {
			t.Errorf("no schema for this message (method %q, id %s): %s", m.Method, m.ID, l)
			continue
		}
		if err := s.validate(def, part); err != nil {
			t.Errorf("%s does not match the schema: %v\n%s", def, err, l)
		}
		n++
	}
	t.Logf("%d agent messages checked against the ACP schema", n)
}

func (s *acpSchema) validate(def string, part json.RawMessage) error {
	r, err := s.def(def)
	if err != nil {
		return fmt.Errorf("schema %s: %v", def, err)
	}
	var v any
	if err := json.Unmarshal(part, &v); err != nil {
		return err
	}
	return r.Validate(v)
}

// TestACPSchemaCatchesBadMessages makes sure the checker is not a no-op:
// a tool_call with an unknown kind and a prompt result with an unknown
// stop reason fail it.
func TestACPSchemaCatchesBadMessages(t *testing.T) {
	s := loadACPSchema(t)
	good := `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"Read a","kind":"read","status":"pending"}}`
	if err := s.validate("SessionNotification", json.RawMessage(good)); err != nil {
		t.Fatalf("a good tool_call failed: %v", err)
	}
	for def, bad := range map[string]string{
		"SessionNotification": `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"x","kind":"teleport"}}`,
		"PromptResponse":      `{"stopReason":"bored"}`,
	} {
		if err := s.validate(def, json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted %s", def, bad)
		}
	}
}
