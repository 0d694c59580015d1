package compress

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
)

func TestPruneToolOutputsSummaries(t *testing.T) {
	termOut := strings.Repeat("ok line\n", 46) + "done\n\nexit code: 0"
	fileOut := strings.Repeat("x", 3400)
	msgs := []providers.Message{
		user("run the tests"),
		asstCalls(
			call("c1", "terminal", `{"command":"npm test"}`),
			call("c2", "read_file", `{"path":"config.py"}`),
			call("c3", "search_files", `{"pattern":"TODO","path":"src"}`),
			call("c4", "mcp__thing", `{}`),
			call("c5", "read_file", `{"path":"small.py"}`),
			call("c6", "read_file", `{"path":"b.py","offset":120}`),
		),
		result("c1", "terminal", termOut),
		result("c2", "read_file", fileOut),
		result("c3", "search_files", strings.Repeat("src/a.go:1:TODO\n", 20)),
		result("c4", "mcp__thing", strings.Repeat("y", 500)),
		result("c5", "read_file", "short"),
		result("c6", "read_file", strings.Repeat("z", 300)),
		{Role: providers.RoleTool, ToolCallID: "gone", Content: strings.Repeat("w", 300)},
		asst("all green"),
	}
	orig := append([]providers.Message(nil), msgs...)
	out, n := PruneToolOutputs(msgs, len(msgs))
	if !reflect.DeepEqual(msgs, orig) {
		t.Fatal("the caller's slice was modified")
	}
	want := map[int]string{
		2: "[terminal] ran `npm test` -> exit 0, 47 lines output",
		3: "[read_file] read config.py from line 1 (3,400 chars)",
		4: "[search_files] searched for `TODO` in src -> 20 lines output",
		5: "[mcp__thing] returned 500 chars in 1 line",
		6: "short",
		7: "[read_file] read b.py from line 120 (300 chars)",
		8: PrunedPlaceholder,
		9: "all green",
	}
	for i, w := range want {
		if out[i].Content != w {
			t.Errorf("message %d: %q, want %q", i, out[i].Content, w)
		}
	}
	if n != 6 {
		t.Errorf("changed %d messages, want 6", n)
	}
}

func TestPruneToolOutputsProtectsTail(t *testing.T) {
	big := strings.Repeat("q", 1000)
	msgs := []providers.Message{
		user("a"),
		asstCalls(call("c1", "read_file", `{"path":"a"}`)), result("c1", "read_file", big),
		asstCalls(call("c2", "read_file", `{"path":"b"}`)), result("c2", "read_file", big+"!"),
	}
	out, n := PruneToolOutputs(msgs, 3)
	if n != 1 || out[2].Content == big || out[4].Content != big+"!" {
		t.Fatalf("only outputs before protectFrom are pruned: n=%d %q", n, out[4].Content)
	}
	if _, n := PruneToolOutputs(msgs, 0); n != 0 {
		t.Error("protectFrom 0 protects everything")
	}
	if _, n := PruneToolOutputs(msgs, 99); n != 2 {
		t.Error("protectFrom past the end prunes everything")
	}
}

func TestPruneToolOutputsDedupe(t *testing.T) {
	same := strings.Repeat("package main\n", 40)
	msgs := []providers.Message{
		user("read it thrice"),
		asstCalls(call("c1", "read_file", `{"path":"main.go"}`)), result("c1", "read_file", same),
		asstCalls(call("c2", "read_file", `{"path":"main.go"}`)), result("c2", "read_file", same),
		asstCalls(call("c3", "read_file", `{"path":"main.go"}`)), result("c3", "read_file", same),
	}
	out, _ := PruneToolOutputs(msgs, 5)
	for _, i := range []int{2, 4} {
		if !strings.HasSuffix(out[i].Content, "(identical to a later result)") {
			t.Errorf("message %d: older copy not marked as duplicate: %q", i, out[i].Content)
		}
	}
	if out[6].Content != same {
		t.Error("the newest full copy must be kept")
	}
}

func TestPruneToolOutputsKeepsSteer(t *testing.T) {
	steer := "[OUT-OF-BAND USER MESSAGE — sent by the user while you were working; treat it as a direct instruction from the user]\nuse tabs\n[END OUT-OF-BAND USER MESSAGE]"
	msgs := []providers.Message{
		asstCalls(call("c1", "terminal", `{"command":"make"}`)),
		result("c1", "terminal", strings.Repeat("cc -c x.c\n", 50)+"\nexit code: 2\n\n"+steer),
		asst("x"),
	}
	out, _ := PruneToolOutputs(msgs, 2)
	if !strings.HasPrefix(out[1].Content, "[terminal] ran `make` -> exit 2") || !strings.HasSuffix(out[1].Content, steer) {
		t.Fatalf("steer lost or output not pruned: %q", out[1].Content)
	}
}

func TestPruneToolOutputsTruncatesArgs(t *testing.T) {
	content := strings.Repeat("line of code <b>&</b>\n", 200)
	args, _ := json.Marshal(map[string]any{"path": "big.go", "content": content, "n": json.Number("12345678901234567890")})
	msgs := []providers.Message{
		asstCalls(call("c1", "write_file", string(args)), call("c2", "terminal", "not json "+content)),
		result("c1", "write_file", "ok"), result("c2", "terminal", "bad"),
		asst("done"),
	}
	out, n := PruneToolOutputs(msgs, 3)
	if n != 1 {
		t.Fatalf("changed %d, want 1", n)
	}
	if msgs[0].ToolCalls[0].Arguments != string(args) {
		t.Fatal("the caller's tool calls were modified")
	}
	for _, tc := range out[0].ToolCalls {
		if len(tc.Arguments) >= argsPruneMin {
			t.Errorf("%s arguments still %d bytes", tc.Name, len(tc.Arguments))
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(tc.Arguments), &v); err != nil {
			t.Errorf("%s arguments are no longer JSON: %v: %s", tc.Name, err, tc.Arguments)
		}
	}
	a := out[0].ToolCalls[0].Arguments
	if !strings.Contains(a, `"path":"big.go"`) || !strings.Contains(a, "12345678901234567890") || !strings.Contains(a, "chars truncated") || !strings.Contains(a, "<b>") {
		t.Errorf("shrunk arguments lost their short fields or markers: %s", a)
	}
}

func TestThousands(t *testing.T) {
	for n, w := range map[int]string{0: "0", 999: "999", 1000: "1,000", 3400: "3,400", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != w {
			t.Errorf("thousands(%d) = %q, want %q", n, got, w)
		}
	}
}
