package loop

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"talaria/loop/compress"
	"talaria/providers"
)

// TestRequestViewMatchesHistory checks that the kept request list is always
// the system message plus the history, and its estimate compress.Estimate's,
// through growth, edits reported with changed, a history cut shorter in
// place or replaced, a new system prompt, a consumer rewriting the system
// message or appending to the list, and random steps; and that no list it
// handed out is ever written by a later sync (copy-on-write), which
// providers.Request.AppendOnly promises.
func TestRequestViewMatchesHistory(t *testing.T) {
	var v requestView
	tools := []providers.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	hist := history(40)
	sys := "You are talaria."
	var got []providers.Message
	// handed are the latest lists sync returned, each with a copy of what
	// it held then: copy-on-write means sync never writes them again.
	type handout struct{ list, was []providers.Message }
	var handed []handout
	check := func(step string) {
		t.Helper()
		for _, h := range handed {
			if !reflect.DeepEqual(h.list, h.was) {
				t.Fatalf("%s: sync wrote a list it had handed out", step)
			}
		}
		got = v.sync(hist, sys)
		handed = append(handed, handout{got, append([]providers.Message(nil), got...)})
		if len(handed) > 4 {
			handed = handed[1:]
		}
		want := []providers.Message{}
		if sys != "" {
			want = append(want, providers.Message{Role: providers.RoleSystem, Content: sys})
		}
		want = append(want, hist...)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: request list differs from [system]+history (%d vs %d messages)", step, len(got), len(want))
		}
		if cap(got) != len(got) {
			t.Fatalf("%s: request list has spare capacity %d: a consumer's append would write the view", step, cap(got)-len(got))
		}
		n, ok := v.estimate(got, tools)
		if w := compress.Estimate(got, tools); !ok || n != w {
			t.Fatalf("%s: estimate %d (ok %v), compress.Estimate %d", step, n, ok, w)
		}
	}
	check("first")
	check("unchanged")
	hist = append(hist, providers.Message{Role: providers.RoleUser, Content: "more — ünïcode"})
	check("grown")
	hist[3].Content = "edited in place, a much longer text than before"
	v.changed()
	check("edited and reported")
	hist = hist[:20]
	check("cut shorter in place")
	hist = append(hist, providers.Message{Role: providers.RoleAssistant, Content: "overwrites slot 20"})
	check("regrown over the cut")
	hist = append([]providers.Message(nil), hist[5:]...)
	check("replaced by a new slice")
	sys = "You are talaria.\nModel: other"
	check("new system prompt")
	got[0].Content = "rewritten by a fallback, longer than the prompt"
	handed[len(handed)-1].was[0] = got[0] // the consumer's own write
	if n, ok := v.estimate(got, tools); !ok || n != compress.Estimate(got, tools) {
		t.Fatalf("estimate after the system message was rewritten: %d (ok %v), want %d", n, ok, compress.Estimate(got, tools))
	}
	check("after a consumer rewrote the system message")
	_ = append(got, providers.Message{Role: providers.RoleUser, Content: "appended by a consumer"})
	check("after a consumer appended")
	sys = ""
	check("no system prompt")
	if _, ok := v.estimate(append([]providers.Message(nil), got...), tools); ok {
		t.Fatal("estimate trusted a list that is not the view's")
	}
	sys = "s"
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		switch k := r.IntN(5); {
		case k == 0 && len(hist) > 0:
			hist[r.IntN(len(hist))].Content = fmt.Sprint(r.Int())
			v.changed()
		case k == 1 && len(hist) > 0:
			hist = hist[:r.IntN(len(hist))]
		case k == 2 && len(hist) > 2:
			j := r.IntN(len(hist) - 1)
			hist = append(hist[:j], hist[j+1:]...)
			v.changed()
		default:
			hist = append(hist, providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprint("c", i), Content: fmt.Sprint("result ", i)})
		}
		check(fmt.Sprint("random step ", i))
	}
	hist = nil
	check("empty")
}
