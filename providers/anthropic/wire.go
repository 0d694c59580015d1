package anthropic

import "encoding/json"

// event is one streamed event (message_start, content_block_start,
// content_block_delta, content_block_stop, message_delta, message_stop,
// ping, error), decoded with only the fields this transport reads; error
// events are read by providers.ParseErrorBody.
type event struct {
	Type         string       `json:"type"`
	Index        int          `json:"index"`
	Message      *wireMessage `json:"message"`
	ContentBlock *wireBlock   `json:"content_block"`
	Delta        wireDelta    `json:"delta"`
	Usage        *wireUsage   `json:"usage"`
}

// wireMessage is the message of message_start, or a complete response.
type wireMessage struct {
	ID         string      `json:"id"`
	Model      string      `json:"model"`
	Content    []wireBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      *wireUsage  `json:"usage"`
}

// wireBlock is a content block: its opening state when streamed, the whole
// block in a complete response.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// wireDelta is the delta of content_block_delta (text_delta,
// input_json_delta, thinking_delta, signature_delta) or of message_delta
// (stop_reason).
type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// wireUsage is the usage object. Fields are pointers because message_delta
// repeats only some of them (output_tokens always, the others when known),
// each a cumulative value that replaces the earlier one.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// merge overlays the fields present in o.
func (u *wireUsage) merge(o *wireUsage) {
	if o == nil {
		return
	}
	set := func(dst **int, src *int) {
		if src != nil {
			*dst = src
		}
	}
	set(&u.InputTokens, o.InputTokens)
	set(&u.OutputTokens, o.OutputTokens)
	set(&u.CacheCreationInputTokens, o.CacheCreationInputTokens)
	set(&u.CacheReadInputTokens, o.CacheReadInputTokens)
	if o.OutputTokensDetails != nil {
		u.OutputTokensDetails = o.OutputTokensDetails
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// replay is the ReasoningReplay this transport writes: the blocks of the
// assistant message in their original order, thinking and
// redacted_thinking blocks in full (they must go back unchanged, signature
// included), text and tool_use blocks as placeholders that mark where the
// message's content and tool calls stood.
type replay struct {
	Format string        `json:"format"`
	Blocks []replayBlock `json:"blocks"`
}

// replayBlock is one block of a replay. Thinking is a pointer so that a
// thinking block with empty text (the API can omit it) keeps "thinking":"".
type replayBlock struct {
	Type      string  `json:"type"`
	Thinking  *string `json:"thinking,omitempty"`
	Signature string  `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`
	ID        string  `json:"id,omitempty"`
}

// parseReplay returns the blocks of a ReasoningReplay written by this
// transport; replay data of any other format (another transport's, after a
// fallback) gives nil and is ignored.
func parseReplay(raw json.RawMessage) []replayBlock {
	if len(raw) == 0 {
		return nil
	}
	var r replay
	if json.Unmarshal(raw, &r) != nil || r.Format != ReplayFormat {
		return nil
	}
	return r.Blocks
}
