// Package bedrock is the bedrock_converse transport: Amazon Bedrock's
// Converse API spoken directly over net/http, without the AWS SDK.
//
// By default (New) a call is one POST {base}/model/{modelId}/converse whose
// JSON answer is reported as a single text delta (and a single reasoning
// delta) once it arrives. NewStreaming uses POST .../converse-stream
// instead, whose body is AWS event-stream binary framing; eventstream.go
// decodes it (prelude, headers, CRC32 checks) without the SDK. talaria
// registers NewStreaming (loop/app.Transports), so that Bedrock answers
// reach the screen as they are written.
//
// Authentication is a Bedrock API key sent as "Authorization: Bearer <key>"
// (ep.APIKey, else the AWS_BEARER_TOKEN_BEDROCK environment variable).
// AWS Signature Version 4 (access key + secret) is not implemented: use a
// Bedrock API key, or a gateway that signs on our behalf.
package bedrock

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"talaria/providers"
)

// APIMode is the registry key of this transport.
const APIMode = "bedrock_converse"

// Environment variables read when the endpoint leaves a value empty.
const (
	// EnvBearerToken holds a Bedrock API key, used when ep.APIKey is empty.
	EnvBearerToken = "AWS_BEARER_TOKEN_BEDROCK"
	// EnvRegion names the region of the default endpoint
	// (https://bedrock-runtime.<region>.amazonaws.com) when ep.BaseURL is
	// empty.
	EnvRegion = "AWS_REGION"
	// EnvDefaultRegion is read when EnvRegion is not set.
	EnvDefaultRegion = "AWS_DEFAULT_REGION"
	// DefaultRegion is the region used when no base URL or region is set.
	DefaultRegion = "us-east-1"
)

// converseTransport implements providers.Transport for bedrock_converse.
type converseTransport struct {
	ep      providers.Endpoint
	baseURL string
	apiKey  string
	client  *http.Client
	// stream selects converse-stream over converse.
	stream bool
}

// The wire implements providers.Transport.
var _ providers.Transport = (*converseTransport)(nil)

// New builds a bedrock_converse transport that uses the non-streaming
// Converse call. It is a providers.Factory. An empty ep.BaseURL means
// https://bedrock-runtime.<region>.amazonaws.com with the region taken from
// AWS_REGION, AWS_DEFAULT_REGION or DefaultRegion; an empty ep.APIKey is
// read from AWS_BEARER_TOKEN_BEDROCK. A key is required for an amazonaws.com
// host (SigV4 is not supported); other hosts (gateways, test servers) may go
// without. ep.HTTPClient, or a default client without timeout, carries
// every request; nothing is retried here.
func New(ep providers.Endpoint) (providers.Transport, error) {
	return newTransport(ep, os.Getenv, false)
}

// NewStreaming is New for the ConverseStream call: text, reasoning and tool
// calls are reported as they arrive. It is a providers.Factory with the same
// api_mode and the same endpoint rules as New.
func NewStreaming(ep providers.Endpoint) (providers.Transport, error) {
	return newTransport(ep, os.Getenv, true)
}

// newTransport is New with the environment lookup passed in, for tests.
func newTransport(ep providers.Endpoint, getenv func(string) string, stream bool) (*converseTransport, error) {
	region := firstNonEmpty(getenv(EnvRegion), getenv(EnvDefaultRegion), DefaultRegion)
	base, u, err := ep.Base("https://bedrock-runtime."+region+".amazonaws.com", "https://bedrock-runtime.us-east-1.amazonaws.com")
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(ep.APIKey)
	if key == "" {
		key = strings.TrimSpace(getenv(EnvBearerToken))
	}
	if key == "" && strings.HasSuffix(strings.ToLower(u.Hostname()), ".amazonaws.com") {
		return nil, fmt.Errorf("%s: no Bedrock API key: set %s (or the provider's api key); AWS SigV4 credentials are not supported", ep.Provider, EnvBearerToken)
	}
	return &converseTransport{ep: ep, baseURL: base, apiKey: key, client: ep.Client(), stream: stream}, nil
}

// model returns the model id of req, else of the endpoint.
func (t *converseTransport) model(req providers.Request) (string, error) {
	return t.ep.ModelFor(req, "set model.name to a Bedrock model id or inference profile (e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0)")
}

// callURL is {base}/model/{modelId}/converse[-stream]. The model id is one
// escaped path segment: inference-profile ARNs contain slashes.
func (t *converseTransport) callURL(model string) string {
	op := "converse"
	if t.stream {
		op = "converse-stream"
	}
	return t.baseURL + "/model/" + url.PathEscape(model) + "/" + op
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
