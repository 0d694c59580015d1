package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

// commandSync types text and presses Enter, then runs what that returns
// to completion (each command up to 5 s, so a loaded machine cannot drop
// the expansion's result as execCmd's short wait may) and feeds the
// results back once.
func (h *harness) commandSync(text string) {
	h.typeText(text)
	_, cmd := h.m.Update(keyMsg("enter"))
	for _, msg := range execCmdWait(cmd, 5*time.Second) {
		if _, tick := msg.(frameMsg); !tick {
			h.send(msg)
		}
	}
}

// waitCalls waits (bounded) until the agent's calls are want: Start runs
// in a command goroutine that goes on after execCmd stops waiting.
func waitCalls(t *testing.T, h *harness, want ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !reflect.DeepEqual(h.agent.got(), want) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	wantCalls(t, h, want...)
}

// testExtensions are a session's custom commands as the wiring gives them.
func testExtensions(expanded *[]string) func(*Options) {
	return func(o *Options) {
		p := fake(o)
		p.OnCustomCommands = func() []CustomCommand {
			return []CustomCommand{
				{Name: "git:commit", Description: "write a commit message", Path: "/p/.claude/commands/git/commit.md"},
				{Name: "review", ArgumentHint: "FILE", Description: "review a file for bugs", Path: "/p/.claude/commands/review.md"},
				{Name: "pdf-forms", Description: "fill PDF forms", Path: "/p/.claude/skills/pdf-forms/SKILL.md", Skill: true},
			}
		}
		p.OnExpandCommand = func(name, args string) (string, string, bool) {
			*expanded = append(*expanded, name+"|"+args)
			return "EXPANDED " + name + " with " + args, "", name != "nosuch"
		}
		p.OnSkills = func() ([]ExtensionItem, string) {
			return []ExtensionItem{{Name: "pdf-forms", Description: "fill PDF forms", Path: "/p/.claude/skills/pdf-forms/SKILL.md"}},
				"not in this session's system prompt yet (added after it began): later · /new starts a session that has them"
		}
		p.OnAgents = func() []ExtensionItem {
			return []ExtensionItem{{Name: "reader", Description: "reads code", Path: "/p/.claude/agents/reader.md"}}
		}
	}
}

// TestCustomCommandRunsAsTurn: /help lists the custom commands with their
// descriptions; /review main.go shows as typed in the transcript while the
// agent gets the expanded text; /a:b works; a built-in keeps its meaning.
func TestCustomCommandRunsAsTurn(t *testing.T) {
	var expanded []string
	h := newHarness(t, testExtensions(&expanded))
	h.size(100, 60)
	h.command("/help")
	contains(t, h.screen(), "custom commands", "/review FILE", "review a file for bugs", "/git:commit", "(skill) fill PDF forms", "/skills", "/agents")
	h.commandSync("/review main.go")
	contains(t, h.screen(), "› /review main.go")
	if strings.Contains(h.screen(), "EXPANDED") {
		t.Errorf("the transcript must show what was typed, not the expansion:\n%s", h.screen())
	}
	waitCalls(t, h, "run:EXPANDED review with main.go")
	if len(expanded) != 1 || expanded[0] != "review|main.go" {
		t.Fatalf("expand calls: %q", expanded)
	}
	h.endTurn(1, "")
	h.commandSync("/git:commit the fix")
	waitCalls(t, h, "run:EXPANDED review with main.go", "run:EXPANDED git:commit with the fix")
	h.endTurn(2, "")
	h.command("/frobnicate")
	contains(t, h.screen(), "unknown command /frobnicate")
	if len(expanded) != 2 {
		t.Fatalf("an unknown name must not be expanded: %q", expanded)
	}
}

// TestCustomCommandCompletion: typing /re offers /review with its
// argument hint and description, after the built-ins.
func TestCustomCommandCompletion(t *testing.T) {
	var expanded []string
	h := newHarness(t, testExtensions(&expanded))
	h.size(100, 40)
	h.typeText("/re")
	contains(t, plain(h.m.popupView), "/resume [ID]", "/review FILE", "review a file for bugs")
	h.key("ctrl+u")
	h.typeText("/pdf")
	contains(t, plain(h.m.popupView), "/pdf-forms", "(skill) fill PDF forms")
}

// TestSkillsAndAgentsCommands: /skills lists each skill with its file and
// says what the next session would add; /agents lists the subagents.
func TestSkillsAndAgentsCommands(t *testing.T) {
	var expanded []string
	h := newHarness(t, testExtensions(&expanded))
	h.size(120, 40)
	h.commandSync("/skills")
	contains(t, h.screen(), "pdf-forms", "/p/.claude/skills/pdf-forms/SKILL.md", "added after it began): later")
	h.commandSync("/agents")
	contains(t, h.screen(), "reader", "reads code", "/p/.claude/agents/reader.md")
	h2 := newHarness(t)
	h2.size(100, 30)
	h2.commandSync("/skills")
	contains(t, h2.screen(), "/skills is not available here")
}

// TestCustomCommandWhileBusyIsQueued: a custom command typed while a
// turn runs waits for it, then runs expanded.
func TestCustomCommandWhileBusyIsQueued(t *testing.T) {
	var expanded []string
	h := newHarness(t, testExtensions(&expanded))
	h.startBusy()
	h.command("/review a.go")
	wantCalls(t, h, "run:first")
	// The turn's end sends what was queued: the command, expanded then.
	_, cmd := h.m.Update(eventsMsg{closed: true, evs: []loop.Event{
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true},
	}})
	for _, msg := range execCmdWait(cmd, 5*time.Second) {
		if _, tick := msg.(frameMsg); !tick {
			h.send(msg)
		}
	}
	waitCalls(t, h, "run:first", "run:EXPANDED review with a.go")
}
