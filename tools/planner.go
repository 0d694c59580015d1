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

// PlanBatch splits a batch of tool calls into ordered segments. Call order
// never changes and no call is moved across a barrier:
//
//   - clarify (and the other never-parallel tools), calls whose arguments are
//     not a JSON object, terminal, process, todo, delegate_task and every
//     tool not known to be safe are barriers: each runs alone, in order;
//   - read_file and search_files are path-scoped readers, write_file and
//     patch path-scoped writers: readers of overlapping paths share a
//     parallel run, while a call that overlaps an earlier call of the run
//     where either one writes closes the run, so it starts the next one;
//   - the read-only tools of the built-in parallel-safe set, and every name
//     for which parallelSafe reports true (MCP tools whose server marked them
//     read-only), join the current run without reserving any path.
//
// Paths are made absolute against cwd (the process working directory when
// cwd is empty), with ~ expanded and symlinks resolved for the longest
// prefix that exists; two paths overlap when they are equal or one lies
// below the other. A parallel run of one call is demoted to sequential, and
// adjacent sequential segments are merged. parallelSafe may be nil.
func PlanBatch(calls []BatchCall, cwd string, parallelSafe func(name string) bool) []Segment {
	p := planner{cwd: cwd, parallelSafe: parallelSafe, canon: map[string]string{}}
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
	cwd          string
	parallelSafe func(string) bool
	canon        map[string]string // absolute cleaned path → canonical path
	segs         []Segment
	run          []int
	reserved     []reservation
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

// admit decides how call c takes part in the batch (hermes.md §1.2).
// Path-scoped calls are decoded as their tool decodes them (decodeArgs);
// a call the tool would refuse is a barrier.
func (p *planner) admit(c BatchCall) admission {
	barrier := admission{barrier: true}
	name := c.Name
	if neverParallelTool(name) {
		return barrier
	}
	if !isJSONObject(c.Arguments) {
		return barrier
	}
	if pathScopedReader(name) || pathScopedWriter(name) {
		paths := p.scope(name, c.Arguments)
		if len(paths) == 0 {
			return barrier
		}
		return admission{paths: paths, writer: pathScopedWriter(name)}
	}
	if parallelSafeTool(name) || (p.parallelSafe != nil && p.parallelSafe(name)) {
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

// scopePaths returns the paths, as the model gave them, that a call of a
// path-scoped tool reads or writes, decoded as the tool decodes them; nil
// when the tool would refuse the call.
func scopePaths(name, raw string) []string {
	args := json.RawMessage(raw)
	switch name {
	case "read_file":
		var a readFileArgs
		if decodeArgs(args, &a) != nil || strings.TrimSpace(a.Path) == "" {
			return nil
		}
		return []string{a.Path}
	case "search_files":
		var a searchArgs
		if decodeArgs(args, &a) != nil {
			return nil
		}
		if strings.TrimSpace(a.Path) == "" {
			return []string{"."}
		}
		return []string{a.Path}
	case "write_file":
		var a writeFileArgs
		if decodeArgs(args, &a) != nil {
			return nil
		}
		paths, _ := a.writePaths()
		return paths
	case "patch":
		var a patchArgs
		if decodeArgs(args, &a) != nil {
			return nil
		}
		paths, _ := a.writePaths()
		return paths
	}
	return nil
}

// scope returns the canonical paths a path-scoped call touches (hermes.md
// §1.4); empty when the target is unknown.
func (p *planner) scope(name, raw string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range scopePaths(name, raw) {
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

// neverParallelTool reports whether name always runs alone (hermes.md §1.1).
func neverParallelTool(name string) bool {
	switch name {
	case "clarify", "manage_connections", "manage_catalog":
		return true
	}
	return false
}

// parallelSafeTool reports whether name is a built-in read-only tool that may
// run beside anything (hermes.md §1.1, with the stateless bridge lookups).
func parallelSafeTool(name string) bool {
	switch name {
	case "read_file", "search_files", "session_search", "web_search", "web_extract",
		"list_mcp_resources", "read_mcp_resource",
		"skill_view", "skills_list", "vision_analyze", "image_generate",
		"ha_get_state", "ha_list_entities", "ha_list_services",
		"connectors__execute", "tool_search", "tool_describe":
		return true
	}
	return false
}

// pathScopedReader reports whether name reads the paths it names.
func pathScopedReader(name string) bool {
	return name == "read_file" || name == "search_files"
}

// pathScopedWriter reports whether name writes the paths it names.
func pathScopedWriter(name string) bool {
	return name == "write_file" || name == "patch"
}
