package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"talaria/loop"
	"talaria/persist"
	"talaria/providers"
)

// maxSchemaBytes caps an --output-schema file.
const maxSchemaBytes = 1 << 20

// ScriptFlags are the headless flags scripts bring from claude -p and
// codex exec that change how a session is opened.
type ScriptFlags struct {
	// AppendSystemPrompt (--append-system-prompt) is added to a new
	// session's system prompt, before its closing Model:/Provider: lines,
	// and stored with it.
	AppendSystemPrompt string
	// Fork (--fork-session) continues the -c/-r session's history in a new
	// session, leaving the old one as it was.
	Fork bool
	// MaxBudgetUSD (--max-budget-usd), when above 0, stops a turn before a
	// call that would pass it.
	MaxBudgetUSD float64
	// OutputSchema (--output-schema) is the schema the final answer must
	// be valid against; nil asks for none.
	OutputSchema *OutputSchema
}

// OutputSchema is a JSON Schema the final answer must satisfy, read from
// --output-schema FILE and validated with github.com/google/jsonschema-go.
type OutputSchema struct {
	raw      json.RawMessage
	name     string
	resolved *jsonschema.Resolved
}

// LoadOutputSchema reads and resolves the JSON Schema in path. A file that
// is not JSON, not a schema, or refers to a remote $ref is an error.
func LoadOutputSchema(path string) (*OutputSchema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxSchemaBytes+1)); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	if buf.Len() > maxSchemaBytes {
		return nil, fmt.Errorf("--output-schema %s: larger than %d bytes", path, maxSchemaBytes)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("--output-schema %s: not a JSON Schema: %v", path, err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s: %v", path, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %v", path, err)
	}
	name := s.Title
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return &OutputSchema{raw: compact.Bytes(), name: providers.SchemaName(name), resolved: res}, nil
}

// Format is the request's response format for the schema.
func (o *OutputSchema) Format() *providers.ResponseFormat {
	return &providers.ResponseFormat{Name: o.name, Schema: o.raw, Strict: providers.StrictCompatible(o.raw)}
}

// Instruction is the text added to the prompt: the schema, and that the
// final answer is the JSON value alone. Every wire gets it; for Anthropic
// and Bedrock it is the only request.
func (o *OutputSchema) Instruction() string {
	return "\n\n[talaria: output format] When you have finished, answer with a single JSON value valid against this JSON Schema, and nothing else (no prose, no code fence):\n" + string(o.raw)
}

// Check validates a final answer: the JSON value (a surrounding code
// fence is tolerated), valid against the schema. It returns the value,
// compacted.
func (o *OutputSchema) Check(text string) (json.RawMessage, error) {
	body := unfence(strings.TrimSpace(text))
	var v any
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the answer holds more than one JSON value")
	}
	if err := o.resolved.Validate(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(body)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// unfence strips one ``` or ```json fence around s.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := strings.TrimSuffix(s[3:], "```")
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[\"") {
		inner = inner[nl+1:] // the info string (json)
	}
	return strings.TrimSpace(inner)
}

// scriptFor builds the loop's Script of the flags. A USD budget needs the
// price of every model the chain may call: one without a known price is
// refused (nothing could be projected).
func scriptFor(sf ScriptFlags, chain *providers.FallbackChain) (loop.Script, error) {
	var sc loop.Script
	if o := sf.OutputSchema; o != nil {
		sc.ResponseFormat, sc.CheckFinal = o.Format(), o.Check
	}
	if sf.MaxBudgetUSD < 0 {
		return sc, usage("--max-budget-usd: must be above 0, got %v", sf.MaxBudgetUSD)
	}
	if sf.MaxBudgetUSD > 0 {
		for _, b := range chainBackends(chain) {
			if _, ok := providers.PriceOf(b.Model); !ok {
				return sc, usage("--max-budget-usd: the price of model %q (provider %s) is not known to talaria, so no call can be priced; drop --max-budget-usd or use --max-turns", b.Model, b.Provider)
			}
		}
		sc.CostBudget = loop.NewCostBudget(sf.MaxBudgetUSD)
	}
	return sc, nil
}

// chainBackends lists the primary and its fallbacks.
func chainBackends(c *providers.FallbackChain) []providers.Backend {
	if c == nil {
		return nil
	}
	return c.Backends()
}

// withAppendedPrompt puts text into a system prompt before its closing
// Model:/Provider: lines (which a fallback rewrites and so must stay last).
func withAppendedPrompt(prompt, text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return prompt
	}
	section := "\n# Appended instructions (--append-system-prompt)\n" + text + "\n"
	i := strings.LastIndex(prompt, "\nModel: ")
	if i < 0 {
		return prompt + "\n" + section
	}
	return prompt[:i] + section + prompt[i:]
}

// forkRecord starts a new session holding rec's history (--fork-session):
// its system prompt (runtime lines updated to this run's backend, plus
// --append-system-prompt) and messages are copied; rec is left as it was.
func (s *Session) forkRecord(rec *persist.Session, appendText string) ([]providers.Message, error) {
	msgs, err := s.Store.ResumeMessages(rec.ID)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	msgs = persist.RepairDangling(msgs)
	p, state, err := s.Store.SystemPrompt(rec.ID)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	var prompt string
	switch state {
	case persist.PromptPresent, persist.PromptEmpty:
		prompt = providers.RewriteRuntimeLines(*p, s.Backend.Provider, s.Backend.Model)
	default:
		prompt = s.buildPrompt(time.Now())
	}
	if err := s.createRecordPrompt(withAppendedPrompt(prompt, appendText)); err != nil {
		return nil, err
	}
	if len(msgs) > 0 {
		if err := s.Store.AppendMessages(s.Record.ID, msgs...); err != nil {
			return nil, &UsageError{Err: fmt.Errorf("--fork-session: copying the history of %s: %w", rec.ID, err)}
		}
	}
	s.Resumed = true
	s.Notice = strings.TrimPrefix(s.Notice+"; forked session "+rec.ID+" into "+s.Record.ID, "; ")
	return msgs, nil
}
