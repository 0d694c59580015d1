package app_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
)

// TestACPCustomCommands: the session's custom commands are advertised to
// the client (available_commands_update, with the argument hint), and a
// prompt "/NAME args" sends the model the expanded command, as in the
// TUI and headless.
func TestACPCustomCommands(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, ".claude/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs, carefully.\n", 0o644)
	srv := pt.New(t)
	a := startACP(t, home, cwd, srv)
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, a.stderr)
	}
	a.client.waitFor(t, func(u sdk.SessionUpdate) bool {
		c := u.AvailableCommandsUpdate
		if c == nil {
			return false
		}
		for _, cmd := range c.AvailableCommands {
			if cmd.Name == "review" && cmd.Description == "Review a file" && cmd.Input != nil && cmd.Input.Unstructured != nil && cmd.Input.Unstructured.Hint == "FILE" {
				return true
			}
		}
		return false
	})
	srv.Push(pt.Text("Looks fine."))
	resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("/review main.go")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr: %s", resp, err, a.stderr)
	}
	reqs := srv.RawRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, "Review main.go for bugs, carefully.") || strings.Contains(last, "/review main.go") {
		t.Fatalf("the model did not get the expanded command:\n%s", last)
	}
}
