package config

import (
	"strings"
	"testing"
	"time"
)

func TestExecuteCodeLimits(t *testing.T) {
	timeout, calls := ExecuteCode{}.Limits()
	if timeout != 300*time.Second || calls != 200 {
		t.Fatalf("defaults: %v %d", timeout, calls)
	}
	bad := func(key, msg string) error { return &Error{Key: key, Msg: msg} }
	if err := (Tools{ExecuteCode: ExecuteCode{Timeout: 300}}).validate(bad); err == nil || !strings.Contains(err.Error(), "tools.execute_code.timeout") {
		t.Fatalf("a bare 300 (nanoseconds) must be refused: %v", err)
	}
	if err := (Tools{ExecuteCode: ExecuteCode{MaxInnerCalls: -1}}).validate(bad); err == nil {
		t.Fatal("a negative call limit must be refused")
	}
	if err := (Tools{ExecuteCode: ExecuteCode{Timeout: 5 * time.Second, MaxInnerCalls: 3}}).validate(bad); err != nil {
		t.Fatal(err)
	}
}
