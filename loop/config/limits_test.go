package config

import (
	"strings"
	"testing"
	"time"
)

func TestLimitKeys(t *testing.T) {
	d := Default().Agent
	if d.RequestTimeout != 120*time.Second || d.StreamReadTimeout != 120*time.Second ||
		d.StreamStaleTimeout != 300*time.Second || d.MaxResponseBytes != 8<<20 {
		t.Fatalf("defaults: %+v", d)
	}
	cfg, err := parse(t, "agent:\n  request_timeout: 5s\n  stream_read_timeout: 0s\n  stream_stale_timeout: 1m\n  max_response_bytes: 1024\n")
	if err != nil {
		t.Fatal(err)
	}
	if a := cfg.Agent; a.RequestTimeout != 5*time.Second || a.StreamReadTimeout != 0 || a.StreamStaleTimeout != time.Minute || a.MaxResponseBytes != 1024 {
		t.Fatalf("parsed: %+v", a)
	}
	for key, val := range map[string]string{
		"request_timeout": "-1s", "stream_read_timeout": "-1s", "stream_stale_timeout": "-1s", "max_response_bytes": "-5",
	} {
		_, err := parse(t, "agent:\n  "+key+": "+val+"\n")
		if err == nil || !strings.Contains(err.Error(), "agent."+key) {
			t.Fatalf("%s: %s: got %v, want an error naming the key", key, val, err)
		}
	}
}
