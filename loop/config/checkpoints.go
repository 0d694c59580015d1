package config

import "fmt"

// Checkpoints bounds the working-tree checkpoint store under
// $TALARIA_HOME/checkpoints. A session a live process runs keeps all its
// checkpoints whatever the limits; a zero limit is no limit.
type Checkpoints struct {
	// KeepSessions is how many sessions keep their checkpoints, the most
	// recent first (default DefaultKeepSessions).
	KeepSessions int `yaml:"keep_sessions"`
	// MaxBytes is the most the store may hold, in bytes; the oldest
	// sessions' checkpoints go first (default DefaultCheckpointBytes).
	MaxBytes int64 `yaml:"max_bytes"`
}

// Defaults of checkpoints.
const (
	DefaultKeepSessions    = 20
	DefaultCheckpointBytes = 1 << 30 // 1 GiB
)

// DefaultCheckpoints returns the checkpoint store's default limits.
func DefaultCheckpoints() Checkpoints {
	return Checkpoints{KeepSessions: DefaultKeepSessions, MaxBytes: DefaultCheckpointBytes}
}

// validate checks the limits.
func (c Checkpoints) validate(bad func(key, msg string) error) error {
	switch {
	case c.KeepSessions < 0:
		return bad("checkpoints.keep_sessions", fmt.Sprintf("must be 0 (no limit) or more, got %d", c.KeepSessions))
	case c.MaxBytes < 0:
		return bad("checkpoints.max_bytes", fmt.Sprintf("must be a byte count such as 1073741824 (0: no limit), got %d", c.MaxBytes))
	}
	return nil
}
