package trace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"talaria/loop"
)

const streamKey = "sk-proj-Q7vX2mLp9RtY4wZk8HbN3cJd6FgS1aEu"

// sse is an OpenAI chat stream: deltas of text and, per call index, tool
// arguments cut into 7-byte pieces, the calls interleaved.
func sse(texts []string, args map[int]string) string {
	var b strings.Builder
	data := func(delta string) {
		fmt.Fprintf(&b, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta)
	}
	for _, t := range texts {
		q, _ := json.Marshal(t)
		data(`{"content":` + string(q) + `}`)
	}
	for done := false; !done; {
		done = true
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "" {
				continue
			}
			n := min(7, len(a))
			q, _ := json.Marshal(a[:n])
			data(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, q))
			args[i], done = a[n:], false
		}
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// reassemble reads a masked stream back the way a wire does: the text and
// each call's arguments, joined.
func reassemble(t *testing.T, body string) (text string, args map[int]string) {
	args = map[int]string{}
	for _, line := range strings.Split(body, "\n") {
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok || payload == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Index    int
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("masking broke a chunk: %v\n%s", err, payload)
		}
		text += c.Choices[0].Delta.Content
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			args[tc.Index] += tc.Function.Arguments
		}
	}
	return text, args
}

// TestRecordedStreamMasksSplitSecrets: in recorded response chunks a key
// split across two text deltas, and a URL password and key cut into
// 7-byte pieces of two interleaved tool calls' arguments, come out masked;
// every chunk stays valid JSON, each call keeps its own arguments, and the
// chunks' read boundaries and timings are kept.
func TestRecordedStreamMasksSplitSecrets(t *testing.T) {
	m := loop.NewMasking(streamKey)
	text := []string{"The key is " + streamKey[:17], streamKey[17:] + " ok. ", "Bye."}
	call0 := `{"command":"echo postgres://admin:S3cretPass@db/x ` + streamKey + `"}`
	call1 := `{"path":"notes.txt"}`
	body := sse(text, map[int]string{0: call0, 1: call1})
	// Read in 50-byte chunks: reads cut through strings too.
	var chunks []Chunk
	for i := 0; i < len(body); i += 50 {
		chunks = append(chunks, Chunk{TMS: float64(i), Data: body[i:min(len(body), i+50)]})
	}
	out := maskChunks(m, chunks)
	if len(out) != len(chunks) {
		t.Fatalf("%d chunks became %d", len(chunks), len(out))
	}
	var joined strings.Builder
	for i, c := range out {
		if c.TMS != chunks[i].TMS {
			t.Fatalf("chunk %d moved from %v to %v", i, chunks[i].TMS, c.TMS)
		}
		joined.WriteString(c.Data)
	}
	got := joined.String()
	for _, leak := range []string{streamKey, streamKey[:17], streamKey[17:], "S3cretPass"} {
		if strings.Contains(got, leak) {
			t.Fatalf("the recorded stream holds %q:\n%s", leak, got)
		}
	}
	gotText, gotArgs := reassemble(t, got)
	if want := m.Mask(strings.Join(text, "")); gotText != want {
		t.Fatalf("text %q, want %q", gotText, want)
	}
	if gotArgs[0] != m.Mask(call0) || gotArgs[1] != call1 {
		t.Fatalf("arguments %v", gotArgs)
	}
}

// TestRecorderMasksEveryLine: a recorder with the session's masking masks
// URL credentials in a tool result and a request body, and keeps the body
// valid JSON.
func TestRecorderMasksEveryLine(t *testing.T) {
	var buf strings.Builder
	rec := newRecorder(&buf, nopCloser{}, nil)
	rec.mask = loop.NewMasking(streamKey)
	rec.write(Line{Type: "tool", Output: "postgres://admin:S3cretPass@db/x\n" + streamKey})
	rec.write(Line{Type: "request", Body: json.RawMessage(`{"messages":[{"content":"see postgres://admin:S3cretPass@db/x"}]}`)})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var l Line
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, line)
		}
		if strings.Contains(line, "S3cretPass") || strings.Contains(line, streamKey) {
			t.Fatalf("recorded %s", line)
		}
	}
}

// FuzzRecordedStreamStaysJSON: whatever text the model streams and wherever
// the reads cut the body, the masked chunks stay valid JSON and carry the
// masking of the whole text.
func FuzzRecordedStreamStaysJSON(f *testing.F) {
	f.Add("The key is "+streamKey[:9], streamKey[9:]+" ok", uint16(40))
	f.Add("see https://u:", "p@h/?key=abc", uint16(7))
	f.Add("\"quoted\\\"", "\u2028<&>", uint16(90))
	m := loop.NewMasking(streamKey)
	f.Fuzz(func(t *testing.T, a, b string, cut uint16) {
		if len(a)+len(b) > loop.MaxMaskHold {
			return
		}
		body := sse([]string{a, b}, map[int]string{})
		n := int(cut)%len(body) + 1
		chunks := []Chunk{{TMS: 1, Data: body[:n]}, {TMS: 2, Data: body[n:]}}
		out := maskChunks(m, chunks)
		text, _ := reassemble(t, out[0].Data+out[1].Data)
		sent, _ := reassemble(t, body) // what the wire carries (valid UTF-8)
		// Masking may cut a rune (MaskSecret keeps bytes); JSON then holds
		// U+FFFD for each byte of it.
		var want string
		_ = json.Unmarshal([]byte(quoteJSON(m.Mask(sent))), &want)
		if text != want {
			t.Fatalf("text %q, want %q", text, want)
		}
	})
}
