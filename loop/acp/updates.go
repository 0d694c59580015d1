package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop"
)

// maxLiveOutput caps the live output kept per tool call (its tail is
// what the client sees while the call runs).
const maxLiveOutput = 64 << 10

// callState is what the session knows of one tool call of the prompt.
type callState struct {
	name, args string
	asked      bool
	out        strings.Builder
}

// sink is the session's subscriber of the event pipeline: it receives the
// masked events, in order, and sends the client session/update for those
// ACP has a form for.
func (s *session) sink(e loop.Event) {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == "" {
		return
	}
	for _, u := range s.updates(e) {
		s.srv.update(id, u)
	}
}

// updates maps one event onto session/update payloads.
func (s *session) updates(e loop.Event) []sdk.SessionUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	cwd := ""
	if s.app != nil {
		cwd = s.app.Cwd
	}
	switch ev := e.(type) {
	case *loop.MessageDelta:
		if ev.Text == "" {
			return nil
		}
		s.spoke = true
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(ev.Text)}
	case *loop.ReasoningDelta:
		if ev.Text == "" {
			return nil
		}
		s.spoke = true
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(ev.Text)}
	case *loop.RetryScheduled:
		s.spoke = true
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(retryNote(ev))}
	case *loop.Guardrail:
		s.spoke = true
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fmt.Sprintf("Guardrail %s (%s): %s\n", ev.Action, ev.Code, ev.Message))}
	case *loop.FallbackActivated:
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText("Switching to " + ev.To.Provider + "/" + ev.To.Model + " (" + ev.Reason + ").\n")}
	case *loop.ToolsPlanned:
		var out []sdk.SessionUpdate
		for _, sg := range ev.Segments {
			for _, c := range sg.Calls {
				if _, seen := s.calls[c.ID]; seen {
					continue
				}
				s.calls[c.ID] = &callState{name: c.Name, args: c.Arguments}
				s.order = append(s.order, c.ID)
				out = append(out, startCall(c.ID, c.Name, c.Arguments, cwd, sdk.ToolCallStatusPending))
			}
		}
		s.spoke = s.spoke || len(out) > 0
		return out
	case *loop.ToolStarted:
		s.spoke = true
		if _, seen := s.calls[ev.ID]; !seen {
			s.calls[ev.ID] = &callState{name: ev.Name, args: ev.Arguments}
			s.order = append(s.order, ev.ID)
			return []sdk.SessionUpdate{startCall(ev.ID, ev.Name, ev.Arguments, cwd, sdk.ToolCallStatusInProgress)}
		}
		return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(ev.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress))}
	case *loop.ToolOutput:
		c := s.calls[ev.ID]
		if c == nil {
			return nil
		}
		c.out.WriteString(ev.Text)
		if c.out.Len() > 2*maxLiveOutput {
			tail := c.out.String()[c.out.Len()-maxLiveOutput:]
			c.out.Reset()
			c.out.WriteString(tail)
		}
		live := c.out.String()
		if len(live) > maxLiveOutput {
			live = live[len(live)-maxLiveOutput:]
		}
		return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(ev.ID),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(live))}))}
	case *loop.ToolCompleted:
		s.spoke = true
		var out []sdk.SessionUpdate
		if ev.Name == "todo" && ev.OK {
			if entries := planEntries(ev.Output); entries != nil {
				out = append(out, sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries}})
			}
		}
		return append(out, completeCall(ev, cwd))
	}
	return nil
}

func retryNote(ev *loop.RetryScheduled) string {
	return fmt.Sprintf("Provider %s (status %d): retrying in %d ms (attempt %d/%d).\n", ev.Reason, ev.Status, ev.DelayMS, ev.Attempt, ev.MaxAttempts)
}

// startCall is the tool_call announcing one call.
func startCall(id, name, args, cwd string, status sdk.ToolCallStatus) sdk.SessionUpdate {
	d := describe(name, args, cwd)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(d.kind), sdk.WithStartStatus(status)}
	if len(d.locations) > 0 {
		opts = append(opts, sdk.WithStartLocations(d.locations))
	}
	if d.raw != nil {
		opts = append(opts, sdk.WithStartRawInput(d.raw))
	}
	return sdk.StartToolCall(sdk.ToolCallId(id), d.title, opts...)
}

// completeCall is the tool_call_update that ends one call: its status,
// the diff of an edit as diff content, and the result text.
func completeCall(ev *loop.ToolCompleted, cwd string) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if !ev.OK {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	for _, d := range parseDiff(ev.Diff, cwd) {
		if d.oldText == "" { // a new file
			content = append(content, sdk.ToolDiffContent(d.path, d.newText))
			continue
		}
		content = append(content, sdk.ToolDiffContent(d.path, d.newText, d.oldText))
	}
	if ev.Output != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(ev.Output)))
	}
	raw := map[string]any{"ok": ev.OK, "output": ev.Output}
	if ev.Cancelled {
		raw["cancelled"] = true
	}
	if ev.Denied {
		raw["denied"] = true
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateRawOutput(raw)}
	if len(content) > 0 {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(ev.ID), opts...)
}

// planEntries reads the todo tool's rendered list ("[x] 1. text" lines)
// as plan entries; nil when the output is not such a list.
func planEntries(out string) []sdk.PlanEntry {
	status := map[string]sdk.PlanEntryStatus{"[ ]": sdk.PlanEntryStatusPending, "[>]": sdk.PlanEntryStatusInProgress, "[x]": sdk.PlanEntryStatusCompleted}
	entries := []sdk.PlanEntry{}
	for _, line := range strings.Split(out, "\n") {
		if len(line) < 4 || line[0] != '[' || line[3] != ' ' {
			continue
		}
		mark := line[:3]
		if mark == "[-]" {
			continue // cancelled items are not part of the plan any more
		}
		st, ok := status[mark]
		if !ok {
			continue
		}
		text := line[4:]
		if _, rest, found := strings.Cut(text, ". "); found {
			text = rest
		}
		entries = append(entries, sdk.PlanEntry{Content: text, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	if len(entries) == 0 && !strings.Contains(out, "The task list is empty.") {
		return nil
	}
	return entries
}
