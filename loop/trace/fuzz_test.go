package trace

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseRecording: a recording is a file from a bug report; reading any
// bytes either fails with an error or yields lines that replay's request
// comparison handles without panicking.
func FuzzParseRecording(f *testing.F) {
	f.Add([]byte(`{"type":"header","version":1,"provider":"openai","model":"m","api_mode":"chat_completions","tools":[]}` + "\n" +
		`{"type":"turn","turn":1,"input":"hi"}` + "\n" +
		`{"type":"request","turn":1,"seq":1,"method":"POST","url":"http://h/v1/chat/completions","body":{"messages":[{"role":"user","content":"hi"}]}}` + "\n" +
		`{"type":"response","turn":1,"seq":1,"status":200,"chunks":[{"t_ms":1,"data":"data: [DONE]\n\n"}]}` + "\n"))
	f.Add([]byte(`{"type":"header","version":1}` + "\n" + `{"type":"tool","name":"x","arguments":"{\"a\":[1,{\"b\":null}]}"}`))
	f.Add([]byte("\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseRecording(bytes.NewReader(data))
		if err != nil {
			return
		}
		if rec.Header.Version != RecordVersion {
			t.Fatalf("accepted version %d", rec.Header.Version)
		}
		for _, l := range rec.Lines {
			var a any
			if len(l.Body) > 0 && json.Unmarshal(l.Body, &a) == nil {
				if _, _, _, d := firstDiff("$", a, a); d {
					t.Fatalf("a body differs from itself: %s", l.Body)
				}
			}
			_ = sameArgs(l.Arguments, l.Arguments) || t.Failed()
			_ = urlPath(l.URL)
		}
	})
}
