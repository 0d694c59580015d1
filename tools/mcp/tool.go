package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// Limits of what an MCP tool passes on.
const (
	descriptionCap = 4000
	outputCap      = 100_000
)

// Tool is one tool of an MCP server, offered to the model as SERVER__TOOL.
// It implements tools.Tool, and ReadOnly and ParallelSafe from the
// server's readOnlyHint annotation.
type Tool struct {
	m        *Manager
	srv      *server
	name     string
	remote   string
	desc     string
	schema   json.RawMessage
	readOnly bool
}

// newTool wraps the server's tool t under name.
func newTool(m *Manager, s *server, name string, t *sdk.Tool) *Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	if desc == "" {
		desc = "Tool " + t.Name + "."
	}
	if len(desc) > descriptionCap {
		desc = strings.ToValidUTF8(desc[:descriptionCap], "") + "…"
	}
	desc = fmt.Sprintf("[MCP server %s] %s", s.cfg.Name, desc)
	return &Tool{
		m: m, srv: s, name: name, remote: t.Name, desc: desc,
		schema:   objectSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

// objectSchema marshals the server's input schema, making sure it is an
// object schema as providers require.
func objectSchema(in any) json.RawMessage {
	var m map[string]any
	if raw, err := json.Marshal(in); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok && m["type"] == "object" {
		m["properties"] = map[string]any{}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return raw
}

// Name implements tools.Tool.
func (t *Tool) Name() string { return t.name }

// Description implements tools.Tool.
func (t *Tool) Description() string { return t.desc }

// Schema implements tools.Tool.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly reports whether the server marks the tool read-only
// (readOnlyHint); such calls need no approval in the auto-edit and yolo
// approval modes, but are asked for in the ask mode (see tools.Approver).
func (t *Tool) ReadOnly() bool { return t.readOnly }

// ParallelSafe reports whether the tool may run alongside others in a
// batch: only when the server marks it read-only.
func (t *Tool) ParallelSafe() bool { return t.readOnly }

// Server returns the name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// Run implements tools.Tool. A dead server, a server that dies during the
// call or one that does not answer within the call timeout gives an error
// result, never a hang.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	session, done, err := t.srv.live()
	if err != nil {
		return tools.Errorf("%s: %v. It is retried between turns; use other tools meanwhile.", t.name, err)
	}
	if !t.offered() {
		return tools.Errorf("%s: the server no longer offers the tool %q", t.name, t.remote)
	}
	timeout := t.m.timeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A session that ends mid-call ends the call at once.
	go func() {
		select {
		case <-done:
			cancel()
		case <-cctx.Done():
		}
	}()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := session.CallTool(cctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return tools.Errorf("%s: cancelled", t.name)
		case isClosed(done):
			_, _, why := t.srv.live()
			if why == nil {
				why = errors.New("the server closed the connection")
			}
			return tools.Errorf("%s: the call failed because %v. It is retried between turns; use other tools meanwhile.", t.name, why)
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return tools.Errorf("%s: MCP server %q did not answer within %s", t.name, t.srv.cfg.Name, timeout)
		}
		if t.srv.probe(session) != nil {
			// The server does not answer a ping either (HTTP transport
			// errors do not end the session): drop the session so that
			// Reconnect tries again.
			t.srv.drop(session, err)
			return tools.Errorf("%s: MCP server %q is unreachable (%v). It is retried between turns; use other tools meanwhile.", t.name, t.srv.cfg.Name, err)
		}
		return tools.Errorf("%s: %v", t.name, err)
	}
	return convertResult(res)
}

// offered reports whether the server still lists the tool.
func (t *Tool) offered() bool {
	for _, x := range t.srv.toolList() {
		if x.Name == t.remote {
			return true
		}
	}
	return false
}

// isClosed reports whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// convertResult turns a CallToolResult into a tools.Result: text content
// joined, other content described, structured content as JSON when there
// is nothing else.
func convertResult(res *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				switch {
				case r.Text != "":
					parts = append(parts, r.Text)
				default:
					parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
				}
			}
		default:
			if raw, err := json.Marshal(c); err == nil {
				parts = append(parts, string(raw))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(raw))
		}
	}
	out := strings.Join(parts, "\n")
	if out == "" {
		out = "(no output)"
	}
	if len(out) > outputCap {
		out = strings.ToValidUTF8(out[:outputCap], "") + fmt.Sprintf("\n[… %d more characters cut …]", len(out)-outputCap)
	}
	if res.IsError && !strings.HasPrefix(out, "Error") {
		out = "Error: " + out
	}
	return tools.Result{Output: out, IsError: res.IsError}
}

// compile-time checks.
var (
	_ tools.Tool                       = (*Tool)(nil)
	_ interface{ ParallelSafe() bool } = (*Tool)(nil)
)
