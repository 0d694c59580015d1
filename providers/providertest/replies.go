package providertest

import (
	"encoding/json"
	"fmt"
	"strings"
)

const chunkHead = `{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1727346168,"model":"test-model","system_fingerprint":"fp_test","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`

func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(chunkHead, delta, f)
}

func usageChunk(in, out int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1727346168,"model":"test-model","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TextChunks streams text word by word and finishes with finish.
func TextChunks(text, finish string) []string {
	out := []string{chunk(`{"role":"assistant","content":"","refusal":null}`, "")}
	words := strings.SplitAfter(text, " ")
	for _, w := range words {
		if w != "" {
			out = append(out, chunk(`{"content":`+str(w)+`}`, ""))
		}
	}
	out = append(out, chunk(`{}`, finish), usageChunk(10, len(words)))
	return out
}

// Text is a streamed text answer finishing with "stop".
func Text(text string) Reply { return Reply{Chunks: TextChunks(text, "stop")} }

// Truncated is a streamed text answer cut by the output limit.
func Truncated(text string) Reply { return Reply{Chunks: TextChunks(text, "length")} }

// ToolCalls streams tool calls the way OpenAI does: for each call an opening
// fragment with id, type and name, then its arguments split into pieces of
// at most 7 bytes; then a finish chunk "tool_calls" and the usage chunk.
func ToolCalls(calls ...Call) Reply {
	return Reply{Chunks: ToolCallChunks("tool_calls", calls...)}
}

// ToolCallChunks builds tool-call chunks with a chosen finish reason.
func ToolCallChunks(finish string, calls ...Call) []string {
	out := []string{chunk(`{"role":"assistant","content":null}`, "")}
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`, i, str(id), str(c.Name)), ""))
		for a := c.Args; a != ""; {
			n := min(7, len(a))
			out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, str(a[:n])), ""))
			a = a[n:]
		}
	}
	out = append(out, chunk(`{}`, finish), usageChunk(20, 5))
	return out
}

// Error is an HTTP error reply with a JSON body.
func Error(status int, body string, headers map[string]string) Reply {
	return Reply{Status: status, Body: body, Headers: headers}
}
