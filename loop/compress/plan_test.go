package compress

import (
	"fmt"
	"slices"
	"testing"

	"talaria/providers"
)

// smallCtx gives a threshold of 8,500 tokens (the 64k floor exceeds the
// window, so 85% of it) and a tail budget of 1,700.
var smallCtx = Options{ContextLength: 10_000}

func TestTailBudget(t *testing.T) {
	if got := smallCtx.TailBudget(); got != 1700 {
		t.Fatalf("TailBudget = %d, want 1700", got)
	}
	if got := (Options{ContextLength: 128_000, MaxTokens: 4096}).TailBudget(); got != 18_585 {
		t.Fatalf("TailBudget = %d, want 18585", got)
	}
}

func alternating(n, tokens int) []providers.Message {
	msgs := make([]providers.Message, n)
	for i := range msgs {
		if i%2 == 0 {
			msgs[i] = user(words(tokens))
		} else {
			msgs[i] = asst(words(tokens))
		}
	}
	return msgs
}

func TestPlanFloor(t *testing.T) {
	msgs := alternating(40, 1000) // every message is over half the budget
	p := PlanCompression(msgs, smallCtx)
	if !slices.Equal(p.Head, []int{0, 1, 2}) {
		t.Errorf("head %v", p.Head)
	}
	if len(p.Tail) != 8 || p.Tail[0] != 32 {
		t.Errorf("tail %v, want the floor of 8 messages", p.Tail)
	}
	if len(p.Middle) != 29 || p.Middle[0] != 3 || p.Noop {
		t.Errorf("middle %v", p.Middle)
	}
	if p.TokensBefore != Estimate(msgs, nil) {
		t.Errorf("TokensBefore %d, want %d", p.TokensBefore, Estimate(msgs, nil))
	}
	o := smallCtx
	o.ProtectLastN = 4
	if p := PlanCompression(msgs, o); len(p.Tail) != 4 {
		t.Errorf("ProtectLastN 4: tail %v, want 4 messages", p.Tail)
	}
	o.ProtectLastN = 1
	if p := PlanCompression(msgs, o); len(p.Tail) != 3 {
		t.Errorf("ProtectLastN 1: tail %v, the floor never goes under 3", p.Tail)
	}
}

func TestPlanBudgetOverrun(t *testing.T) {
	o := smallCtx
	o.ProtectLastN = 3
	build := func(bigTokens int) []providers.Message {
		msgs := alternating(3, 10)
		for range 6 {
			msgs = append(msgs, asst(words(96)))
		}
		return append(msgs, asst(words(bigTokens-4)), user(words(96)), asst(words(96)), asst(words(96)))
	}
	// 300 tokens of floor + 2,000 = 2,300: over the budget (1,700) but
	// within 1.5× (2,550), so the big message is kept whole in the tail,
	// and nothing more after it.
	p := PlanCompression(build(2000), o)
	if len(p.Tail) != 4 || p.Tail[0] != 9 {
		t.Errorf("tail %v, want the big message and the 3 after it", p.Tail)
	}
	// 300 + 2,400 = 2,700 passes 1.5×: the big message goes to the middle
	// and the walk stops there.
	p = PlanCompression(build(2400), o)
	if len(p.Tail) != 3 || p.Tail[0] != 10 {
		t.Errorf("tail %v, want only the 3-message floor", p.Tail)
	}
	// Small messages fill the budget and no more.
	msgs := alternating(3, 10)
	for range 40 {
		msgs = append(msgs, asst(words(96)))
	}
	msgs = append(msgs, user("go"))
	p = PlanCompression(msgs, o)
	tok := 0
	for _, i := range p.Tail {
		tok += MessageTokens(&msgs[i])
	}
	if tok < 1700 || tok > 1700+100 {
		t.Errorf("tail holds %d tokens, want the 1,700 budget reached by whole messages", tok)
	}
}

func TestPlanKeepsToolGroups(t *testing.T) {
	o := smallCtx
	o.ProtectLastN = 3
	msgs := alternating(7, 300)
	var calls []providers.ToolCall
	for i := range 5 {
		calls = append(calls, call(fmt.Sprint("c", i), "read_file", `{"path":"x"}`))
	}
	msgs = append(msgs, asstCalls(calls...))
	for i := range 5 {
		msgs = append(msgs, result(fmt.Sprint("c", i), "read_file", words(100)))
	}
	msgs = append(msgs, asst("done"))
	p := PlanCompression(msgs, o)
	// The floor of 3 would cut inside the group; the whole group comes.
	if p.Tail[0] > 7 {
		t.Fatalf("tail %v splits the tool group starting at 7", p.Tail)
	}
	// The head is aligned forward past a group too.
	msgs = []providers.Message{user("hi"), asstCalls(call("a", "terminal", "{}"), call("b", "terminal", "{}")), result("a", "terminal", "1"), result("b", "terminal", "2")}
	msgs = append(msgs, alternating(20, 500)...)
	o.ProtectFirstN = 2
	p = PlanCompression(msgs, o)
	if !slices.Equal(p.Head, []int{0, 1, 2, 3}) {
		t.Errorf("head %v, want the whole group", p.Head)
	}
	// Leading system messages stay in the head and are not counted.
	sys := append([]providers.Message{{Role: providers.RoleSystem, Content: "sys"}}, alternating(30, 500)...)
	if p := PlanCompression(sys, smallCtx); !slices.Equal(p.Head, []int{0, 1, 2, 3}) {
		t.Errorf("head %v with a system message", p.Head)
	}
}

func TestPlanKeepsLatestUserMessage(t *testing.T) {
	msgs := []providers.Message{user("u0"), asst("a1"), user("u2"), asst("a3"), user("now do the big thing")}
	for i := range 20 {
		id := fmt.Sprint("c", i)
		msgs = append(msgs, asstCalls(call(id, "read_file", `{"path":"f"}`)), result(id, "read_file", words(500)))
	}
	p := PlanCompression(msgs, smallCtx)
	if p.Noop || p.Tail[0] != 4 || !slices.Equal(p.Middle, []int{3}) {
		t.Fatalf("plan %+v: the latest user message must open the tail", p)
	}
	// The pruning boundary is not pulled back: a long single turn still
	// gets its older tool outputs pruned.
	if b := PruneBoundary(msgs, smallCtx); b <= 4+8 {
		t.Errorf("PruneBoundary = %d, want the budget tail", b)
	}
	// A compaction summary with role user is not the latest user message.
	sum := user(summaryContent("old stuff"))
	msgs = append([]providers.Message{user("u0"), asst("a1"), user("u2"), sum}, msgs[5:]...)
	p = PlanCompression(msgs, smallCtx)
	if p.Noop || slices.Contains(p.Tail, 3) {
		t.Errorf("tail %v was anchored on the summary", p.Tail)
	}
	// A user message into which a summary was merged still counts.
	msgs[3] = user(summaryContent("old stuff") + "\n\nthe real ask")
	p = PlanCompression(msgs, smallCtx)
	if p.Tail[0] != 3 { // right after the head: nothing left to summarize
		t.Errorf("tail %v lost the user message carrying a merged summary", p.Tail)
	}
}

func TestPlanNoop(t *testing.T) {
	for _, msgs := range [][]providers.Message{nil, alternating(1, 5), alternating(5, 5), alternating(11, 5)} {
		p := PlanCompression(msgs, smallCtx)
		if !p.Noop || len(p.Middle) != 0 || len(p.Head)+len(p.Tail) != len(msgs) {
			t.Errorf("%d short messages: %+v, want a no-op", len(msgs), p)
		}
	}
}
