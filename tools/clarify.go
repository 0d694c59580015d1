package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// clarifyMaxChoices is the most choices a clarify question may offer.
const clarifyMaxChoices = 4

// clarifyHeadless is the result of clarify when no user can answer.
const clarifyHeadless = "No user is available to answer (headless run): decide yourself and state your assumption."

// ClarifyTool is the clarify tool: it asks the user a question, open or
// multiple-choice, through Env.Ask and returns the answer.
type ClarifyTool struct{}

// Name implements Tool.
func (ClarifyTool) Name() string { return "clarify" }

// Description implements Tool.
func (ClarifyTool) Description() string {
	return "Ask the user a question and wait for the answer. Use it only when you cannot proceed sensibly without their decision " +
		"(ambiguous requirements, a choice between approaches with real trade-offs, missing information you cannot find yourself); " +
		"do not ask for permission to do what was requested, and look things up with the other tools first. " +
		"Give up to 4 short `choices` for a multiple-choice question (the user can still type another answer), or omit them for an open question. " +
		"Ask one question at a time. In a headless run nobody answers: you are told to decide yourself."
}

// Schema implements Tool.
func (ClarifyTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "question": {"type": "string", "description": "The question, self-contained and specific."},
    "choices": {"type": "array", "items": {"type": "string"}, "maxItems": 4, "description": "Up to 4 suggested answers; omit for an open question."}
  },
  "required": ["question"],
  "additionalProperties": false
}`)
}

type clarifyArgs struct {
	Question string   `json:"question"`
	Choices  []string `json:"choices"`
}

// Run implements Tool.
func (ClarifyTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a clarifyArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("clarify: %v", err)
	}
	q := strings.TrimSpace(a.Question)
	if q == "" {
		return Errorf("clarify: argument \"question\" is required")
	}
	var choices []string
	for _, c := range a.Choices {
		if c = strings.TrimSpace(c); c != "" {
			choices = append(choices, c)
		}
	}
	if len(choices) > clarifyMaxChoices {
		return Errorf("clarify: at most %d choices are allowed, got %d; keep the main options (the user can always type another answer)", clarifyMaxChoices, len(choices))
	}
	if env == nil || env.Ask == nil {
		return Result{Output: clarifyHeadless}
	}
	answer, err := env.Ask(ctx, q, choices)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("clarify: the question was cancelled before the user answered")
		}
		return Errorf("clarify: the question could not be asked: %v. Decide yourself and state your assumption.", err)
	}
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return Result{Output: "The user gave no answer: decide yourself and state your assumption."}
	}
	return Result{Output: fmt.Sprintf("The user answered: %s", answer)}
}
