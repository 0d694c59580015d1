package loop

import (
	"net"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

// TestConnectionRefusedRetriedTwiceAndNamed: a base URL where nothing
// listens is connection_refused, retried twice (quickly), and the turn's
// explanation says nothing is listening there.
func TestConnectionRefusedRetriedTwiceAndNamed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	_ = l.Close()
	f := chainFixture(t, providers.Backend{Provider: "custom", Model: "m", BaseURL: base, APIMode: "chat_completions"})
	res := f.run(t, "hi")
	if res.Completed || res.ExitReason.Kind != ExitRetriesExhausted {
		t.Fatalf("result: %+v", res)
	}
	retries := ofType[*RetryScheduled](f.rec)
	if len(retries) != providers.ConnectionRefusedRetries {
		t.Fatalf("%d retries, want %d: %+v", len(retries), providers.ConnectionRefusedRetries, retries)
	}
	for i, r := range retries {
		if r.Reason != providers.ReasonConnectionRefused.String() || r.Status != 0 || r.DelayMS > 1000 {
			t.Errorf("retry %d: %+v", i, r)
		}
		if !strings.Contains(r.Message, "nothing is listening at "+base) {
			t.Errorf("retry %d message %q", i, r.Message)
		}
	}
	if !strings.HasPrefix(res.Explanation, "Nothing is listening at "+base) || strings.Contains(res.Explanation, "kept failing") {
		t.Fatalf("explanation %q", res.Explanation)
	}
}

// TestUnauthorizedNamesTheKeyVariable: a 401 leads with the rejected key's
// variable and the fix, and one attempt is not "kept failing".
func TestUnauthorizedNamesTheKeyVariable(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Error(401, `{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, nil))
	f := chainFixture(t, providers.Backend{Provider: "openai", Model: "gpt-4.1", BaseURL: srv.URL(), APIMode: "chat_completions",
		APIKeys: []string{"sk-test"}, KeyEnvs: []string{"OPENAI_API_KEY"}})
	res := f.run(t, "hi")
	want := "The provider rejected the API key in OPENAI_API_KEY (HTTP 401). Check that OPENAI_API_KEY holds a valid openai key"
	if !strings.HasPrefix(res.Explanation, want) || strings.Contains(res.Explanation, "kept failing") {
		t.Fatalf("explanation %q", res.Explanation)
	}
	if n := len(ofType[*RetryScheduled](f.rec)); n != 0 {
		t.Fatalf("a 401 was retried %d times", n)
	}
}
