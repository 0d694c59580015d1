package trace

import (
	"context"
	"encoding/json"
	"strings"

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

// Run returns the recorded result of the first unused recorded call with
// this name and these arguments; a call the recording does not have is a
// divergence.
func (s *standIn) Run(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	r := s.r
	r.mu.Lock()
	found, firstUnused := -1, -1
	for i, l := range r.tools {
		if r.used[i] || l.Turn != r.turn && l.Turn != 0 {
			continue
		}
		if firstUnused < 0 {
			firstUnused = i
		}
		if l.Name == s.def.Name && sameArgs(l.Arguments, string(args)) {
			found = i
			break
		}
	}
	if found < 0 {
		rec := "no further tool call"
		if firstUnused >= 0 {
			l := r.tools[firstUnused]
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
	return tools.Result{Output: stripGuardNote(l.Output), IsError: l.IsError}
}

// stripGuardNote removes a trailing tool-loop guardrail annotation.
func stripGuardNote(out string) string {
	if !strings.HasSuffix(out, "]") {
		return out
	}
	for _, label := range []string{"\n\n[Tool loop warning: ", "\n\n[Tool loop hard stop: "} {
		if i := strings.LastIndex(out, label); i >= 0 {
			return out[:i]
		}
	}
	return out
}
