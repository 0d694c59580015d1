package bedrock

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// toolStream is a constructed converse-stream body (event names and
// payloads as in the ConverseStream API reference): signed reasoning in
// three deltas, text in two, a tool call whose input arrives in pieces
// split mid-token, a second call without input, stop and metadata.
func toolStream() []byte {
	return concat(
		event("messageStart", `{"role":"assistant"}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Need the "}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"file."}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"EqQBCkYIBRgCKkCsig"}}}`),
		event("contentBlockStop", `{"contentBlockIndex":0}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"Let me "}}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"check."}}`),
		event("contentBlockStop", `{"contentBlockIndex":1}`),
		event("contentBlockStart", `{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_Xk2pQ9","name":"read_file"}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":""}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"path\": \"RE"}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":"ADME.md\"}"}}}`),
		event("contentBlockStop", `{"contentBlockIndex":2}`),
		event("contentBlockStart", `{"contentBlockIndex":3,"start":{"toolUse":{"toolUseId":"tooluse_Lm7",  "name":"list_dir"}}}`),
		event("contentBlockStop", `{"contentBlockIndex":3}`),
		event("messageStop", `{"stopReason":"tool_use"}`),
		event("metadata", `{"usage":{"inputTokens":812,"outputTokens":74,"totalTokens":3934,"cacheReadInputTokens":3048,"cacheWriteInputTokens":0},"metrics":{"latencyMs":1840}}`),
	)
}

// TestConverseStream checks assembly and deltas of a converse-stream body
// and the request it answers.
func TestConverseStream(t *testing.T) {
	srv, reqs := startServer(t, providertest.WireReply{Body: toolStream()})
	tr := newTestTransport(t, srv, true)
	var log deltaLog
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.add)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	c := <-reqs
	if !strings.HasSuffix(c.RawPath, "/converse-stream") || c.Header.Get("Accept") != "application/vnd.amazon.eventstream" {
		t.Errorf("path %s headers %v", c.RawPath, c.Header)
	}
	want := &providers.Response{
		Content:         "Let me check.",
		Reasoning:       "Need the file.",
		ReasoningReplay: []byte(`{"bedrock_converse":[{"reasoningText":{"text":"Need the file.","signature":"EqQBCkYIBRgCKkCsig"}}]}`),
		ToolCalls: []providers.ToolCall{
			{ID: "tooluse_Xk2pQ9", Name: "read_file", Arguments: `{"path": "README.md"}`},
			{ID: "tooluse_Lm7", Name: "list_dir", Arguments: `{}`},
		},
		FinishReason: "tool_calls", RawFinishReason: "tool_use",
		Usage: providers.Usage{InputTokens: 812, OutputTokens: 74, CacheReadTokens: 3048},
		Model: tr.ep.Model,
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response\n%+v\nwant\n%+v", resp, want)
	}
	if !reflect.DeepEqual(log.texts, []string{"Let me ", "check."}) || !reflect.DeepEqual(log.reasonings, []string{"Need the ", "file."}) {
		t.Errorf("deltas %q %q", log.texts, log.reasonings)
	}
	if len(log.tools) != 2 || log.tools[1].ToolIndex != 1 || log.tools[1].ToolName != "list_dir" {
		t.Errorf("tool deltas %+v", log.tools)
	}

	// The replay goes back on the next request, before the text.
	next := providers.Request{
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}, resp.Message()},
		Tools:    []providers.ToolSpec{{Name: "read_file"}, {Name: "list_dir"}},
	}
	b, _ := buildRequest(next, "m")
	msgs := b.Messages
	if rc := msgs[1].Content[0].ReasoningContent; rc == nil || rc.ReasoningText.Signature != "EqQBCkYIBRgCKkCsig" {
		t.Errorf("replayed %+v", msgs[1].Content[0])
	}
}

// TestConverseStreamFinishes covers stop reasons and redacted reasoning.
func TestConverseStreamFinishes(t *testing.T) {
	body := concat(
		event("messageStart", `{"role":"assistant"}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"redactedContent":"AAEC"}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"Sorry."}}`),
		event("someFutureEvent", `{"x":1}`),
		event("messageStop", `{"stopReason":"guardrail_intervened"}`),
	)
	srv, _ := startServer(t, providertest.WireReply{Body: body})
	resp, err := newTestTransport(t, srv, true).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "content_filter" || resp.Content != "Sorry." || string(resp.ReasoningReplay) != `{"bedrock_converse":[{"redactedContent":"AAEC"}]}` || resp.Usage != (providers.Usage{}) {
		t.Errorf("resp %+v replay %s", resp, resp.ReasoningReplay)
	}
}

// TestConverseStreamErrors: an exception frame, a stream cut between
// frames, one cut inside a frame, a corrupt CRC and an undecodable payload
// are MidStream errors that come with the partial response.
func TestConverseStreamErrors(t *testing.T) {
	head := concat(
		event("messageStart", `{"role":"assistant"}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Partial answer"}}`),
	)
	corrupt := event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"x"}}`)
	corrupt[len(corrupt)-1] ^= 0xff
	tests := []struct {
		name     string
		body     []byte
		typ, msg string
		code     string
		eof      bool
	}{
		{name: "throttling exception", body: concat(head, exception("throttlingException", "Too many tokens, please wait before trying again.")),
			typ: "ThrottlingException", msg: "Too many tokens, please wait before trying again."},
		{name: "model stream error", body: concat(head, exception("modelStreamErrorException", "Model stream error: Input is too long")),
			typ: "ModelStreamErrorException", msg: "Model stream error: Input is too long", code: providers.CodeContextOverflow},
		{name: "error frame", body: concat(head, encodeFrame([]hdr{{":message-type", "error"}, {":error-code", "InternalFailure"}, {":error-message", "internal failure"}}, nil)),
			typ: "InternalFailure", msg: "internal failure"},
		{name: "cut between frames", body: head, eof: true},
		{name: "cut inside a frame", body: concat(head, corrupt[:20]), eof: true},
		{name: "cut inside the prelude", body: concat(head, corrupt[:5]), eof: true},
		{name: "bad CRC", body: concat(head, corrupt)},
		{name: "bad payload", body: concat(head, encodeFrame([]hdr{{":message-type", "event"}, {":event-type", "contentBlockDelta"}}, []byte("{not json")))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startServer(t, providertest.WireReply{Body: tc.body})
			resp, err := newTestTransport(t, srv, true).Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if resp == nil || resp.Content != "Partial answer" || !ae.MidStream || ae.Status != 0 || ae.Message == "" {
				t.Fatalf("resp %+v err %+v", resp, ae)
			}
			if tc.typ != "" && (ae.Type != tc.typ || ae.Message != tc.msg || ae.Code != tc.code) {
				t.Errorf("err %+v", ae)
			}
			if tc.eof != errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("errors.Is(io.ErrUnexpectedEOF) = %v: %v", !tc.eof, err)
			}
		})
	}
}

// TestConverseStreamEmpty: a 200 with no frames at all says so.
func TestConverseStreamEmpty(t *testing.T) {
	srv, _ := startServer(t, providertest.WireReply{})
	resp, err := newTestTransport(t, srv, true).Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if resp == nil || !ae.MidStream || !strings.Contains(ae.Message, "before any event") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("resp %+v err %+v", resp, ae)
	}
}

// TestEventReader covers the framing: every header value type, frame
// limits, and CRC checks.
func TestEventReader(t *testing.T) {
	var hb []byte
	add := func(name string, typ byte, val []byte) {
		hb = append(hb, byte(len(name)))
		hb = append(hb, name...)
		hb = append(hb, typ)
		hb = append(hb, val...)
	}
	add("t", hvTrue, nil)
	add("f", hvFalse, nil)
	add("b", hvByte, []byte{7})
	add("s", hvInt16, []byte{0, 1})
	add("i", hvInt32, []byte{0, 0, 0, 1})
	add("l", hvInt64, make([]byte, 8))
	add("ts", hvTimestamp, make([]byte, 8))
	add("u", hvUUID, make([]byte, 16))
	add("ba", hvBytes, []byte{0, 2, 'h', 'i'})
	add(":event-type", hvString, append([]byte{0, 8}, "metadata"...))
	frame := func(headers, payload []byte) []byte {
		total := preludeLen + len(headers) + len(payload) + 4
		m := binary.BigEndian.AppendUint32(nil, uint32(total))
		m = binary.BigEndian.AppendUint32(m, uint32(len(headers)))
		m = binary.BigEndian.AppendUint32(m, crc32IEEE(m))
		m = append(append(m, headers...), payload...)
		return binary.BigEndian.AppendUint32(m, crc32IEEE(m))
	}
	er := newEventReader(bytes.NewReader(concat(frame(hb, []byte("{}")), frame(nil, nil))))
	f, err := er.next()
	if err != nil || f.eventType != "metadata" || string(f.payload) != "{}" {
		t.Fatalf("frame %+v err %v", f, err)
	}
	if f, err = er.next(); err != nil || len(f.payload) != 0 {
		t.Fatalf("empty frame %+v err %v", f, err)
	}
	if _, err = er.next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}

	bad := map[string][]byte{
		"unknown header type": frame([]byte{1, 'x', 42}, nil),
		"cut string header":   frame([]byte{1, 'x', hvString, 0, 9, 'a'}, nil),
		"cut int header":      frame([]byte{1, 'x', hvInt32, 0}, nil),
		"empty header name":   frame([]byte{0}, nil),
		"prelude CRC":         append([]byte{0, 0, 0, 16, 0, 0, 0, 0, 1, 2, 3, 4}, 0, 0, 0, 0),
		"too short":           func() []byte { m := frame(nil, nil); return fixPrelude(m, 8, 0) }(),
		"headers past end":    func() []byte { m := frame(nil, nil); return fixPrelude(m, 16, 20) }(),
	}
	for name, b := range bad {
		_, err := newEventReader(bytes.NewReader(b)).next()
		if !errors.Is(err, errFrame) {
			t.Errorf("%s: err %v, want errFrame", name, err)
		}
	}
}

// fixPrelude rewrites the lengths of a frame and its prelude CRC.
func fixPrelude(m []byte, total, hlen uint32) []byte {
	binary.BigEndian.PutUint32(m[0:], total)
	binary.BigEndian.PutUint32(m[4:], hlen)
	binary.BigEndian.PutUint32(m[8:], crc32IEEE(m[:8]))
	return m
}
