package loop

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"talaria/loop/compress"
	"talaria/providers"
)

// TestEstimateCacheMatchesEstimate checks the incremental estimate against
// compress.Estimate through growth, edits by new value and in place,
// deletions, replay data coming and going, and a shrinking history.
func TestEstimateCacheMatchesEstimate(t *testing.T) {
	var c estimateCache
	tools := []providers.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	msgs := history(60)
	check := func(step string) {
		t.Helper()
		if got, want := c.estimate(msgs, tools), compress.Estimate(msgs, tools); got != want {
			t.Fatalf("%s: cached estimate %d, compress.Estimate %d", step, got, want)
		}
	}
	check("first")
	check("unchanged")
	msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: "a longer question — with ünïcode and 漢字"})
	check("grown")
	msgs[3].Content += " edited"
	check("edited by value")
	msgs[1].ToolCalls[0].Arguments = `{"path":"a/much/longer/path/than/before.go"}` // in place
	check("tool call edited in place")
	msgs[4].Reasoning, msgs[4].ReasoningReplay = "thinking it over", json.RawMessage(`{"x":1}`)
	check("replay added")
	msgs[4].ReasoningReplay = nil
	check("replay dropped")
	msgs = append(msgs[:10], msgs[20:]...)
	check("middle removed")
	msgs = msgs[:5]
	check("shrunk")
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		if len(msgs) == 0 {
			msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: "again"})
		}
		j := r.IntN(len(msgs))
		switch r.IntN(3) {
		case 0:
			msgs[j].Content = fmt.Sprint(r.Int())
		case 1:
			msgs = append(msgs, providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprint("c", i), Content: "ok"})
		default:
			msgs = append(msgs[:j], msgs[j+1:]...)
		}
		check(fmt.Sprint("random step ", i))
	}
	msgs = nil
	check("empty")
}
