package app_test

import (
	"context"
	ebin "encoding/binary"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"talaria/loop/app"
	"talaria/providers"
	"talaria/providers/bedrock"
)

// eventFrame is one AWS event-stream message (prelude with its CRC32,
// string headers, payload, message CRC32), as ConverseStream sends it.
func eventFrame(eventType, payload string) []byte {
	var hb []byte
	for _, h := range [][2]string{{":event-type", eventType}, {":content-type", "application/json"}, {":message-type", "event"}} {
		hb = append(hb, byte(len(h[0])))
		hb = append(hb, h[0]...)
		hb = append(hb, 7) // string value
		hb = ebin.BigEndian.AppendUint16(hb, uint16(len(h[1])))
		hb = append(hb, h[1]...)
	}
	total := 12 + len(hb) + len(payload) + 4
	msg := ebin.BigEndian.AppendUint32(nil, uint32(total))
	msg = ebin.BigEndian.AppendUint32(msg, uint32(len(hb)))
	msg = ebin.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(msg, hb...)
	msg = append(msg, payload...)
	return ebin.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

// TestBedrockTextStreamsLive: the bedrock_converse transport the app
// registers calls ConverseStream and hands text to the loop as it
// arrives: the server holds the rest of its answer until the first
// delta has reached the caller (bounded), which only a streaming client
// can satisfy. On main the registry held the non-streaming client.
func TestBedrockTextStreamsLive(t *testing.T) {
	firstSeen := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/converse-stream") || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"message":"not this call"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		fl := w.(http.Flusher)
		w.Write(eventFrame("messageStart", `{"role":"assistant","p":"abcd"}`))
		w.Write(eventFrame("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"ab"}`))
		fl.Flush()
		select {
		case <-firstSeen:
		case <-time.After(10 * time.Second):
			return // the client waited for the whole body: no live text
		case <-r.Context().Done():
			return
		}
		w.Write(eventFrame("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":", world"}}`))
		w.Write(eventFrame("contentBlockStop", `{"contentBlockIndex":0}`))
		w.Write(eventFrame("messageStop", `{"stopReason":"end_turn"}`))
		w.Write(eventFrame("metadata", `{"usage":{"inputTokens":7,"outputTokens":3,"totalTokens":10},"metrics":{"latencyMs":5}}`))
	}))
	defer srv.Close()
	tr, err := app.Transports().New(bedrock.APIMode, providers.Endpoint{Provider: "bedrock", BaseURL: srv.URL,
		APIKey: "test-key", Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := tr.Stream(ctx, providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}},
		func(d providers.Delta) {
			if d.Kind == providers.DeltaText {
				if len(texts) == 0 {
					close(firstSeen)
				}
				texts = append(texts, d.Text)
			}
		})
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if strings.Join(texts, "|") != "Hello|, world" || resp.Content != "Hello, world" || resp.Usage.OutputTokens != 3 {
		t.Fatalf("deltas %q, response %+v", texts, resp)
	}
}
