package tools

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planString renders a plan compactly: "P[0 1] S[2]".
func planString(segs []Segment) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		m := "S"
		if s.Parallel {
			m = "P"
		}
		parts[i] = fmt.Sprintf("%s%v", m, s.Calls)
	}
	return strings.Join(parts, " ")
}

// bc builds a batch call; args is a map (encoded as JSON) or a raw string.
func bc(name string, args any) BatchCall {
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		raw = string(b)
	}
	return BatchCall{ID: "call_" + name, Name: name, Arguments: raw}
}

func rd(path string) BatchCall { return bc("read_file", map[string]any{"path": path}) }
func wr(path string) BatchCall {
	return bc("write_file", map[string]any{"path": path, "content": "x"})
}
func term() BatchCall { return bc("terminal", map[string]any{"command": "ls"}) }
func v4a(body string) BatchCall {
	return bc("patch", map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "\n*** End Patch\n"})
}

// planFixture makes a working directory with sub/, a.txt, sub/x and a
// symlink link -> sub, and points HOME at it.
func planFixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "b.txt", "sub/x"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	return dir
}

func TestPlanBatchRules(t *testing.T) {
	dir := planFixture(t)
	clarifySafe := ClarifyTool{}.Traits()
	clarifySafe.ParallelSafe = true
	traits := traitsWith(map[string]Traits{"fs__list": {ReadOnly: true, Claimed: true, ParallelSafe: true}, "clarify": clarifySafe})
	cases := []struct {
		name  string
		calls []BatchCall
		want  string
	}{
		{"empty batch", nil, ""},
		{"one call is sequential", []BatchCall{rd("a.txt")}, "S[0]"},
		{"readers of different files", []BatchCall{rd("a.txt"), rd("b.txt")}, "P[0 1]"},
		{"readers share one file", []BatchCall{rd("a.txt"), rd("a.txt"), rd("a.txt")}, "P[0 1 2]"},
		{"reader then writer of one file", []BatchCall{rd("a.txt"), wr("a.txt")}, "S[0 1]"},
		{"writer then reader of one file", []BatchCall{wr("a.txt"), rd("a.txt")}, "S[0 1]"},
		{"writer of dir, reader below it", []BatchCall{wr("sub"), rd("sub/x")}, "S[0 1]"},
		{"reader below, writer of ancestor", []BatchCall{rd("sub/deep/f"), wr("sub")}, "S[0 1]"},
		{"reader of cwd (.) and writer below", []BatchCall{rd("."), wr("a.txt")}, "S[0 1]"},
		{"sibling prefix is no overlap", []BatchCall{wr("sub"), rd("subway")}, "P[0 1]"},
		{"writers of different files", []BatchCall{wr("a.txt"), wr("b.txt")}, "P[0 1]"},
		{"three writes of one file merge", []BatchCall{wr("a.txt"), wr("a.txt"), wr("a.txt")}, "S[0 1 2]"},
		{"conflict starts the next run", []BatchCall{rd("a.txt"), rd("b.txt"), wr("a.txt"), rd("c.txt")}, "P[0 1] P[2 3]"},
		{"writer conflicts with a reader of the run only", []BatchCall{rd("a.txt"), wr("b.txt"), wr("c.txt"), rd("b.txt")}, "P[0 1 2] S[3]"},
		{"symlinked dir: write via link, read via target", []BatchCall{wr("link/x"), rd("sub/x")}, "S[0 1]"},
		{"symlinked dir: new file below link", []BatchCall{rd("sub/new/file.go"), wr("link/new/file.go")}, "S[0 1]"},
		{"symlink itself vs target dir", []BatchCall{wr("link"), rd(filepath.Join(dir, "sub", "deep"))}, "S[0 1]"},
		{"~ expands to home", []BatchCall{wr("~/a.txt"), rd(filepath.Join(dir, "a.txt"))}, "S[0 1]"},
		{"bare ~ is home", []BatchCall{rd("~"), wr("sub/x")}, "S[0 1]"},
		{"relative vs absolute", []BatchCall{wr("a.txt"), rd(filepath.Join(dir, "a.txt"))}, "S[0 1]"},
		{"unclean relative path", []BatchCall{wr("./sub/../a.txt"), rd("a.txt")}, "S[0 1]"},
		{"~user is not expanded", []BatchCall{wr("~nobody/a.txt"), rd("/elsewhere/a.txt")}, "P[0 1]"},
		{"workdir base conflicts", []BatchCall{bc("read_file", map[string]any{"path": "x", "workdir": "sub"}), wr("sub/x")}, "S[0 1]"},
		{"workdir keeps cwd base too", []BatchCall{bc("read_file", map[string]any{"path": "x", "workdir": "sub"}), wr("x")}, "S[0 1]"},
		// read_file has no workdir: the tool refuses the call, so it is a barrier.
		{"unknown argument is a barrier", []BatchCall{bc("read_file", map[string]any{"path": "y", "workdir": "sub"}), wr("b.txt")}, "S[0 1]"},
		{"capitalised key is a barrier", []BatchCall{bc("read_file", map[string]any{"Path": "y"}), rd("b.txt")}, "S[0 1]"},
		{"bare search_files reserves cwd", []BatchCall{bc("search_files", map[string]any{"pattern": "x"}), wr("sub/x")}, "S[0 1]"},
		{"blank search path reserves cwd", []BatchCall{wr("a.txt"), bc("search_files", map[string]any{"pattern": "x", "path": "  "})}, "S[0 1]"},
		{"bare search_files shares with readers", []BatchCall{bc("search_files", map[string]any{"pattern": "x"}), rd("a.txt")}, "P[0 1]"},
		{"scoped search_files beside a writer", []BatchCall{bc("search_files", map[string]any{"pattern": "x", "path": "sub"}), wr("a.txt")}, "P[0 1]"},
		{"V4A update conflicts with reader", []BatchCall{v4a("*** Update File: a.txt\n@@\n-x\n+y"), rd("a.txt")}, "S[0 1]"},
		{"V4A update beside other reader", []BatchCall{v4a("*** Update File: a.txt\n@@\n-x\n+y"), rd("b.txt")}, "P[0 1]"},
		{"V4A add file", []BatchCall{rd("sub/new.go"), v4a("*** Add File: sub/new.go\n+package x")}, "S[0 1]"},
		{"V4A delete file", []BatchCall{v4a("*** Delete File: b.txt"), rd("b.txt")}, "S[0 1]"},
		{"V4A every file of the patch", []BatchCall{v4a("*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: b.txt"), rd("b.txt")}, "S[0 1]"},
		{"V4A header without space", []BatchCall{v4a("***Update File: a.txt\n@@\n-x\n+y"), rd("a.txt")}, "S[0 1]"},
		{"V4A Move to reserves target", []BatchCall{v4a("*** Update File: a.txt\n*** Move to: moved.txt\n@@\n-x\n+y"), rd("moved.txt")}, "S[0 1]"},
		{"V4A Move File reserves source", []BatchCall{v4a("*** Move File: a.txt -> c.txt"), rd("a.txt")}, "S[0 1]"},
		{"V4A Move File reserves target", []BatchCall{v4a("*** Move File: a.txt -> c.txt"), rd("c.txt")}, "S[0 1]"},
		{"V4A two patches of different files", []BatchCall{v4a("*** Update File: a.txt\n@@\n-x\n+y"), v4a("*** Update File: b.txt\n@@\n-x\n+y")}, "P[0 1]"},
		{"V4A without headers is a barrier", []BatchCall{v4a("@@\n-x\n+y"), rd("x"), rd("y")}, "S[0] P[1 2]"},
		// Without a mode, a patch argument and no old_string is a V4A
		// patch (as the tool and the approver decide): its files are
		// reserved, not path.
		{"modeless V4A patches of one file via different paths", []BatchCall{
			bc("patch", map[string]any{"path": "a.txt", "patch": "*** Begin Patch\n*** Update File: c.txt\n@@\n-x\n+y\n*** End Patch"}),
			bc("patch", map[string]any{"path": "b.txt", "patch": "*** Begin Patch\n*** Update File: c.txt\n@@\n-y\n+z\n*** End Patch"}),
		}, "S[0 1]"},
		{"modeless V4A patch does not reserve path", []BatchCall{
			bc("patch", map[string]any{"path": "a.txt", "patch": "*** Begin Patch\n*** Update File: c.txt\n@@\n-x\n+y\n*** End Patch"}), rd("a.txt"),
		}, "P[0 1]"},
		{"modeless patch with old_string is replace", []BatchCall{
			bc("patch", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y", "patch": "*** Update File: c.txt"}), rd("a.txt"),
		}, "S[0 1]"},
		{"padded mode patch is V4A", []BatchCall{
			bc("patch", map[string]any{"mode": " patch ", "patch": "*** Update File: c.txt\n@@\n-x\n+y"}), rd("c.txt"),
		}, "S[0 1]"},
		{"patch replace mode uses path", []BatchCall{bc("patch", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"}), rd("a.txt")}, "S[0 1]"},
		{"patch replace mode beside other file", []BatchCall{bc("patch", map[string]any{"mode": "replace", "path": "a.txt", "old_string": "x", "new_string": "y"}), rd("b.txt")}, "P[0 1]"},
		{"patch without path is a barrier", []BatchCall{rd("x"), bc("patch", map[string]any{"old_string": "x"}), rd("y")}, "S[0 1 2]"},
		{"read_file without path is a barrier", []BatchCall{rd("x"), bc("read_file", map[string]any{}), rd("y"), rd("z")}, "S[0 1] P[2 3]"},
		{"non-string path is a barrier", []BatchCall{bc("write_file", map[string]any{"path": 3}), rd("y"), rd("z")}, "S[0] P[1 2]"},
		{"clarify is a barrier", []BatchCall{rd("a.txt"), bc("clarify", map[string]any{"question": "?"}), rd("b.txt")}, "S[0 1 2]"},
		{"clarify splits runs", []BatchCall{rd("a"), rd("b"), bc("clarify", map[string]any{"question": "?"}), rd("c"), rd("d")}, "P[0 1] S[2] P[3 4]"},
		{"a barrier stays one when its traits also say parallel-safe", []BatchCall{bc("clarify", "{}"), bc("clarify", "{}")}, "S[0 1]"},
		{"terminal is a barrier", []BatchCall{rd("a"), term(), rd("b")}, "S[0 1 2]"},
		{"other stateful tools are barriers", []BatchCall{bc("todo", "{}"), bc("process", "{}"), bc("delegate_task", "{}"), bc("execute_code", "{}")}, "S[0 1 2 3]"},
		{"unknown tool is a barrier", []BatchCall{rd("a"), rd("b"), bc("frobnicate", "{}"), rd("c"), rd("d")}, "P[0 1] S[2] P[3 4]"},
		{"bad JSON is a barrier", []BatchCall{rd("a"), bc("read_file", `{"path": "b"`), rd("c")}, "S[0 1 2]"},
		{"array arguments are a barrier", []BatchCall{bc("web_fetch", `["q"]`), bc("web_fetch", `{"url":"https://example.com"}`), rd("c")}, "S[0] P[1 2]"},
		{"string arguments are a barrier", []BatchCall{bc("web_fetch", `"q"`), rd("c")}, "S[0 1]"},
		{"null arguments are a barrier", []BatchCall{bc("web_fetch", `null`), rd("c")}, "S[0 1]"},
		{"blank arguments are an empty object", []BatchCall{bc("diagnostics", ""), bc("session_search", " ")}, "P[0 1]"},
		{"parallel-safe tools reserve nothing", []BatchCall{bc("web_fetch", "{}"), bc("session_search", "{}"), wr("a.txt"), bc("diagnostics", "{}"), wr("a.txt")}, "P[0 1 2 3] S[4]"},
		{"MCP read-only tool by its traits", []BatchCall{bc("fs__list", "{}"), rd("a.txt"), wr("b.txt")}, "P[0 1 2]"},
		{"MCP tool not marked read-only", []BatchCall{bc("fs__write", "{}"), rd("a.txt"), rd("b.txt")}, "S[0] P[1 2]"},
		{"run of one between barriers is merged", []BatchCall{term(), rd("a"), term()}, "S[0 1 2]"},
		{"adjacent sequential segments merge", []BatchCall{term(), term(), rd("a"), rd("b"), term(), wr("a"), wr("a")}, "S[0 1] P[2 3] S[4 5 6]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := planString(PlanBatch(tc.calls, dir, traits))
			if got != tc.want {
				t.Errorf("plan = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPlanBatchNilCallbackAndRelativeCwd(t *testing.T) {
	dir := planFixture(t)
	t.Chdir(dir)
	calls := []BatchCall{bc("fs__list", "{}"), wr("a.txt"), rd(filepath.Join(dir, "a.txt"))}
	if got := planString(PlanBatch(calls, "", nil)); got != "S[0 1 2]" {
		t.Errorf("plan = %q, want S[0 1 2] (no traits: every call is a barrier; empty cwd is the process cwd)", got)
	}
}

func TestSegmentMode(t *testing.T) {
	if (Segment{Parallel: true}).Mode() != "parallel" || (Segment{}).Mode() != "sequential" {
		t.Error("Mode names")
	}
}

// randomBatch draws n calls over a small tree with nested paths, a symlink
// and every kind of admission.
func randomBatch(r *rand.Rand, n int) []BatchCall {
	paths := []string{".", "a.txt", "b.txt", "sub", "sub/x", "sub/deep", "sub/deep/f", "link", "link/x", "link/deep/f", "~/a.txt", "c/d", "c"}
	out := make([]BatchCall, n)
	for i := range out {
		p := paths[r.Intn(len(paths))]
		switch r.Intn(12) {
		case 0, 1, 2:
			out[i] = rd(p)
		case 3, 4:
			out[i] = wr(p)
		case 5:
			out[i] = bc("search_files", map[string]any{"pattern": "x"})
		case 6:
			out[i] = bc("search_files", map[string]any{"pattern": "x", "path": p})
		case 7:
			q := paths[r.Intn(len(paths))]
			out[i] = v4a(fmt.Sprintf("*** Update File: %s\n*** Move to: %s", p, q))
		case 8:
			out[i] = bc("session_search", map[string]any{"query": p})
		case 9:
			out[i] = bc("fs__list", "{}")
		case 10:
			out[i] = []BatchCall{term(), bc("clarify", "{}"), bc("read_file", "{bad"), bc("nope", "{}")}[r.Intn(4)]
		default:
			out[i] = bc("patch", map[string]any{"path": p, "old_string": "a", "new_string": "b"})
		}
	}
	return out
}

// independentOverlap decides overlap with filepath.Rel rather than the
// planner's prefix test.
func independentOverlap(a, b string) bool {
	under := func(x, y string) bool {
		rel, err := filepath.Rel(x, y)
		return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, "../")))
	}
	return under(a, b) || under(b, a)
}

func TestPlanBatchProperties(t *testing.T) {
	dir := planFixture(t)
	safe := traitsWith(map[string]Traits{"fs__list": {ReadOnly: true, Claimed: true, ParallelSafe: true}})
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		calls := randomBatch(r, 1+r.Intn(40))
		segs := PlanBatch(calls, dir, safe)
		p := planner{cwd: dir, traits: safe, canon: map[string]string{}}
		adm := make([]admission, len(calls))
		for i, c := range calls {
			adm[i] = p.admit(c)
		}
		var flat []int
		for k, s := range segs {
			flat = append(flat, s.Calls...)
			if s.Parallel && len(s.Calls) < 2 {
				t.Fatalf("seed %d: parallel segment of %d call(s): %s", seed, len(s.Calls), planString(segs))
			}
			if k > 0 && !s.Parallel && !segs[k-1].Parallel {
				t.Fatalf("seed %d: adjacent sequential segments: %s", seed, planString(segs))
			}
			if !s.Parallel {
				continue
			}
			for x, i := range s.Calls {
				if adm[i].barrier {
					t.Fatalf("seed %d: barrier %s in a parallel segment", seed, calls[i].Name)
				}
				for _, j := range s.Calls[x+1:] {
					if !adm[i].writer && !adm[j].writer {
						continue
					}
					for _, pi := range adm[i].paths {
						for _, pj := range adm[j].paths {
							if independentOverlap(pi, pj) {
								t.Fatalf("seed %d: calls %d and %d conflict on %s / %s in %s", seed, i, j, pi, pj, planString(segs))
							}
						}
					}
				}
			}
		}
		for i, v := range flat {
			if v != i {
				t.Fatalf("seed %d: order broken: %v", seed, flat)
			}
		}
		if len(flat) != len(calls) {
			t.Fatalf("seed %d: %d indices for %d calls", seed, len(flat), len(calls))
		}
	}
}

func BenchmarkPlan64(b *testing.B) {
	dir := b.TempDir()
	for _, d := range []string{"sub/deep", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		b.Fatal(err)
	}
	calls := randomBatch(rand.New(rand.NewSource(64)), 64)
	safe := traitsWith(map[string]Traits{"fs__list": {ReadOnly: true, Claimed: true, ParallelSafe: true}})
	b.ReportAllocs()
	for b.Loop() {
		PlanBatch(calls, dir, safe)
	}
}
