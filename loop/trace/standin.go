package trace

import (
	"context"
	"encoding/json"

	"talaria/tools"
)

// standIn is a tool whose results come from the recording.
type standIn struct {
	def  ToolDef
	r    *replayer
	live *tools.Registry
}

func (s *standIn) Name() string            { return s.def.Name }
func (s *standIn) Description() string     { return s.def.Description }
func (s *standIn) Schema() json.RawMessage { return s.def.Schema }

// Traits are the live tool's, else the built-in tool's of that name, so
// the replay plans and approves as the run did.
func (s *standIn) Traits() tools.Traits {
	if t, ok := s.live.Get(s.def.Name); ok {
		return t.Traits()
	}
	tr, _ := tools.BuiltinTraits(s.def.Name)
	return tr
}

// Run returns the recorded result of the first unused recorded call with
// this name and these arguments; a call the recording does not have is a
// divergence, reported against the closest recorded call.
func (s *standIn) Run(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	r := s.r
	r.mu.Lock()
	found, closest, closeness := -1, -1, 0
	for i, l := range r.tools {
		if r.used[i] || l.Turn != r.turn && l.Turn != 0 {
			continue
		}
		sameName, same := l.Name == s.def.Name, sameArgs(l.Arguments, string(args))
		if sameName && same {
			found = i
			break
		}
		// The recorded call to name when this one has none: the same
		// arguments under another name first, then the same name, then
		// the first unused call (parallel calls may start in any order).
		c := 1
		if same {
			c = 3
		} else if sameName {
			c = 2
		}
		if c > closeness {
			closest, closeness = i, c
		}
	}
	if found < 0 {
		rec := "no further tool call"
		if closest >= 0 {
			l := r.tools[closest]
			rec = l.Name + " " + clip(l.Arguments, 200)
		}
		r.diverge(&Divergence{Kind: "tool", Turn: r.turn, Recorded: rec, Replayed: s.def.Name + " " + clip(string(args), 200)})
		r.mu.Unlock()
		return tools.Result{Output: "replay: this tool call is not in the recording", IsError: true}
	}
	r.used[found] = true
	r.ranTools++
	l := r.tools[found]
	r.mu.Unlock()
	if s.live != nil {
		if t, ok := s.live.Get(s.def.Name); ok {
			return t.Run(ctx, env, args)
		}
	}
	// The guardrail's note was added after the tool ran; the replay's own
	// guardrail adds it again.
	return tools.Result{Output: tools.StripAnnotation(l.Output), IsError: l.IsError}
}
