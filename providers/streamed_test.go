package providers

import (
	"reflect"
	"testing"
)

// TestStreamed checks that pieces are kept in order and each non-empty one
// is reported once, with its kind; a nil OnDelta is allowed.
func TestStreamed(t *testing.T) {
	var got []Delta
	s := Streamed{OnDelta: func(d Delta) { got = append(got, d) }}
	s.AddReasoning("think ")
	s.AddText("")
	s.AddText("hello ")
	s.AddReasoning("")
	s.AddReasoning("more")
	s.AddText("world")
	want := []Delta{{Kind: DeltaReasoning, Text: "think "}, {Kind: DeltaText, Text: "hello "}, {Kind: DeltaReasoning, Text: "more"}, {Kind: DeltaText, Text: "world"}}
	if !reflect.DeepEqual(got, want) || s.Content() != "hello world" || s.Reasoning() != "think more" {
		t.Fatalf("deltas %v, content %q, reasoning %q", got, s.Content(), s.Reasoning())
	}
	var quiet Streamed
	quiet.AddText("x")
	if quiet.Content() != "x" {
		t.Fatal("a Streamed without OnDelta lost the text")
	}
}

// TestStreamedResponse checks the shared start of an assembled response:
// the model a later chunk leaves empty is kept, and the finish table maps
// known values, gives FinishOther to the rest and keeps "" empty.
func TestStreamedResponse(t *testing.T) {
	var s Streamed
	s.AddText("hi")
	s.SetModel("m-1")
	s.SetModel("")
	reasons := FinishReasons{"end_turn": FinishStop, "max_tokens": FinishLength, FinishOther: FinishError}
	r := s.Response("max_tokens", reasons.Map("max_tokens"))
	if r.Content != "hi" || r.Model != "m-1" || r.RawFinishReason != "max_tokens" || r.FinishReason != FinishLength {
		t.Fatalf("response %+v", r)
	}
	for raw, want := range map[string]string{"end_turn": FinishStop, "": "", "new_value": FinishError, "END_TURN": FinishError} {
		if got := reasons.Map(raw); got != want {
			t.Errorf("Map(%q) = %q, want %q", raw, got, want)
		}
	}
}
