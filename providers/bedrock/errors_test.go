package bedrock

import (
	"context"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestHTTPErrors checks that Bedrock error answers (status, x-amzn-ErrorType,
// {"message"} body; constructed from the API reference's error list)
// become APIErrors with status, headers, body, message, exception type,
// and the context-overflow code where the message says so.
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name, errType, body string
		status              int
		msg, typ, code      string
	}{
		{
			name: "throttling", status: 429, errType: "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
			body: `{"message":"Too many requests, please wait before trying again."}`,
			msg:  "Too many requests, please wait before trying again.", typ: "ThrottlingException",
		},
		{
			name: "input too long", status: 400, errType: "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
			body: `{"message":"Input is too long for requested model."}`,
			msg:  "Input is too long for requested model.", typ: "ValidationException", code: providers.CodeContextOverflow,
		},
		{
			name: "too many tokens", status: 400, errType: "ValidationException",
			body: `{"message":"The model returned the following errors: prompt is too long: 215123 tokens > 200000 maximum"}`,
			typ:  "ValidationException", code: providers.CodeContextOverflow,
			msg: "The model returned the following errors: prompt is too long: 215123 tokens > 200000 maximum",
		},
		{
			name: "input tokens exceed", status: 400, errType: "ValidationException",
			body: `{"message":"Malformed input request: #: expected maxLength: 1000000, actual: 1048577, the number of input tokens exceeds the limit, please reformat your input and try again."}`,
			typ:  "ValidationException", code: providers.CodeContextOverflow,
			msg: "Malformed input request: #: expected maxLength: 1000000, actual: 1048577, the number of input tokens exceeds the limit, please reformat your input and try again.",
		},
		{
			name: "plain validation", status: 400, errType: "ValidationException",
			body: `{"message":"A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."}`,
			typ:  "ValidationException",
			msg:  "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
		},
		{
			name: "model not ready", status: 429, errType: "ModelNotReadyException",
			body: `{"message":"Model is not ready for inference. Wait and try your request again."}`,
			msg:  "Model is not ready for inference. Wait and try your request again.", typ: "ModelNotReadyException",
		},
		{
			name: "service unavailable", status: 503, errType: "ServiceUnavailableException",
			body: `{"message":"Bedrock is unable to process your request."}`,
			msg:  "Bedrock is unable to process your request.", typ: "ServiceUnavailableException",
		},
		{
			name: "access denied", status: 403, errType: "AccessDeniedException",
			body: `{"Message":"You don't have access to the model with the specified model ID."}`,
			msg:  "You don't have access to the model with the specified model ID.", typ: "AccessDeniedException",
		},
		{
			name: "type from __type only", status: 404,
			body: `{"__type":"com.amazon.coral.service#ResourceNotFoundException","message":"Could not resolve the foundation model from the provided model identifier."}`,
			msg:  "Could not resolve the foundation model from the provided model identifier.", typ: "ResourceNotFoundException",
		},
		{
			name: "non-JSON gateway body", status: 502, body: "<html><body>Bad Gateway</body></html>",
			msg: "<html><body>Bad Gateway</body></html>",
		},
		{
			name: "empty body", status: 500, msg: "Internal Server Error",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.errType != "" {
				h["X-Amzn-ErrorType"] = tc.errType
			}
			srv, _ := startServer(t, providertest.WireReply{Status: tc.status, Headers: h, Body: []byte(tc.body)})
			tr := newTestTransport(t, srv, false)
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v with an HTTP error", resp)
			}
			ae := providertest.AsAPIError(t, err)
			if ae.Status != tc.status || ae.Message != tc.msg || ae.Type != tc.typ || ae.Code != tc.code || ae.Body != tc.body || ae.MidStream {
				t.Errorf("got %+v", ae)
			}
			if ae.Provider != "bedrock" || ae.Headers.Get("X-Amzn-Requestid") == "" {
				t.Errorf("provider %q headers %v", ae.Provider, ae.Headers)
			}
		})
	}
}

// TestConnectError: a refused connection is an APIError without status
// that says which URL could not be reached.
func TestConnectError(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{})
	providertest.CheckUnreachable(t, srv, newTestTransport(t, srv.Server, false))
}

// TestExceptionName covers the spellings of AWS error types.
func TestExceptionName(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "ValidationException": "ValidationException",
		"ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/": "ThrottlingException",
		"com.amazon.coral.validate#ValidationException":                            "ValidationException",
		"modelStreamErrorException":                                                "ModelStreamErrorException",
	} {
		if got := exceptionName(in); got != want {
			t.Errorf("exceptionName(%q) = %q, want %q", in, got, want)
		}
	}
}
