package compress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

func readOut(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "%d|line %d of a long file\n", i, i)
	}
	return b.String()
}

func TestUnseenStart(t *testing.T) {
	h := []providers.Message{user("q"), asstCalls(call("a", "read_file", `{}`), call("b", "read_file", `{}`)), result("a", "read_file", "x"), result("b", "read_file", "y")}
	if got := UnseenStart(h); got != 1 {
		t.Fatalf("UnseenStart = %d, want 1 (the call and its results)", got)
	}
	if got := UnseenStart(append(h, asst("done"))); got != 5 {
		t.Fatalf("answered results: %d", got)
	}
}

// A fresh result in the head (the first messages of a session) was pruned
// to a one-line stub before the model saw it.
func TestCompressNeverPrunesTheCurrentIterationsResults(t *testing.T) {
	srv := providertest.New(t)
	big := readOut(1, 3000)
	h := []providers.Message{user("read it"), asstCalls(call("r", "read_file", `{"path":"f.txt"}`)), result("r", "read_file", big)}
	out, res, err := Compress(context.Background(), transport(t, srv), "m", h, "", Options{ContextLength: 10_000})
	if err != nil || out[2].Content != big || res.Pruned != 0 {
		t.Fatalf("fresh result pruned: %+v %v %q", res, err, out[2].Content[:min(80, len(out[2].Content))])
	}
	// Once answered, the same result is old and may be pruned.
	h = append(h, asst("read"), user("next"), asst("ok"), user("again"))
	out, _, _ = Compress(context.Background(), transport(t, srv), "m", h, "", Options{ContextLength: 10_000})
	if out[2].Content == big {
		t.Fatal("an old, answered result was kept whole past the tail")
	}
}

func TestFitCutsAResultTooBigForTheWindow(t *testing.T) {
	srv := providertest.New(t)
	big := readOut(1, 3000)
	h := []providers.Message{user("read it"), asstCalls(call("r", "read_file", `{"path":"f.txt","offset":1}`)), result("r", "read_file", big)}
	out, res, err := Compress(context.Background(), transport(t, srv), "m", h, "", Options{ContextLength: 4000, FitTokens: 3000})
	if err != nil || !res.Fits || res.Cut != 1 || Estimate(out, nil) > 3000 || len(srv.Requests()) != 0 {
		t.Fatalf("res %+v err %v est %d", res, err, Estimate(out, nil))
	}
	c := out[2].Content
	if !strings.HasPrefix(c, "1|line 1 of a long file\n") || !strings.Contains(c, `Read the rest with read_file path="f.txt" offset=`) {
		t.Fatalf("cut result ends %q", c[max(0, len(c)-300):])
	}
	// The offset is the first line left out.
	var last int
	for _, l := range strings.Split(c, "\n") {
		fmt.Sscanf(l, "%d|", &last)
	}
	if !strings.Contains(c, fmt.Sprintf("offset=%d ", last+1)) && !strings.Contains(c, fmt.Sprintf("offset=%d and", last+1)) {
		t.Fatalf("offset does not follow line %d: %q", last, c[len(c)-200:])
	}
}

func TestFitShrinksTheKeptTail(t *testing.T) {
	srv := providertest.New(t)
	srv.Push(providertest.Text("## Historical Task Snapshot\nshort"))
	var h []providers.Message
	h = append(h, user("start"))
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("c%d", i)
		h = append(h, asstCalls(call(id, "terminal", `{"command":"make"}`)), result(id, "terminal", words(700)+"\nexit code: 0"))
	}
	h = append(h, user("latest"), asst(words(50)))
	// The ordinary tail (at least 8 messages) is ~2,800 tokens, over the
	// 2,000 to fit.
	out, res, err := Compress(context.Background(), transport(t, srv), "m", h, "", Options{ContextLength: 200_000, FitTokens: 2000})
	if err != nil || !res.Fits || Estimate(out, nil) > 2000 {
		t.Fatalf("res %+v err %v est %d", res, err, Estimate(out, nil))
	}
	checkPairs(t, out)
	if last := out[len(out)-1]; last.Content != h[len(h)-1].Content {
		t.Fatalf("the newest message was not kept: %q", last.Content)
	}
}
