package config

import (
	"strings"
	"testing"
)

func TestCheckpointLimits(t *testing.T) {
	cfg := Default()
	if cfg.Checkpoints != (Checkpoints{KeepSessions: 20, MaxBytes: 1 << 30}) {
		t.Fatalf("defaults: %+v", cfg.Checkpoints)
	}
	if err := Parse([]byte("checkpoints:\n  keep_sessions: 3\n  max_bytes: 1048576\n"), "c.yaml", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Checkpoints != (Checkpoints{KeepSessions: 3, MaxBytes: 1 << 20}) {
		t.Fatalf("parsed: %+v", cfg.Checkpoints)
	}
	for _, bad := range []string{"checkpoints:\n  keep_sessions: -1\n", "checkpoints:\n  max_bytes: -5\n", "checkpoints:\n  keep: 1\n"} {
		c := Default()
		if err := Parse([]byte(bad), "c.yaml", &c); err == nil || !strings.Contains(err.Error(), "checkpoints.") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
