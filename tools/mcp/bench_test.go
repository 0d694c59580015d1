package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
	"talaria/tools/mcp/mcptest"
)

// BenchmarkStdioCall is one echo call over talaria's stdio transport.
func BenchmarkStdioCall(b *testing.B) {
	m, errs := connect(context.Background(), []ServerConfig{stdioConfig("local")})
	if len(errs) != 0 {
		b.Fatal(errs)
	}
	defer m.Close()
	echo := toolsByName(m.Tools())["local__echo"]
	args := json.RawMessage(`{"text":"hi"}`)
	b.ResetTimer()
	for b.Loop() {
		if r := echo.Run(context.Background(), &tools.Env{}, args); r.IsError {
			b.Fatal(r.Output)
		}
	}
}

// BenchmarkSDKCommandTransportCall is the same call over the SDK's own
// CommandTransport, for comparison.
func BenchmarkSDKCommandTransportCall(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mcptest.EnvServer+"=1")
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	params := &sdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := session.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}
