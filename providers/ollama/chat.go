package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"talaria/providers"
	"talaria/providers/sse"
)

// chatTransport is Ollama's native chat wire, POST /api/chat streaming
// newline-delimited JSON: the one endpoint that honours options.num_ctx
// per request. It is used in place of /v1/chat/completions when
// model.ollama_num_ctx is set.
type chatTransport struct {
	ep     providers.Endpoint
	root   string
	client *http.Client
	server *Server
}

var (
	_ providers.Transport        = (*chatTransport)(nil)
	_ providers.RuntimeContexter = (*chatTransport)(nil)
)

// NewChat builds the native chat transport for ep (ep.BaseURL may be the
// OpenAI-compatible one; its /v1 is dropped). Every request carries
// options.num_ctx = ep.OllamaNumCtx when set.
func NewChat(ep providers.Endpoint) (providers.Transport, error) {
	base, _, err := ep.Base("http://127.0.0.1:11434", "http://localhost:11434")
	if err != nil {
		return nil, err
	}
	t := &chatTransport{ep: ep, root: Root(base), client: ep.Client()}
	t.server = NewServer(t.client, t.root, "ollama", ep.OllamaNumCtx)
	return t, nil
}

// RuntimeContext is the server's runtime context for model: the
// configured num_ctx, which every request asks for.
func (t *chatTransport) RuntimeContext(ctx context.Context, model string) (providers.RuntimeContext, bool, error) {
	return t.server.RuntimeContext(ctx, model)
}

// Wire types of /api/chat.
type (
	chatRequest struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
		Tools    []chatTool    `json:"tools,omitempty"`
		Stream   bool          `json:"stream"`
		Think    *bool         `json:"think,omitempty"`
		Options  chatOptions   `json:"options"`
	}
	// chatOptions are the runtime options sent: num_ctx is what
	// model.ollama_num_ctx is for.
	chatOptions struct {
		NumCtx     int `json:"num_ctx,omitempty"`
		NumPredict int `json:"num_predict,omitempty"`
	}
	chatMessage struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
		ToolName  string     `json:"tool_name,omitempty"`
		// Images are a user message's images, base64 (the native API's
		// form).
		Images []string `json:"images,omitempty"`
	}
	toolCall struct {
		ID       string `json:"id,omitempty"`
		Function struct {
			Index     *int            `json:"index,omitempty"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	chatTool struct {
		Type     string       `json:"type"`
		Function toolFunction `json:"function"`
	}
	toolFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	// chatChunk is one line of the stream (or the whole answer).
	chatChunk struct {
		Model      string       `json:"model"`
		Message    *chatMessage `json:"message"`
		Done       bool         `json:"done"`
		DoneReason string       `json:"done_reason"`
		PromptEval int          `json:"prompt_eval_count"`
		Eval       int          `json:"eval_count"`
		Error      string       `json:"error"`
	}
)

// encode builds the /api/chat body of req.
func (t *chatTransport) encode(req providers.Request) (*chatRequest, error) {
	model, err := t.ep.ModelFor(req, providers.ModelHint)
	if err != nil {
		return nil, err
	}
	out := &chatRequest{Model: model, Stream: true, Options: chatOptions{NumCtx: t.ep.OllamaNumCtx, NumPredict: max(req.MaxTokens, 0)}}
	if req.ReasoningEffort != "" {
		on := true
		out.Think = &on
	}
	// Images of tool results keep only their text placeholders here (the
	// /v1 path sends them): a cut made to keep the binary in its budget.
	// A user message's images go in its images list, within the default
	// budget.
	sent := providers.DefaultImageBudget().Select(req.Messages)
	for i, m := range req.Messages {
		cm := chatMessage{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case providers.RoleUser:
			if sent != nil {
				for _, im := range sent[i] {
					cm.Images = append(cm.Images, im.Base64())
				}
			}
		case providers.RoleAssistant:
			cm.Thinking = m.Reasoning
			for _, c := range m.ToolCalls {
				var tc toolCall
				tc.ID, tc.Function.Name = c.ID, c.Name
				tc.Function.Arguments = objectArgs(c.Arguments)
				cm.ToolCalls = append(cm.ToolCalls, tc)
			}
		case providers.RoleTool:
			cm.ToolName = m.ToolName
			if cm.Content == "" {
				cm.Content = providers.PlaceholderToolOutput
			}
		}
		out.Messages = append(out.Messages, cm)
	}
	out.Tools, err = providers.ConvertTools(req.Tools, func(ts *providers.ToolSpec) (chatTool, error) {
		params, err := ts.WireParams()
		return chatTool{Type: "function", Function: toolFunction{Name: ts.Name, Description: ts.Description, Parameters: params}}, err
	})
	return out, err
}

// objectArgs is a call's arguments as the JSON object the native API
// takes; text that is not an object (a model's broken JSON) becomes {}.
func objectArgs(args string) json.RawMessage {
	raw := bytes.TrimSpace([]byte(args))
	if len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		return raw
	}
	return json.RawMessage("{}")
}

// Stream sends req to /api/chat and assembles the streamed answer. Every
// error is a *providers.APIError; a stream that ends before "done" is a
// MidStream error with the partial Response.
func (t *chatTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := t.encode(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	res, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.root+"/api/chat", t.root,
		"check that Ollama is running and base_url is right", body, "Authorization", providers.Bearer(t.ep.APIKey))
	if e := providers.Answered(ctx, t.ep.Provider, res, e, providers.FillError); e != nil {
		return nil, e
	}
	defer res.Body.Close()
	return t.read(ctx, res.Header.Clone(), res.Body, onDelta)
}

// read assembles the newline-delimited chunks of body.
func (t *chatTransport) read(ctx context.Context, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := &assembler{Streamed: providers.Streamed{OnDelta: onDelta}}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), sse.MaxEventSize)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) > 0 {
			var c chatChunk
			if jerr := json.Unmarshal(line, &c); jerr != nil {
				e := providers.MidStreamError(t.ep.Provider, h, fmt.Sprintf("cannot decode a stream line (%v); check that base_url is an Ollama server", jerr), jerr)
				e.Body = providers.TruncateBody(line, providers.MaxQuotedBody)
				return a.response(), e
			}
			if c.Error != "" {
				e := providers.MidStreamError(t.ep.Provider, h, c.Error, nil)
				e.Body = providers.TruncateBody(line, providers.MaxQuotedBody)
				return a.response(), e
			}
			a.add(&c)
			if c.Done {
				return a.response(), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		// A read error, or a line over sse.MaxEventSize (bufio.ErrTooLong).
		return a.response(), providers.ReadFailed(ctx, t.ep.Provider, h, err)
	}
	return a.response(), providers.StreamCutError(ctx, t.ep.Provider, h, `before a line with "done": true`)
}

// assembler builds a Response from the chunks and reports deltas.
type assembler struct {
	providers.Streamed
	calls  []providers.ToolCall
	done   string
	sawEnd bool
	usage  providers.Usage
}

func (a *assembler) add(c *chatChunk) {
	a.SetModel(c.Model)
	if m := c.Message; m != nil {
		a.AddReasoning(m.Thinking)
		a.AddText(m.Content)
		for _, tc := range m.ToolCalls {
			id := tc.ID
			if id == "" {
				id = "call_" + strconv.Itoa(len(a.calls))
			}
			a.calls = append(a.calls, providers.ToolCall{ID: id, Name: tc.Function.Name, Arguments: string(providers.CompactArgs(tc.Function.Arguments))})
			a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: len(a.calls) - 1, ToolName: tc.Function.Name})
		}
	}
	if c.Done {
		a.sawEnd = true
		a.done = c.DoneReason
		if a.done == "" {
			a.done = "stop"
		}
		a.usage = providers.Usage{InputTokens: c.PromptEval, OutputTokens: c.Eval}
	}
}

// finishReasons maps done_reason: stop, length; anything else (load,
// unload) counts as stop.
var finishReasons = providers.FinishReasons{
	"stop":                providers.FinishStop,
	"length":              providers.FinishLength,
	providers.FinishOther: providers.FinishStop,
}

func (a *assembler) response() *providers.Response {
	r := a.Response(a.done, finishReasons.Map(strings.ToLower(a.done)))
	r.ToolCalls = a.calls
	r.Usage = a.usage
	if r.FinishReason == providers.FinishStop && len(r.ToolCalls) > 0 {
		r.FinishReason = providers.FinishToolCalls
	}
	return r
}
