package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/providers"
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
	srv      *server
	name     string
	remote   string
	desc     string
	schema   json.RawMessage
	readOnly bool
}

// newTool wraps the server's tool t under name.
func newTool(s *server, name string, t *sdk.Tool) *Tool {
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
		srv: s, name: name, remote: t.Name, desc: desc,
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
// (readOnlyHint); such calls need no approval in the auto-edit, read-only
// and yolo approval modes, but are asked for in the ask mode (see
// tools.Approver).
func (t *Tool) ReadOnly() bool { return t.readOnly }

// ParallelSafe reports whether the tool may run alongside others in a
// batch: only when the server marks it read-only.
func (t *Tool) ParallelSafe() bool { return t.readOnly }

// Server returns the name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// Run implements tools.Tool. A dead server, a server that dies during the
// call or one that does not answer within its tool_timeout gives an error
// result, never a hang. The call carries a progressToken: the server's
// progress notifications go to the callback of WithProgress. When ctx ends
// the SDK sends notifications/cancelled for this call's request id.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	if !t.offered() {
		if _, _, err := t.srv.live(); err != nil {
			return tools.Errorf("%s: %v. It is retried between turns; use other tools meanwhile.", t.name, err)
		}
		return tools.Errorf("%s: the server no longer offers the tool %q", t.name, t.remote)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if fn := progressFrom(ctx); fn != nil {
		token, stop := t.srv.m.watchProgress(fn)
		defer stop()
		params.SetProgressToken(token)
	}
	var res *sdk.CallToolResult
	err := t.srv.call(ctx, t.name, t.srv.cfg.toolTimeout(), func(cctx context.Context, session *sdk.ClientSession) error {
		var err error
		res, err = session.CallTool(cctx, params)
		return err
	})
	if err != nil {
		if needsTask(err) {
			t.srv.markTaskOnly(t.remote)
			return tools.Errorf("%s: the server runs this tool only as a task (task-augmented call), which talaria does not support; it is not offered any more", t.name)
		}
		return tools.Errorf("%v", err)
	}
	return convertResult(res)
}

// needsTask reports whether err is the server refusing a call that is not
// task-augmented (-32601 "… requires task augmentation").
func needsTask(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound && strings.Contains(strings.ToLower(we.Message), "task")
}

// call runs fn on the live session within timeout. A dead server, a server
// that dies during the call, a timeout and an interrupt each give an error
// that says which and what to do; what (the tool's name) starts it.
func (s *server) call(ctx context.Context, what string, timeout time.Duration, fn func(context.Context, *sdk.ClientSession) error) error {
	session, done, err := s.live()
	if err != nil {
		return fmt.Errorf("%s: %v. It is retried between turns; use other tools meanwhile", what, err)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Close ends calls in flight (the session cannot close before).
	defer context.AfterFunc(s.m.ctx, cancel)()
	// A session that ends mid-call ends the call at once.
	go func() {
		select {
		case <-done:
			cancel()
		case <-cctx.Done():
		}
	}()
	err = fn(cctx, session)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%s: cancelled", what)
	case isClosed(done):
		_, _, why := s.live()
		if why == nil {
			why = errors.New("the server closed the connection")
		}
		return fmt.Errorf("%s: the call failed because %v. It is retried between turns; use other tools meanwhile", what, why)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: MCP server %q did not answer within %s (its tool_timeout)", what, s.cfg.Name, timeout)
	}
	if s.probe(session) != nil {
		// The server does not answer a ping either (HTTP transport errors
		// do not end the session): drop the session so that Reconnect
		// tries again.
		s.drop(session, err)
		return fmt.Errorf("%s: MCP server %q is unreachable (%v). It is retried between turns; use other tools meanwhile", what, s.cfg.Name, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// progressKey is the context key of WithProgress.
type progressKey struct{}

// WithProgress returns a context whose MCP tool calls send a progressToken
// and pass each notifications/progress of the call to fn as one line
// ("message (3/10)"). fn may be called from another goroutine while the
// call runs, never after it returned. A nil fn changes nothing.
func WithProgress(ctx context.Context, fn func(text string)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressFrom returns the callback of WithProgress; without one, the
// call's live output (tools.Output, which becomes tool.output events), one
// line per notification; nil when nobody watches.
func progressFrom(ctx context.Context) func(string) {
	if fn, _ := ctx.Value(progressKey{}).(func(string)); fn != nil {
		return fn
	}
	w := tools.Output(ctx)
	if w == io.Discard {
		return nil
	}
	return func(text string) { _, _ = io.WriteString(w, text+"\n") }
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
// joined, images passed on as images (with a placeholder in the text),
// other content described, structured content as JSON when there is
// nothing else.
func convertResult(res *sdk.CallToolResult) tools.Result {
	var parts []string
	imgs := &imageSet{parts: &parts}
	image := imgs.add
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			image(c.MIMEType, c.Data)
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s: read it with read_mcp_resource]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				if text := resourceText(r, image); text != "" {
					parts = append(parts, text)
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
	out := capOutput(strings.Join(parts, "\n"))
	if res.IsError && !strings.HasPrefix(out, "Error") {
		out = "Error: " + out
	}
	return tools.Result{Output: out, IsError: res.IsError, Images: imgs.images}
}

// Bounds on the images of one result.
const (
	maxImages     = 8
	maxImageTotal = 2 * providers.MaxImageBytes
)

// imageSet collects the images of one result within maxImages and
// maxImageTotal, adding each one's placeholder to parts.
type imageSet struct {
	parts  *[]string
	images []providers.Image
	total  int
}

// add takes one image, or only its placeholder when it cannot be passed
// on or the result holds enough images already.
func (s *imageSet) add(mime string, data []byte) {
	text, im := imagePart(mime, data)
	if im != nil && (len(s.images) >= maxImages || s.total+len(data) > maxImageTotal) {
		text, im = fmt.Sprintf("[image %s, %d bytes: not shown, the result holds enough images]", mime, len(data)), nil
	}
	*s.parts = append(*s.parts, text)
	if im != nil {
		s.images = append(s.images, *im)
		s.total += len(data)
	}
}

// imagePart returns the placeholder text of an image and the image itself
// when a wire can take it (a known media type within MaxImageBytes).
func imagePart(mime string, data []byte) (string, *providers.Image) {
	im := providers.Image{MIME: mime, Data: data}
	text := im.Placeholder()
	switch {
	case !providers.ImageMIMEOK(mime):
		return text, nil
	case len(data) > providers.MaxImageBytes:
		return fmt.Sprintf("[image %s, %d bytes: over the %d MiB cap, not shown]", mime, len(data), providers.MaxImageBytes>>20), nil
	}
	return text, &im
}

// resourceText renders resource contents: text as is, an image blob
// through image, another blob as its media type and size.
func resourceText(r *sdk.ResourceContents, image func(string, []byte)) string {
	switch {
	case r.Text != "" || r.Blob == nil:
		return r.Text
	case strings.HasPrefix(r.MIMEType, "image/"):
		image(r.MIMEType, r.Blob)
		return ""
	}
	mime := r.MIMEType
	if mime == "" {
		mime = "application/octet-stream"
	}
	return fmt.Sprintf("[resource %s, %s, %d bytes of binary data]", r.URI, mime, len(r.Blob))
}

// capOutput cuts text past outputCap and says so; empty becomes "(no
// output)".
func capOutput(out string) string {
	if out == "" {
		return "(no output)"
	}
	if len(out) > outputCap {
		out = strings.ToValidUTF8(out[:outputCap], "") + fmt.Sprintf("\n[… %d more characters cut …]", len(out)-outputCap)
	}
	return out
}

// compile-time checks.
var (
	_ tools.Tool                       = (*Tool)(nil)
	_ interface{ ParallelSafe() bool } = (*Tool)(nil)
)
