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
