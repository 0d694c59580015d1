package config

import (
	"strings"
	"testing"
)

func TestTelemetryEndpoint(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
				return v
			}
			return ""
		}
	}
	if u, err := (Telemetry{}).Endpoint(env("")); u != "" || err != nil {
		t.Fatalf("nothing set: %q %v", u, err)
	}
	if u, err := (Telemetry{}).Endpoint(env("http://otel:4318")); u != "http://otel:4318" || err != nil {
		t.Fatalf("from the environment: %q %v", u, err)
	}
	if u, err := (Telemetry{OTLPEndpoint: "https://c.example/otlp"}).Endpoint(env("http://otel:4318")); u != "https://c.example/otlp" || err != nil {
		t.Fatalf("config wins: %q %v", u, err)
	}
	if _, err := (Telemetry{OTLPEndpoint: "otel:4318"}).Endpoint(env("")); err == nil || !strings.Contains(err.Error(), "telemetry.otlp_endpoint") {
		t.Fatalf("a bad URL names the key: %v", err)
	}
	if _, err := (Telemetry{}).Endpoint(env("ftp://x")); err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Fatalf("a bad env URL names the variable: %v", err)
	}
}

func TestTelemetryKeysParse(t *testing.T) {
	cfg := Default()
	err := Parse([]byte("telemetry:\n  otlp_endpoint: http://localhost:4318\n  log_content: true\n"), "config.yaml", &cfg)
	if err != nil || cfg.Telemetry.OTLPEndpoint != "http://localhost:4318" || !cfg.Telemetry.LogContent {
		t.Fatalf("%+v %v", cfg.Telemetry, err)
	}
	if err := Parse([]byte("telemetry:\n  otlp_endpoit: x\n"), "config.yaml", &cfg); err == nil || !strings.Contains(err.Error(), "telemetry.otlp_endpoit") {
		t.Fatalf("unknown key: %v", err)
	}
}
