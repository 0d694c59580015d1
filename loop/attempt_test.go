package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

func TestGrammarErrorStripsSchemaKeywordsOnce(t *testing.T) {
	f := newFixture(t, nil)
	f.agent.opts.Tools.Register(fakeTodo{})
	f.srv.Push(
		pt.Error(400, `{"error":{"code":400,"message":"JSON schema conversion failed:\nerror parsing grammar: unknown format","type":"invalid_request_error"}}`, nil),
		pt.Text("fine now"),
	)
	res := f.run(t, "hi")
	if !res.Completed || len(f.srv.Requests()) != 2 || len(ofType[*RetryScheduled](f.rec)) != 0 {
		t.Fatalf("result: %+v, %d requests", res, len(f.srv.Requests()))
	}
	if !strings.Contains(f.srv.RawRequests()[1], `"pattern":{`) {
		t.Fatal("the search_files property named pattern must survive")
	}
}

func TestStripSchemaKeepsPropertyNames(t *testing.T) {
	in := []providers.ToolSpec{{Name: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","pattern":"^a"},"when":{"type":"string","format":"date-time"}}}`)}}
	out := stripGrammarKeywords(in)
	if got := string(out[0].Parameters); got != `{"properties":{"pattern":{"type":"string"},"when":{"type":"string"}},"type":"object"}` {
		t.Fatalf("stripped schema: %s", got)
	}
}

func TestThinkingSignatureRetriedWithoutReplay(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.History = []providers.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a", ReasoningReplay: json.RawMessage(`{"x":1}`)}}
	})
	f.srv.Push(
		pt.Error(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `+"`signature`"+` in `+"`thinking`"+` block"}}`, nil),
		pt.Text("ok"),
	)
	res := f.run(t, "next")
	if !res.Completed || len(f.srv.Requests()) != 2 {
		t.Fatalf("result: %+v", res)
	}
}
