package compress

import (
	"maps"

	"talaria/providers"
)

// Apply replaces the middle of plan with one summary message and returns a
// new slice (msgs is not modified). The summary gets SummaryPrefix, an end
// marker and the FlagSummary flag. Its role follows hermes.md §8 step 5:
// user when the head ends with an assistant or tool message (or there is no
// head), assistant when the head ends with a user message; when that role
// equals the first tail message's and the other role would collide with the
// head (or there is no head), the summary is merged into the first tail
// message instead, ahead of its content. Head and tail are then sanitized
// (see Sanitize): orphan tool results are dropped and unanswered calls get a
// stub result. A no-op plan returns a copy of msgs.
func Apply(msgs []providers.Message, plan Plan, summary string) []providers.Message {
	if plan.Noop || len(plan.Middle) == 0 {
		return append([]providers.Message(nil), msgs...)
	}
	head := Sanitize(pick(msgs, plan.Head))
	tail := Sanitize(pick(msgs, plan.Tail))
	body := summary
	if b, _, ok := splitSummary(summary); ok {
		body = b
	}
	sm := providers.Message{Content: summaryContent(body)}
	if last := plan.Middle[len(plan.Middle)-1]; last >= 0 && last < len(msgs) {
		sm.Timestamp = msgs[last].Timestamp
	}
	sm.SetFlag(FlagSummary, true)

	var prev providers.Role
	for i := len(head) - 1; i >= 0 && prev == ""; i-- {
		if head[i].Role != providers.RoleSystem {
			prev = head[i].Role
		}
	}
	sm.Role = providers.RoleUser
	if prev == providers.RoleUser {
		sm.Role = providers.RoleAssistant
	}
	merge := false
	if len(tail) > 0 && tail[0].Role == sm.Role {
		other := providers.RoleAssistant
		if sm.Role == providers.RoleAssistant {
			other = providers.RoleUser
		}
		if prev == "" || prev == other {
			merge = true
		} else {
			sm.Role = other
		}
	}

	out := make([]providers.Message, 0, len(head)+len(tail)+1)
	out = append(out, head...)
	if merge {
		first := tail[0]
		first.Content = sm.Content + "\n\n" + first.Content
		first.Internal = maps.Clone(first.Internal)
		first.SetFlag(FlagSummary, true)
		out = append(out, first)
		return append(out, tail[1:]...)
	}
	out = append(out, sm)
	return append(out, tail...)
}

// pick copies the messages at idx, skipping indices out of range.
func pick(msgs []providers.Message, idx []int) []providers.Message {
	out := make([]providers.Message, 0, len(idx))
	for _, i := range idx {
		if i >= 0 && i < len(msgs) {
			out = append(out, msgs[i])
		}
	}
	return out
}
