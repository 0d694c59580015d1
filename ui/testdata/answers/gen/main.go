// Command gen writes the two long answers of the corpus (43 KB and
// 86 KB): a code review and a design write-up of a made-up Go service,
// with headings, lists, inline code, fenced Go, tables and quotes, the
// shape of a long real answer. Run from ui/testdata/answers:
//
//	go run ./gen
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var (
	files   = []string{"server/handler.go", "server/router.go", "store/bolt.go", "store/cache.go", "auth/token.go", "auth/session.go", "queue/worker.go", "queue/retry.go", "config/load.go", "cmd/app/main.go", "internal/log/log.go", "internal/metrics/prom.go"}
	funcs   = []string{"Handle", "Serve", "Open", "Close", "Get", "Put", "Delete", "Refresh", "Validate", "Enqueue", "Retry", "Load", "Parse", "Flush", "Observe"}
	issues  = []string{"the error from `%s` is dropped", "`%s` holds the lock while it does I/O", "the context is not passed down to `%s`", "`%s` allocates a new buffer on every call", "a nil map is written in `%s` when the config is empty", "`%s` retries without backoff", "the goroutine started in `%s` is never stopped", "`%s` compares errors with `==` instead of `errors.Is`"}
	fixes   = []string{"wrap it with `fmt.Errorf(\"...: %%w\", err)` and return it", "copy what is needed under the lock and do the I/O after `Unlock`", "take a `ctx context.Context` as the first parameter", "keep a `sync.Pool` of buffers", "initialise the map in the constructor", "use the `backoff` helper with jitter", "tie it to the server's `ctx` and wait for it in `Close`", "use `errors.Is(err, ErrNotFound)`"}
	prose   = []string{"This is the part of the change I would look at first, because everything else depends on it.", "The tests cover the happy path well, but none of them exercises the error branches, which is where the bugs below hide.", "Behaviour under load is the real question here: the code is correct for one request at a time.", "I checked the call sites with `grep -rn` and the module's tests; nothing outside this package depends on the old signature.", "The naming is consistent with the rest of the package, and the doc comments say what the functions do rather than how.", "None of this is urgent on its own, but together it explains the flaky test reported last week.", "It is worth keeping in mind that the production config sets a much smaller timeout than the tests do."}
	quotes  = []string{"Clear is better than clever.", "A little copying is better than a little dependency.", "Errors are values.", "Don't communicate by sharing memory, share memory by communicating."}
	metrics = []string{"p50 latency", "p99 latency", "allocs/op", "RSS", "CPU per request", "GC pauses"}
)

func code(r *rand.Rand, f string) string {
	fn := funcs[r.IntN(len(funcs))]
	var b strings.Builder
	fmt.Fprintf(&b, "```go\n// %s is where the change goes (%s).\nfunc (s *Service) %s(ctx context.Context, key string) (Item, error) {\n", fn, f, fn)
	fmt.Fprintf(&b, "\ts.mu.Lock()\n\titem, ok := s.items[key]\n\ts.mu.Unlock()\n\tif !ok {\n\t\treturn Item{}, fmt.Errorf(\"%s %%q: %%w\", key, ErrNotFound)\n\t}\n", strings.ToLower(fn))
	for i := range 2 + r.IntN(5) {
		fmt.Fprintf(&b, "\tif err := s.step%d(ctx, &item); err != nil {\n\t\treturn Item{}, err\n\t}\n", i)
	}
	b.WriteString("\treturn item, nil\n}\n```\n\n")
	return b.String()
}

func section(r *rand.Rand, n int) string {
	var b strings.Builder
	f := files[n%len(files)]
	fmt.Fprintf(&b, "## %d. `%s`\n\n%s %s\n\n", n+1, f, prose[r.IntN(len(prose))], prose[r.IntN(len(prose))])
	k := 2 + r.IntN(3)
	for i := range k {
		j := r.IntN(len(issues))
		fn := funcs[r.IntN(len(funcs))]
		fmt.Fprintf(&b, "- **%s**: "+issues[j]+"; "+fixes[j]+".\n", []string{"bug", "risk", "style", "perf"}[i%4], fn)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "  - see line %d, and the same pattern in `%s`\n", 10+r.IntN(400), files[r.IntN(len(files))])
		}
	}
	b.WriteString("\n")
	switch r.IntN(4) {
	case 0:
		b.WriteString("### Suggested change\n\n")
		b.WriteString(code(r, f))
	case 1:
		b.WriteString("| metric | before | after | change |\n|---|---:|---:|---:|\n")
		for range 3 + r.IntN(3) {
			a := 10 + r.IntN(900)
			c := a * (50 + r.IntN(60)) / 100
			fmt.Fprintf(&b, "| %s | %d | %d | %+d%% |\n", metrics[r.IntN(len(metrics))], a, c, (c-a)*100/a)
		}
		b.WriteString("\n")
	case 2:
		b.WriteString("Steps to reproduce:\n\n")
		for i := range 3 + r.IntN(3) {
			fmt.Fprintf(&b, "%d. run `go test -run Test%s%d -count=%d ./%s`\n", i+1, funcs[r.IntN(len(funcs))], i, 1+r.IntN(50), strings.Split(f, "/")[0])
		}
		b.WriteString("\n")
		b.WriteString(code(r, f))
	default:
		fmt.Fprintf(&b, "> %s\n\n%s\n\n", quotes[r.IntN(len(quotes))], prose[r.IntN(len(prose))])
	}
	return b.String()
}

func write(name string, size int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed*7))
	var b strings.Builder
	fmt.Fprintf(&b, "# Review: the `service` module\n\nI read all %d files of the change. The summary first, then file by file.\n\n", len(files))
	b.WriteString("| file | verdict | findings |\n|---|---|--:|\n")
	for i, f := range files {
		fmt.Fprintf(&b, "| `%s` | %s | %d |\n", f, []string{"ok", "needs work", "blocking"}[i%3], i%5)
	}
	b.WriteString("\n")
	for n := 0; b.Len() < size-600; n++ {
		b.WriteString(section(r, n))
	}
	b.WriteString("## Summary\n\n1. Fix the blocking findings first.\n2. Then the risks, with tests.\n3. Style last; a follow-up change is fine.\n\nThat is everything I found.\n")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
}

func main() {
	write("11-review-43k.md", 43<<10, 43)
	write("12-review-86k.md", 86<<10, 86)
}
