package ui

import (
	"testing"
	"time"

	"talaria/loop"
	"talaria/tools"
)

// TestCancelCommandStopsOneCall: /cancel is a known command; with one
// call running it stops that one, with several it asks which, and /cancel
// ID stops the one named.
func TestCancelCommandStopsOneCall(t *testing.T) {
	ca := cancelAgent{fakeAgent: &fakeAgent{}, ids: make(chan string, 4)}
	h := newHarness(t, func(o *Options) { fake(o).Agent, fake(o).OnCancelCall = ca, ca.CancelCall })
	h.command("/cancel")
	contains(t, h.screen(), "no tool call is running")
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "slow"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "b", Name: "slow"},
	)
	h.command("/cancel")
	contains(t, h.screen(), "several calls are running: /cancel ID, one of a, b")
	h.command("/cancel b")
	select {
	case id := <-ca.ids:
		if id != "b" {
			t.Fatalf("stopped %s", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("/cancel b stopped nothing")
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "b", Name: "slow", Cancelled: true})
	h.command("/cancel")
	select {
	case id := <-ca.ids:
		if id != "a" {
			t.Fatalf("stopped %s", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("/cancel stopped nothing")
	}
}

// TestStatusShowsApprovalsAndSandbox: /status names the approvals mode
// and the sandbox.
func TestStatusShowsApprovalsAndSandbox(t *testing.T) {
	a := tools.NewApprover(tools.ApprovalAutoEdit, nil)
	h := newHarness(t, func(o *Options) { fake(o).Approvals, o.Sandbox = a, "workspace-write" })
	h.size(80, 40)
	h.command("/status")
	contains(t, h.screen(), "approvals  auto-edit (shift+tab cycles)", "sandbox    workspace-write")
}
