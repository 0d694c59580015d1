// Package mcptest is a real MCP server built on the official Go SDK, for
// tests of talaria's MCP client over stdio and streamable HTTP: tools for
// text, images, resource links, progress, cancellation, crashes and a tool
// that requires task-augmented calls; resources (text, image, binary); and
// server instructions. A test binary becomes a stdio server with
// MainIfServer; Handler serves it over streamable HTTP.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment of a stdio test server (see MainIfServer).
const (
	// EnvServer set to "1" makes MainIfServer serve over stdio.
	EnvServer = "TALARIA_MCP_TEST_SERVER"
	// EnvDelay is a Go duration to wait before serving (a slow start).
	EnvDelay = "TALARIA_MCP_TEST_DELAY"
	// EnvBanner is a line printed to stdout before serving.
	EnvBanner = "TALARIA_MCP_TEST_BANNER"
	// EnvInstructions are the instructions sent at initialization.
	EnvInstructions = "TALARIA_MCP_TEST_INSTRUCTIONS"
)

// PNG is a 1×1 PNG image, the result of the image tool.
var PNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
	0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
	0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

// Readme is the text of the test://readme resource.
const Readme = "The readme of the test server."

// TaskTool is the tool that the server marks execution.taskSupport
// "required" (over stdio, where the listing is rewritten to say so).
const TaskTool = "needs_task"

// Options shape a test server.
type Options struct {
	// Instructions are sent at initialization.
	Instructions string
	// Stdio adds the tools that only make sense over stdio: crash (the
	// server exits) and noise (prints a stray line to stdout).
	Stdio bool
	// State is shared by the servers built with it (one per HTTP
	// session); nil gives the server its own.
	State *State
}

// State is what a server saw, shared by its tools.
type State struct {
	mu        sync.Mutex
	cancelled []string
}

func (s *State) cancel(tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled = append(s.cancelled, tag)
}

func (s *State) cancelledTags() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.cancelled...)
	sort.Strings(out)
	return out
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text"`
}

type tagIn struct {
	Tag string `json:"tag" jsonschema:"a name for this call"`
}

type progressIn struct {
	Steps int `json:"steps" jsonschema:"how many progress notifications to send"`
}

type noIn struct{}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// NewServer builds a test server. Its tools: echo (read-only), write,
// fail, hang, slow {tag} (runs until cancelled and records the tag),
// cancelled (the tags cancelled so far), progress {steps}, image, link,
// needs_task, and with Stdio crash and noise.
func NewServer(o Options) *sdk.Server {
	st := o.State
	if st == nil {
		st = &State{}
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ServerOptions{Instructions: o.Instructions})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}, &sdk.TextContent{Text: "second part"}}}, nil, nil
		})
	destructive := true
	sdk.AddTool(s, &sdk.Tool{Name: "write", Description: "Pretend to write.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive}},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text("wrote " + in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail"},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("bad input")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang"},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ noIn) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Say it started (a progress notification), then run until cancelled."},
		func(ctx context.Context, req *sdk.CallToolRequest, in tagIn) (*sdk.CallToolResult, any, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Message: "started " + in.Tag})
			}
			<-ctx.Done()
			st.cancel(in.Tag)
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "cancelled", Description: "List the tags of the slow calls cancelled so far.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return text(strings.Join(st.cancelledTags(), ",")), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "progress", Description: "Report progress, then finish."},
		func(ctx context.Context, req *sdk.CallToolRequest, in progressIn) (*sdk.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return text("no progress token"), nil, nil
			}
			for i := 1; i <= in.Steps; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
				}); err != nil {
					return nil, nil, err
				}
			}
			return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Return an image."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a dot:"}, &sdk.ImageContent{MIMEType: "image/png", Data: PNG}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "link", Description: "Return a link to the readme resource."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "test://readme", Name: "readme"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: TaskTool, Description: "Runs only as a task."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return text("ran without a task"), nil, nil
		})
	if o.Stdio {
		sdk.AddTool(s, &sdk.Tool{Name: "crash"},
			func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
				fmt.Fprintln(os.Stderr, "crashing now")
				os.Exit(3)
				return nil, nil, nil
			})
		sdk.AddTool(s, &sdk.Tool{Name: "noise", Description: "Print a stray line to stdout, then answer."},
			func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
				fmt.Fprintln(os.Stdout, "Kaboom: a log line on stdout")
				return text("after the noise"), nil, nil
			})
		if os.Getenv("TALARIA_MCP_TEST_GETENV") == "1" {
			sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "Say what a variable holds in the server's environment.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
				func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
					return text(in.Text + "=" + os.Getenv(in.Text)), nil, nil
				})
		}
	}
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "The readme."},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://readme", MIMEType: "text/plain", Text: Readme}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://dot.png", Name: "dot", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://dot.png", MIMEType: "image/png", Blob: PNG}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://data.bin", Name: "data", MIMEType: "application/octet-stream"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://data.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 1234)}}}, nil
		})
	return s
}

// Handler serves a new test server per session over streamable HTTP.
func Handler(o Options) http.Handler {
	if o.State == nil {
		o.State = &State{}
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return NewServer(o) }, nil)
}

// MainIfServer serves a test server over stdio and exits when EnvServer is
// "1"; otherwise it returns at once. Call it first in TestMain. EnvDelay,
// EnvBanner and EnvInstructions shape the server.
func MainIfServer() {
	if os.Getenv(EnvServer) != "1" {
		return
	}
	if d, err := time.ParseDuration(os.Getenv(EnvDelay)); err == nil {
		time.Sleep(d)
	}
	if b := os.Getenv(EnvBanner); b != "" {
		fmt.Fprintln(os.Stdout, b)
	}
	s := NewServer(Options{Stdio: true, Instructions: os.Getenv(EnvInstructions)})
	if err := s.Run(context.Background(), &taskTransport{inner: &sdk.StdioTransport{}}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// taskTransport makes the stdio server speak like one of a newer protocol
// revision than the SDK's types know: its tools/list answer marks TaskTool
// execution.taskSupport "required", and a call of TaskTool without a task
// gets -32601, as such servers answer.
type taskTransport struct{ inner sdk.Transport }

func (t *taskTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, lists: map[jsonrpc.ID]bool{}, calls: map[jsonrpc.ID]bool{}}, nil
}

type taskConn struct {
	sdk.Connection
	mu    sync.Mutex
	lists map[jsonrpc.ID]bool
	calls map[jsonrpc.ID]bool
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.ID.IsValid() {
		c.mu.Lock()
		switch req.Method {
		case "tools/list":
			c.lists[req.ID] = true
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(req.Params, &p) == nil && p.Name == TaskTool {
				c.calls[req.ID] = true
			}
		}
		c.mu.Unlock()
	}
	return msg, err
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		list, call := c.lists[resp.ID], c.calls[resp.ID]
		delete(c.lists, resp.ID)
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		switch {
		case call:
			msg = &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tool " + TaskTool + " requires task augmentation"}}
		case list && resp.Error == nil:
			var res map[string]any
			if json.Unmarshal(resp.Result, &res) == nil {
				if ts, ok := res["tools"].([]any); ok {
					for _, x := range ts {
						if tm, ok := x.(map[string]any); ok && tm["name"] == TaskTool {
							tm["execution"] = map[string]any{"taskSupport": "required"}
						}
					}
				}
				if raw, err := json.Marshal(res); err == nil {
					msg = &jsonrpc.Response{ID: resp.ID, Result: raw}
				}
			}
		}
	}
	return c.Connection.Write(ctx, msg)
}
