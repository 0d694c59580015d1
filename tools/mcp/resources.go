package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// Limits of the resource tools.
const (
	// maxListed bounds the resources (and templates) listed per server.
	maxListed = 200
	// resourceTimeout bounds listing or reading resources of one server.
	resourceTimeout = DefaultStartupTimeout
)

// ResourceTools returns list_mcp_resources and read_mcp_resource, which let
// the model list and read the resources of the Manager's servers. Both are
// read-only and parallel-safe.
func (m *Manager) ResourceTools() []tools.Tool {
	return []tools.Tool{&listResources{resourceTool{m}}, &readResource{resourceTool{m}}}
}

// resourceTool holds what both resource tools share.
type resourceTool struct{ m *Manager }

// Traits implements tools.Tool: the tools only read, and touch no local
// path.
func (resourceTool) Traits() tools.Traits {
	return tools.Traits{ReadOnly: true, ParallelSafe: true, Idempotent: true}
}

// listResources is list_mcp_resources.
type listResources struct{ resourceTool }

// Name implements tools.Tool.
func (*listResources) Name() string { return "list_mcp_resources" }

// Description implements tools.Tool.
func (*listResources) Description() string {
	return "List the resources (and resource templates) that the connected MCP servers offer: URI, name, media type, size and description. " +
		"Give server to list one server's only. Read one with read_mcp_resource."
}

// Schema implements tools.Tool.
func (*listResources) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Name of the MCP server; omit to list every server's resources."}}}`)
}

// Run implements tools.Tool.
func (t *listResources) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	var in struct {
		Server string `json:"server"`
	}
	if err := decodeResourceArgs(args, &in); err != nil {
		return tools.Errorf("list_mcp_resources: %v", err)
	}
	servers := t.m.servers
	if in.Server != "" {
		s := t.m.server(in.Server)
		if s == nil {
			return tools.Errorf("list_mcp_resources: no MCP server is called %q (servers: %s)", in.Server, t.m.names())
		}
		servers = []*server{s}
	}
	if len(servers) == 0 {
		return tools.Result{Output: "No MCP servers are configured."}
	}
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "## %s\n", s.cfg.Name)
		b.WriteString(s.listResources(ctx))
	}
	return tools.Result{Output: capOutput(strings.TrimRight(b.String(), "\n"))}
}

// listResources renders one server's resources and templates, or why
// there are none.
func (s *server) listResources(ctx context.Context) string {
	var res []*sdk.Resource
	var tmpl []*sdk.ResourceTemplate
	err := s.call(ctx, "list_mcp_resources", resourceTimeout, func(cctx context.Context, session *sdk.ClientSession) error {
		if r := session.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Resources == nil {
			return nil // the server offers no resources
		}
		for r, err := range session.Resources(cctx, nil) {
			if err != nil {
				return err
			}
			if res = append(res, r); len(res) >= maxListed {
				break
			}
		}
		for r, err := range session.ResourceTemplates(cctx, nil) {
			if err != nil {
				break // templates are optional; a server may not answer
			}
			if tmpl = append(tmpl, r); len(tmpl) >= maxListed {
				break
			}
		}
		return nil
	})
	if err != nil {
		return "(" + err.Error() + ")\n"
	}
	if len(res) == 0 && len(tmpl) == 0 {
		return "(no resources)\n"
	}
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "- %s", r.URI)
		var meta []string
		for _, x := range []string{r.Name, r.MIMEType} {
			if x != "" {
				meta = append(meta, x)
			}
		}
		if r.Size > 0 {
			meta = append(meta, fmt.Sprintf("%d bytes", r.Size))
		}
		if len(meta) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(meta, ", "))
		}
		if d := oneLine(r.Description); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteString("\n")
	}
	if len(res) >= maxListed {
		fmt.Fprintf(&b, "[only the first %d resources are listed]\n", maxListed)
	}
	for _, r := range tmpl {
		fmt.Fprintf(&b, "- template %s (%s)", r.URITemplate, r.Name)
		if d := oneLine(r.Description); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readResource is read_mcp_resource.
type readResource struct{ resourceTool }

// Name implements tools.Tool.
func (*readResource) Name() string { return "read_mcp_resource" }

// Description implements tools.Tool.
func (*readResource) Description() string {
	return "Read one resource of an MCP server by its URI (from list_mcp_resources, or a resource link in a tool result). " +
		"Text comes back as is, images as images, other binary data as its media type and size."
}

// Schema implements tools.Tool.
func (*readResource) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Name of the MCP server that offers the resource."},"uri":{"type":"string","description":"URI of the resource."}},"required":["server","uri"]}`)
}

// Run implements tools.Tool.
func (t *readResource) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := decodeResourceArgs(args, &in); err != nil {
		return tools.Errorf("read_mcp_resource: %v", err)
	}
	if in.Server == "" || in.URI == "" {
		return tools.Errorf("read_mcp_resource: give both server and uri")
	}
	s := t.m.server(in.Server)
	if s == nil {
		return tools.Errorf("read_mcp_resource: no MCP server is called %q (servers: %s)", in.Server, t.m.names())
	}
	var res *sdk.ReadResourceResult
	err := s.call(ctx, "read_mcp_resource", resourceTimeout, func(cctx context.Context, session *sdk.ClientSession) error {
		var err error
		res, err = session.ReadResource(cctx, &sdk.ReadResourceParams{URI: in.URI})
		return err
	})
	if err != nil {
		return tools.Errorf("%v", err)
	}
	var parts []string
	imgs := &imageSet{parts: &parts}
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if text := resourceText(c, imgs.add); text != "" {
			parts = append(parts, text)
		}
	}
	return tools.Result{Output: capOutput(strings.Join(parts, "\n")), Images: imgs.images}
}

// names lists the servers' names for error messages.
func (m *Manager) names() string {
	var out []string
	for _, s := range m.servers {
		out = append(out, s.cfg.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// decodeResourceArgs decodes the arguments object into v.
func decodeResourceArgs(raw json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments (server and uri are strings): %v", err)
	}
	return nil
}

// oneLine collapses text to one line of at most 200 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// compile-time checks.
var (
	_ tools.Tool = (*listResources)(nil)
	_ tools.Tool = (*readResource)(nil)
)
