package compress

import (
	"strings"

	"talaria/providers"
)

// FlagSummary is the internal flag set on the message that carries a
// compaction summary (never sent, never saved: see providers.Message).
const FlagSummary = "_compressed_summary"

// SummaryPrefix opens every compaction summary. The model reads it before
// the summary; IsSummary recognises a summary by it after a resume, when the
// internal flag is gone.
const SummaryPrefix = "[CONTEXT COMPACTION — REFERENCE ONLY] Older turns of this conversation were condensed into the summary below. " +
	"It is background for reference, not a list of instructions: the requests it mentions were already dealt with. " +
	"Respond only to the newest user message that comes after this summary; it alone says what to do now, and it wins over anything here, even on the same topic. " +
	"Do not resume, wrap up or repeat tasks from the summary unless that message asks for it, and drop them at once if it says stop, undo or changes the subject. " +
	"Memory and instructions in the system prompt remain authoritative. " +
	"Your tools remain available: keep using them for the current task. " +
	"Files and other state may already reflect the work described here; do not redo it."

// summaryEnd closes a summary, so the model sees where the reference ends.
const summaryEnd = "[END OF COMPACTED CONTEXT — continue with the conversation below, not with the summary above]"

// StubResult is the content given to a tool call whose result was lost.
const StubResult = "[No result recorded: this tool call's output was lost when the context was compacted.]"

// IsSummary reports whether m carries a compaction summary: it has the
// FlagSummary flag, or its content starts with the summary prefix.
func IsSummary(m *providers.Message) bool {
	return m.Flag(FlagSummary) || strings.HasPrefix(m.Content, summaryMarker)
}

// onlySummary reports a message that is nothing but a summary: not one
// into which a summary was merged ahead of the original content.
func onlySummary(m *providers.Message) bool {
	if !IsSummary(m) {
		return false
	}
	_, rest, ok := splitSummary(m.Content)
	return !ok || rest == ""
}

// summaryMarker is the stable opening of SummaryPrefix.
const summaryMarker = "[CONTEXT COMPACTION — REFERENCE ONLY]"

// splitSummary takes a summary message's content apart: the summary body
// (without prefix and end marker) and any original content that follows it
// when the summary was merged into another message.
func splitSummary(content string) (body, rest string, ok bool) {
	if !strings.HasPrefix(content, summaryMarker) {
		return "", content, false
	}
	body = content[len(summaryMarker):]
	if strings.HasPrefix(content, SummaryPrefix) {
		body = content[len(SummaryPrefix):]
	} else if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	}
	if i := strings.Index(body, summaryEnd); i >= 0 {
		rest = strings.TrimSpace(body[i+len(summaryEnd):])
		body = body[:i]
	}
	return strings.TrimSpace(body), rest, true
}

// summaryContent wraps a summary body in the prefix and end marker.
func summaryContent(body string) string {
	return SummaryPrefix + "\n\n" + strings.TrimSpace(body) + "\n\n" + summaryEnd
}

// span is a half-open range [start, end) of messages that must stay
// together: an assistant message with tool calls and the tool messages that
// follow it, or any single other message.
type span struct{ start, end int }

// spans cuts msgs into indivisible groups.
func spans(msgs []providers.Message) []span {
	out := make([]span, 0, len(msgs))
	for i := 0; i < len(msgs); {
		j := i + 1
		if msgs[i].Role == providers.RoleAssistant && len(msgs[i].ToolCalls) > 0 {
			for j < len(msgs) && msgs[j].Role == providers.RoleTool {
				j++
			}
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

// Sanitize returns a new slice in which every tool result directly follows
// (within the run of tool messages) the assistant message that called it,
// and every tool call has exactly one result: orphan and duplicate results
// are dropped, and an unanswered call gets a StubResult after the results
// that exist. The input is not modified.
func Sanitize(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == providers.RoleTool {
			continue // no call precedes it
		}
		out = append(out, m)
		if m.Role != providers.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := make([]bool, len(m.ToolCalls))
		for i < len(msgs) && msgs[i].Role == providers.RoleTool {
			r := msgs[i]
			i++
			if k := callIndex(m.ToolCalls, answered, r.ToolCallID); k >= 0 {
				answered[k] = true
				out = append(out, r)
			}
		}
		for k, tc := range m.ToolCalls {
			if !answered[k] {
				out = append(out, providers.Message{
					Role: providers.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name,
					Content: StubResult, Timestamp: m.Timestamp,
				})
			}
		}
	}
	return out
}

// callIndex finds the first unanswered call with the given id, or -1.
func callIndex(calls []providers.ToolCall, answered []bool, id string) int {
	for k := range calls {
		if !answered[k] && calls[k].ID == id {
			return k
		}
	}
	return -1
}
