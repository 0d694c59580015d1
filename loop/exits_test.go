package loop

import (
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

func TestContentPolicyBlockedEndsWithoutRetry(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Error(400, `{"error":{"message":"Invalid prompt: your prompt was flagged as potentially violating our usage policy. This request violates our usage policies.","type":"invalid_request_error","code":"invalid_prompt"}}`, nil))
	res := f.run(t, "something bad")
	if res.ExitReason != ExitContentPolicyBlocked || res.Completed || len(f.srv.Requests()) != 1 || !strings.Contains(res.FinalResponse, "content policy") {
		t.Fatalf("result: %+v (%d requests)", res, len(f.srv.Requests()))
	}
}

func TestMaxIterationsReachedWhileBudgetRemains(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxIterations = 2 })
	// Each truncated reply is a continuation restart (refunded), so the
	// budget still has room when api_calls reaches max_iterations.
	f.srv.Push(pt.Truncated("part one "), pt.Truncated("part two "), pt.Text("Summary of the parts."))
	res := f.run(t, "long answer please")
	if res.ExitReason != "max_iterations_reached(2/2)" || res.FinalResponse != "Summary of the parts." || res.Completed {
		t.Fatalf("result: %+v", res)
	}
}
