package config

import (
	"fmt"
	"net/url"
)

// Telemetry configures the OpenTelemetry trace export.
type Telemetry struct {
	// OTLPEndpoint is the OTLP/HTTP collector's base URL (traces go to
	// {endpoint}/v1/traces); empty falls back to OTEL_EXPORTER_OTLP_ENDPOINT,
	// and both empty means no export.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// LogContent adds prompt and answer text to the spans; off by default.
	LogContent bool `yaml:"log_content"`
}

// Endpoint returns the collector URL to use (config first, then the
// standard environment variable), or "" for none. A URL that is not
// http(s)://host is an error naming where it came from.
func (t Telemetry) Endpoint(getenv func(string) string) (string, error) {
	raw, from := t.OTLPEndpoint, "telemetry.otlp_endpoint"
	if raw == "" {
		raw, from = getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "OTEL_EXPORTER_OTLP_ENDPOINT"
	}
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: %q is not an http(s) URL", from, raw)
	}
	return raw, nil
}
