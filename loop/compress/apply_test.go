package compress

import (
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
)

func planOf(head, middle, tail int) Plan {
	return Plan{Head: indices(0, head), Middle: indices(head, head+middle), Tail: indices(head+middle, head+middle+tail)}
}

func TestApplyRoleRule(t *testing.T) {
	for _, c := range []struct {
		name       string
		head, tail providers.Message
		wantRole   providers.Role
		merged     bool
	}{
		{"head ends with assistant, tail assistant", asst("h"), asst("t"), providers.RoleUser, false},
		{"head ends with user, tail user", user("h"), user("t"), providers.RoleAssistant, false},
		{"head ends with tool, tail user: flip to assistant", result("c", "terminal", "r"), user("t"), providers.RoleAssistant, false},
		{"both neighbours collide (assistant | user)", asst("h"), user("t"), providers.RoleUser, true},
		{"both neighbours collide (user | assistant)", user("h"), asst("t"), providers.RoleAssistant, true},
	} {
		head := []providers.Message{c.head}
		if c.head.Role == providers.RoleTool {
			head = []providers.Message{asstCalls(call("c", "terminal", "{}")), c.head}
		}
		msgs := append(append(head, asst("m1"), user("m2")), c.tail)
		out := Apply(msgs, planOf(len(head), 2, 1), "S")
		checkPairs(t, out)
		s := out[len(head)]
		if !IsSummary(&s) || !s.Flag(FlagSummary) || s.Role != c.wantRole {
			t.Errorf("%s: summary message %+v, want role %s", c.name, s, c.wantRole)
		}
		body, rest, ok := splitSummary(s.Content)
		if !ok || body != "S" {
			t.Errorf("%s: summary body %q", c.name, body)
		}
		if c.merged {
			if len(out) != len(head)+1 || rest != "t" {
				t.Errorf("%s: want the summary merged ahead of the tail message, got %d messages, rest %q", c.name, len(out), rest)
			}
			if msgs[len(msgs)-1].Internal != nil {
				t.Errorf("%s: the caller's tail message got a flag", c.name)
			}
		} else if len(out) != len(head)+2 || out[len(out)-1].Content != "t" {
			t.Errorf("%s: want a separate summary message, got %d messages", c.name, len(out))
		}
		for i := 1; i < len(out); i++ {
			if out[i].Role == out[i-1].Role && out[i].Role != providers.RoleTool {
				t.Errorf("%s: roles collide at %d: %s", c.name, i, out[i].Role)
			}
		}
	}
}

func TestApplyNoHead(t *testing.T) {
	msgs := []providers.Message{asst("m"), user("t")}
	out := Apply(msgs, planOf(0, 1, 1), "S")
	if len(out) != 1 || out[0].Role != providers.RoleUser || !strings.HasSuffix(out[0].Content, "\n\nt") {
		t.Fatalf("with no head and a user tail, the summary merges into it: %+v", out)
	}
	msgs = []providers.Message{user("m"), asst("t")}
	out = Apply(msgs, planOf(0, 1, 1), "S")
	if len(out) != 2 || out[0].Role != providers.RoleUser {
		t.Fatalf("with no head the summary is a user message: %+v", out)
	}
}

func TestApplySanitizesOrphans(t *testing.T) {
	msgs := []providers.Message{
		user("u"),
		asstCalls(call("a", "terminal", "{}"), call("b", "terminal", "{}")), // b's result is in the middle
		result("a", "terminal", "ra"),
		result("b", "terminal", "rb"),
		asst("m"),
		result("x", "terminal", "orphan at the start of the tail"),
		user("t"),
		asstCalls(call("d", "read_file", "{}"), call("e", "read_file", "{}")),
		result("e", "read_file", "re"),
		result("e", "read_file", "duplicate"),
	}
	orig := append([]providers.Message(nil), msgs...)
	plan := Plan{Head: []int{0, 1, 2}, Middle: []int{3, 4}, Tail: []int{5, 6, 7, 8, 9}}
	out := Apply(msgs, plan, "S")
	checkPairs(t, out)
	if !reflect.DeepEqual(msgs, orig) {
		t.Fatal("the caller's slice was modified")
	}
	var stubs []string
	for _, m := range out {
		if m.Content == StubResult {
			stubs = append(stubs, m.ToolCallID)
		}
		if strings.Contains(m.Content, "orphan") || m.Content == "duplicate" {
			t.Errorf("orphan or duplicate result kept: %q", m.Content)
		}
	}
	if !reflect.DeepEqual(stubs, []string{"b", "d"}) {
		t.Errorf("stub results for %v, want [b d]", stubs)
	}
	if countSummaries(out) != 1 {
		t.Errorf("%d summaries", countSummaries(out))
	}
}

func TestApplyNoop(t *testing.T) {
	msgs := alternating(4, 3)
	out := Apply(msgs, Plan{Head: []int{0, 1}, Tail: []int{2, 3}, Noop: true}, "S")
	if !reflect.DeepEqual(out, msgs) || &out[0] == &msgs[0] {
		t.Fatal("a no-op plan returns an equal copy")
	}
}

func TestApplyReplacesPreviousSummaryPrefix(t *testing.T) {
	msgs := []providers.Message{user("u"), asst("a"), user("m"), asst("t")}
	out := Apply(msgs, planOf(2, 1, 1), summaryContent("again"))
	if strings.Count(out[2].Content, summaryMarker) != 1 {
		t.Fatalf("prefix doubled: %q", out[2].Content)
	}
}
