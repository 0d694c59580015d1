package tools

import (
	"encoding/json"
	"runtime"
	"strings"
)

// BatchCall is one tool call of a batch the model asked for in a single
// assistant message.
type BatchCall struct {
	// ID is the provider's tool_call_id.
	ID string
	// Name is the tool name as the model sent it.
	Name string
	// Arguments is the raw JSON arguments string as the model sent it.
	Arguments string
}

// Segment is one step of a batch plan: its calls run concurrently when
// Parallel is true, one after another otherwise.
type Segment struct {
	// Parallel is true when the calls may run at the same time.
	Parallel bool
	// Calls are indices into the batch, in call order.
	Calls []int
}

// Mode returns "parallel" or "sequential", the names the tools.planned event
// uses.
func (s Segment) Mode() string {
	if s.Parallel {
		return "parallel"
	}
	return "sequential"
}

// PlanBatch splits a batch of tool calls into ordered segments, by the
// traits of each call's tool (traits reports them by name; false for a
// name it does not know). Call order never changes and no call is moved
// across a barrier:
//
//   - a Barrier tool, an unknown tool, a call whose arguments are not a
//     JSON object, and every tool that is neither ParallelSafe nor
//     path-scoped run alone, in order;
//   - path-scoped tools (Traits.Paths) reserve the paths a call names:
//     readers of overlapping paths share a parallel run, while a call that
//     overlaps an earlier call of the run where either one writes closes
//     the run, so it starts the next one; a path-scoped call whose paths
//     cannot be told (arguments the tool would refuse) runs alone;
//   - ParallelSafe tools join the current run without reserving any path.
//
// Paths are made absolute against cwd (the process working directory when
// cwd is empty), with ~ expanded and symlinks resolved for the longest
// prefix that exists; two paths overlap when they are equal or one lies
// below the other. A parallel run of one call is demoted to sequential, and
// adjacent sequential segments are merged. traits may be nil: every call
// then runs alone.
func PlanBatch(calls []BatchCall, cwd string, traits func(name string) (Traits, bool)) []Segment {
	p := planner{cwd: cwd, traits: traits, canon: map[string]string{}}
	for i, c := range calls {
		p.add(i, c)
	}
	p.closeRun()
	return p.segs
}

// admission is how one call may take part in a batch: a barrier, or a
// member of a parallel run that reserves paths (none for unscoped tools).
type admission struct {
	barrier bool
	paths   []string // canonical, deduplicated, first-seen order
	writer  bool
}

// reservation is one path held by a call of the current parallel run.
type reservation struct {
	path   string
	writer bool
}

// planner holds the state of one PlanBatch call.
type planner struct {
	cwd      string
	traits   func(string) (Traits, bool)
	canon    map[string]string // absolute cleaned path → canonical path
	segs     []Segment
	run      []int
	reserved []reservation
}

// add places call i: a barrier closes the current run and runs alone; a
// call that conflicts with the run closes it and starts the next one.
func (p *planner) add(i int, c BatchCall) {
	a := p.admit(c)
	if a.barrier {
		p.closeRun()
		p.extendSequential(i)
		return
	}
	if p.conflicts(a) {
		p.closeRun()
	}
	for _, path := range a.paths {
		p.reserved = append(p.reserved, reservation{path: path, writer: a.writer})
	}
	p.run = append(p.run, i)
}

// conflicts reports whether a overlaps a reservation of the current run
// where a or the holder writes.
func (p *planner) conflicts(a admission) bool {
	for _, path := range a.paths {
		for _, r := range p.reserved {
			if (a.writer || r.writer) && pathsOverlap(path, r.path) {
				return true
			}
		}
	}
	return false
}

// closeRun turns the current run into a parallel segment, or, when it holds
// a single call, appends that call to the sequential segment before it.
func (p *planner) closeRun() {
	switch len(p.run) {
	case 0:
	case 1:
		p.extendSequential(p.run[0])
	default:
		p.segs = append(p.segs, Segment{Parallel: true, Calls: p.run})
	}
	p.run = nil
	p.reserved = p.reserved[:0]
}

// extendSequential appends call i to the last segment when it is
// sequential, else starts a new sequential segment.
func (p *planner) extendSequential(i int) {
	if n := len(p.segs); n > 0 && !p.segs[n-1].Parallel {
		p.segs[n-1].Calls = append(p.segs[n-1].Calls, i)
		return
	}
	p.segs = append(p.segs, Segment{Calls: []int{i}})
}

// admit decides how call c takes part in the batch (hermes.md §1.2), by
// its tool's traits. Path-scoped calls are decoded as their tool decodes
// them; a call the tool would refuse is a barrier.
func (p *planner) admit(c BatchCall) admission {
	barrier := admission{barrier: true}
	if p.traits == nil || !isJSONObject(c.Arguments) {
		return barrier
	}
	tr, ok := p.traits(c.Name)
	if !ok || tr.Barrier {
		return barrier
	}
	if tr.Paths != nil {
		paths := p.scope(tr, c.Arguments)
		if len(paths) == 0 {
			return barrier
		}
		return admission{paths: paths, writer: tr.Writes}
	}
	if tr.ParallelSafe {
		return admission{}
	}
	return barrier
}

// isJSONObject reports whether raw tool arguments are a JSON object. Blank
// arguments are the empty object, as in Registry.Call.
func isJSONObject(raw string) bool {
	_, err := parseArgs(raw)
	return err == nil
}

// scope returns the canonical paths a path-scoped call touches (hermes.md
// §1.4); empty when the target is unknown.
func (p *planner) scope(tr Traits, raw string) []string {
	given, err := tr.Paths(json.RawMessage(raw))
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range given {
		c, ok := p.canonical(p.cwd, r)
		if ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// canonical makes raw absolute against base (with ~ expanded), clean, with
// symlinks resolved for its longest existing prefix, and case-folded where
// the file system ignores case.
func (p *planner) canonical(base, raw string) (string, bool) {
	abs, err := ResolvePath(base, raw)
	if err != nil {
		return "", false
	}
	if c, ok := p.canon[abs]; ok {
		return c, true
	}
	c := resolveExistingPrefix(abs)
	if runtime.GOOS == "windows" {
		c = strings.ToLower(c)
	}
	p.canon[abs] = c
	return c, true
}

// pathsOverlap reports whether canonical paths a and b are equal or one is
// an ancestor of the other. An empty path overlaps nothing.
func pathsOverlap(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return isWithin(a, b) || isWithin(b, a)
}
