package acp

import (
	"bytes"
	"encoding/base64"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

func TestParseDiffHunksAsOldAndNewText(t *testing.T) {
	d := tools.UnifiedDiff("a/f.txt", "b/f.txt", "one\ntwo\nthree\n", "one\n2\nthree\n")
	got := parseDiff(d, "/w")
	if len(got) != 1 || got[0].path != "/w/f.txt" || !strings.Contains(got[0].oldText, "two\n") || strings.Contains(got[0].newText, "two") || !strings.Contains(got[0].newText, "2\n") {
		t.Fatalf("diff %q parsed as %+v", d, got)
	}
	if parseDiff("", "/w") != nil {
		t.Fatal("empty diff")
	}
}

func TestPlanEntriesFromTheTodoList(t *testing.T) {
	out := "[x] 1. read the code\n[>] 2. fix it\n[ ] 3. test it\n[-] 4. dropped\n(1/4 completed, 1 in progress, 1 pending, 1 cancelled)"
	e := planEntries(out)
	if len(e) != 3 || e[0].Content != "read the code" || e[0].Status != sdk.PlanEntryStatusCompleted || e[1].Status != sdk.PlanEntryStatusInProgress || e[2].Status != sdk.PlanEntryStatusPending {
		t.Fatalf("plan: %+v", e)
	}
	if e := planEntries("The task list is empty."); e == nil || len(e) != 0 {
		t.Fatalf("empty list: %+v", e)
	}
	if planEntries("Error: something") != nil {
		t.Fatal("not a list")
	}
}

func TestStopReasons(t *testing.T) {
	cases := []struct {
		exit loop.Exit
		want sdk.StopReason
		ok   bool
	}{
		{loop.ExitTextResponse("stop"), sdk.StopReasonEndTurn, true},
		{loop.ExitTextResponse("length"), sdk.StopReasonMaxTokens, true},
		{loop.ExitMaxIterations(3, 3), sdk.StopReasonMaxTurnRequests, true},
		{loop.ExitBudgetExhausted.Exit(), sdk.StopReasonMaxTurnRequests, true},
		{loop.ExitContentPolicyBlocked.Exit(), sdk.StopReasonRefusal, true},
		{loop.ExitInterruptedByUser.Exit(), sdk.StopReasonCancelled, true},
		{loop.ExitInterruptedDuringAPI.Exit(), sdk.StopReasonCancelled, true},
		{loop.ExitRetriesExhausted.Exit(), sdk.StopReasonEndTurn, false},
	}
	for _, c := range cases {
		if got, ok := stopReason(c.exit); got != c.want || ok != c.ok {
			t.Errorf("%s: %s %v, want %s %v", c.exit, got, ok, c.want, c.ok)
		}
	}
}

func TestPromptTextAttachesResources(t *testing.T) {
	in, err := promptInput([]sdk.ContentBlock{
		sdk.TextBlock("explain"),
		sdk.ResourceLinkBlock("main.go", "file:///w/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a"}}),
	})
	if err != nil || !strings.HasPrefix(in.Text, "explain\n\n") || !strings.Contains(in.Text, `uri="file:///w/main.go"`) || !strings.Contains(in.Text, "package a") {
		t.Fatalf("%q %v", in.Text, err)
	}
	if _, err := promptInput([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}); err == nil || !strings.Contains(err.Error(), "not a PNG, JPEG, GIF or WebP image") {
		t.Fatalf("bytes that are no image were taken: %v", err)
	}
	if _, err := promptInput([]sdk.ContentBlock{sdk.ImageBlock("%%%", "image/png")}); err == nil || !strings.Contains(err.Error(), "not base64") {
		t.Fatalf("data that is not base64 was taken: %v", err)
	}
	if _, err := promptInput(nil); err == nil {
		t.Fatal("an empty prompt was taken")
	}
}

// Image blocks, and embedded blobs whose type is an image, become the
// user message's images, their type told by their bytes.
func TestPromptImages(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(pt.PNG)
	mime := "image/png"
	in, err := promptInput([]sdk.ContentBlock{
		sdk.TextBlock("what is this?"),
		sdk.ImageBlock(png, "image/jpeg"), // the client's type is not trusted
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///w/a.png", Blob: png, MimeType: &mime}}),
	})
	if err != nil || len(in.Images) != 2 || in.Images[0].MIME != "image/png" || string(in.Images[1].Data) != string(pt.PNG) {
		t.Fatalf("%+v %v", in, err)
	}
	if !strings.Contains(in.Text, `<attached_image uri="file:///w/a.png"/>`) {
		t.Fatalf("text %q", in.Text)
	}
	only, err := promptInput([]sdk.ContentBlock{sdk.ImageBlock(png, "image/png")})
	if err != nil || len(only.Images) != 1 {
		t.Fatalf("an image alone: %+v %v", only, err)
	}
	many := make([]sdk.ContentBlock, loop.MaxInputImages+1)
	for i := range many {
		many[i] = sdk.ImageBlock(png, "image/png")
	}
	if _, err := promptInput(many); err == nil || !strings.Contains(err.Error(), "more than 10 images") {
		t.Fatalf("too many images: %v", err)
	}
}

func TestFilterInputAnswersBadLines(t *testing.T) {
	var out bytes.Buffer
	lw := &lockedWriter{w: &out}
	long := strings.Repeat("x", maxLine+10)
	in := strings.NewReader("not json\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}` + "\n\n" + long + "\n" + `{"a":1}` + "\n")
	r := filterInput(in, lw, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	var passed []byte
	select {
	case passed = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("filterInput did not finish")
	}
	if string(passed) != `{"jsonrpc":"2.0","id":1,"method":"m"}`+"\n"+`{"a":1}`+"\n" {
		t.Fatalf("passed %q", passed)
	}
	if n := strings.Count(out.String(), `"code":-32700`); n != 2 {
		t.Fatalf("%d parse errors: %s", n, out.String())
	}
}

func TestMCPServersFromTheClient(t *testing.T) {
	got, err := mcpServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"-v"}, Env: []sdk.EnvVariable{{Name: "K", Value: "V"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: "http://127.0.0.1:1/mcp"}},
	})
	if err != nil || got["fs"].Command != "mcp-fs" || got["fs"].Env["K"] != "V" || got["web"].URL != "http://127.0.0.1:1/mcp" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := mcpServers([]sdk.McpServer{{Sse: &sdk.McpServerSseInline{Name: "s", Url: "http://x"}}}); err == nil {
		t.Fatal("sse taken")
	}
}

func TestDescribeKinds(t *testing.T) {
	for name, kind := range map[string]sdk.ToolKind{"read_file": sdk.ToolKindRead, "write_file": sdk.ToolKindEdit, "patch": sdk.ToolKindEdit,
		"terminal": sdk.ToolKindExecute, "search_files": sdk.ToolKindSearch, "todo": sdk.ToolKindThink, "mcp__x": sdk.ToolKindOther} {
		if d := describe(name, `{"path":"a.go","offset":7,"command":"ls"}`, "/w"); d.kind != kind || d.title == "" {
			t.Errorf("%s: %+v", name, d)
		}
	}
	d := describe("read_file", `{"path":"a.go","offset":7}`, "/w")
	if len(d.locations) != 1 || d.locations[0].Path != "/w/a.go" || d.locations[0].Line == nil || *d.locations[0].Line != 7 {
		t.Fatalf("%+v", d.locations)
	}
}
