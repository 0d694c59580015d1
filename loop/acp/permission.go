package acp

import (
	"context"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/tools"
)

// Permission option ids of session/request_permission.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// approve is the session's tools.Approver prompt: every approval becomes
// session/request_permission. "Allow always" is the TUI's "don't ask
// again" (the session's allow-list); "reject always" denies the same kind
// of call for the rest of the session without asking; a cancelled request
// (session/cancel, the client went away) is a denial.
func (s *session) approve(ctx context.Context, req tools.ApprovalRequest) (tools.ApprovalDecision, error) {
	key := rejectKey(req)
	s.mu.Lock()
	if s.rejected[key] {
		s.mu.Unlock()
		return tools.ApprovalDecision{Reason: "the user rejected calls like this one for the rest of the session"}, nil
	}
	callID := s.callFor(req)
	sid := s.id
	s.mu.Unlock()
	// ctx is the turn's: session/cancel (the interrupt) ends the request.
	d := describe(req.Tool, req.Args, s.app.Cwd)
	title := req.Summary
	if title == "" {
		title = d.title
	}
	options := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if !req.NoSessionScope && !req.Destructive {
		options = append(options, sdk.PermissionOption{OptionId: optAllowAlways, Name: "Allow always (this session)", Kind: sdk.PermissionOptionKindAllowAlways})
	}
	options = append(options,
		sdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		sdk.PermissionOption{OptionId: optRejectAlways, Name: "Reject always (this session)", Kind: sdk.PermissionOptionKindRejectAlways})
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(callID), Title: sdk.Ptr(title), Kind: sdk.Ptr(d.kind), Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: d.locations, RawInput: d.raw}
	for _, p := range req.Paths {
		if len(tc.Locations) == 0 || tc.Locations[0].Path != p {
			tc.Locations = append(tc.Locations, sdk.ToolCallLocation{Path: p})
		}
	}
	resp, err := s.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(sid), ToolCall: tc, Options: options})
	if err != nil || resp.Outcome.Selected == nil {
		return tools.ApprovalDecision{Reason: "the permission request was cancelled"}, nil
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		return tools.ApprovalDecision{Allow: true, Scope: tools.ScopeOnce}, nil
	case optAllowAlways:
		return tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}, nil
	case optRejectAlways:
		s.mu.Lock()
		s.rejected[key] = true
		s.mu.Unlock()
	}
	return tools.ApprovalDecision{Reason: "the user rejected this call"}, nil
}

// rejectKey is what "reject always" remembers: the exact command of a
// terminal call, the tool for the others.
func rejectKey(req tools.ApprovalRequest) string {
	if req.Tool == "terminal" {
		return "terminal\x00" + req.Args
	}
	return req.Tool
}

// callFor finds the announced tool call an approval is about: the first
// not yet asked for with the same tool and arguments (approvals are put
// one at a time, in the batch's order). s.mu is held.
func (s *session) callFor(req tools.ApprovalRequest) string {
	var fallback string
	for _, id := range s.order {
		c := s.calls[id]
		if c.name != req.Tool || c.args != req.Args {
			continue
		}
		if !c.asked {
			c.asked = true
			return id
		}
		if fallback == "" {
			fallback = id
		}
	}
	if fallback != "" {
		return fallback
	}
	s.asks++
	return "approval-" + strconv.Itoa(s.asks)
}
