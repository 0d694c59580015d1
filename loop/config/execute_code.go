package config

import (
	"fmt"
	"time"
)

// Tools holds per-tool settings (tools: in config.yaml).
type Tools struct {
	// ExecuteCode bounds execute_code scripts.
	ExecuteCode ExecuteCode `yaml:"execute_code"`
}

// ExecuteCode bounds one execute_code script (tools.execute_code).
type ExecuteCode struct {
	// Timeout is how long a script may run (0: DefaultExecuteCodeTimeout).
	Timeout time.Duration `yaml:"timeout"`
	// MaxInnerCalls is how many tool calls one script may make (0:
	// DefaultMaxInnerCalls).
	MaxInnerCalls int `yaml:"max_inner_calls"`
}

// Defaults of tools.execute_code.
const (
	DefaultExecuteCodeTimeout = 300 * time.Second
	DefaultMaxInnerCalls      = 200
)

// Limits returns the timeout and the call limit with the defaults for
// unset values.
func (e ExecuteCode) Limits() (time.Duration, int) {
	timeout, calls := e.Timeout, e.MaxInnerCalls
	if timeout == 0 {
		timeout = DefaultExecuteCodeTimeout
	}
	if calls == 0 {
		calls = DefaultMaxInnerCalls
	}
	return timeout, calls
}

// validate checks the limits.
func (t Tools) validate(bad func(key, msg string) error) error {
	e := t.ExecuteCode
	switch {
	case e.Timeout < 0 || e.Timeout > 0 && e.Timeout < time.Second:
		return bad("tools.execute_code.timeout", fmt.Sprintf("must be a duration of at least 1s such as 300s (0: the default, 300s), got %v", e.Timeout))
	case e.MaxInnerCalls < 0:
		return bad("tools.execute_code.max_inner_calls", fmt.Sprintf("must be 1 or more (0: the default, %d), got %d", DefaultMaxInnerCalls, e.MaxInnerCalls))
	}
	return nil
}
