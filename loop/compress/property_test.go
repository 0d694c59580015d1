package compress

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"talaria/providers"
)

// randomHistory builds a history of users, plain assistant answers and tool
// groups of 1–5 calls whose results come in random order; now and then a
// result is missing, duplicated or orphaned, as in a history that was cut.
func randomHistory(r *rand.Rand, n int) []providers.Message {
	var msgs []providers.Message
	id := 0
	text := func() string { return strings.Repeat("word ", r.Intn(400)) }
	for len(msgs) < n {
		switch k := r.Intn(10); {
		case k < 2:
			msgs = append(msgs, user(text()))
		case k < 4:
			msgs = append(msgs, asst(text()))
		default:
			var calls []providers.ToolCall
			for range 1 + r.Intn(5) {
				id++
				name := []string{"terminal", "read_file", "search_files", "patch", "custom"}[r.Intn(5)]
				calls = append(calls, call(fmt.Sprint("call_", id), name, `{"path":"f.go","command":"go test"}`))
			}
			msgs = append(msgs, asstCalls(calls...))
			var results []providers.Message
			for _, c := range calls {
				results = append(results, result(c.ID, c.Name, strings.Repeat("out\n", r.Intn(300))))
			}
			r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
			switch r.Intn(12) {
			case 0:
				results = results[1:] // a missing result
			case 1:
				results = append(results, results[0]) // a duplicate
			case 2:
				results = append(results, result("ghost", "terminal", "orphan")) // an orphan
			}
			msgs = append(msgs, results...)
		}
	}
	return msgs
}

// Property: whatever the history and the options, a plan never splits an
// assistant tool call from its results, keeps the latest user message in the
// tail, and covers every message once in order; after pruning and Apply (or
// Sanitize, for a no-op) no tool result is separated from its call and every
// call has one result.
func TestPropertyToolGroupsSurvive(t *testing.T) {
	compacted := 0
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		msgs := randomHistory(r, 5+r.Intn(200))
		opts := Options{
			ContextLength: []int{4096, 10_000, 32_768, 128_000}[r.Intn(4)],
			ProtectFirstN: r.Intn(6) - 1,
			ProtectLastN:  r.Intn(25),
		}
		pruned, _ := PruneToolOutputs(msgs, PruneBoundary(msgs, opts))
		p := PlanCompression(pruned, opts)
		all := slices.Concat(p.Head, p.Middle, p.Tail)
		if !slices.Equal(all, indices(0, len(pruned))) {
			t.Fatalf("seed %d: head+middle+tail = %v", seed, all)
		}
		part := make([]int, len(pruned))
		for _, i := range p.Middle {
			part[i] = 1
		}
		for _, i := range p.Tail {
			part[i] = 2
		}
		for _, s := range spans(pruned) {
			for i := s.start; i < s.end; i++ {
				if part[i] != part[s.start] {
					t.Fatalf("seed %d: group %v split across parts", seed, s)
				}
			}
		}
		for i := len(pruned) - 1; i >= 0; i-- {
			if pruned[i].Role == providers.RoleUser {
				if part[i] == 1 {
					t.Fatalf("seed %d: latest user message %d in the middle", seed, i)
				}
				break
			}
		}
		out := Apply(pruned, p, fmt.Sprint("summary ", seed))
		if !p.Noop {
			compacted++
		}
		if p.Noop { // a no-op leaves the history as it was
			if !slices.EqualFunc(out, pruned, func(a, b providers.Message) bool { return a.Content == b.Content }) {
				t.Fatalf("seed %d: a no-op changed the history", seed)
			}
			out = Sanitize(out)
		}
		if err := pairError(out); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if want := map[bool]int{true: 0, false: 1}[p.Noop]; countSummaries(out) != want {
			t.Fatalf("seed %d: %d summaries, want %d", seed, countSummaries(out), want)
		}
		// A second compaction over the result keeps the guarantees.
		again := append(out, user("next"), asst("ok"))
		p2 := PlanCompression(again, opts)
		if err := pairError(Apply(again, p2, "second")); err != nil {
			t.Fatalf("seed %d, second pass: %v", seed, err)
		}
	}
	if compacted < 150 {
		t.Errorf("only %d of 300 histories had a middle to compact", compacted)
	}
	t.Logf("%d of 300 random histories compacted", compacted)
}
