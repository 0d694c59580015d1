package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// toolResults returns the content of every tool message the provider was
// sent, in order (each request repeats the earlier ones; the last request
// holds them all).
func toolResults(t *testing.T, srv *pt.Server) []string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the provider")
	}
	var out []string
	msgs, _ := reqs[len(reqs)-1]["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "tool" {
			s, _ := mm["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

func writeConfig(t *testing.T, home, yaml string) {
	t.Helper()
	dir := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

func v4aArg(body string) string {
	b, _ := json.Marshal("*** Begin Patch\n" + body + "\n*** End Patch")
	return string(b)
}

// TestContainBypassesEndToEnd drives the binary, headless in auto-edit,
// with a model that spells arguments as an attacker would: each call is
// refused or needs an approval nobody can give, the result says so, and
// the file outside the working directory is untouched.
func TestContainBypassesEndToEnd(t *testing.T) {
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeConfig(t, home, "approvals: auto-edit\n")
	keep, victim := filepath.Join(outside, "keep"), filepath.Join(outside, "new")
	if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ name, args, want string }{
		{"patch", `{"PATCH":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`, `did you mean "patch"`},
		{"patch", `{"Patch":` + v4aArg("*** Delete File: "+keep) + `}`, `did you mean "patch"`},
		{"patch", `{"Mode":"patch","Patch":` + v4aArg("*** Delete File: "+keep) + `}`, `did you mean "mode"`},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`, "needs the user's approval"},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Delete File: "+keep) + `}`, "needs the user's approval"},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Update File: a.txt\n*** Move to: "+victim+"\n@@\n-a\n+b") + `}`, "needs the user's approval"},
		{"terminal", `{"Command":"rm -f ` + keep + `"}`, `did you mean "command"`},
		{"process", `{"Action":"kill","id":"proc_1"}`, `did you mean "action"`},
		{"write_file", `{"path":".git/config","content":"[core]\n\tfsmonitor = touch ` + victim + `\n"}`, "protected"},
		{"write_file", `{"path":".git/hooks/x","content":"#!/bin/sh\n"}`, "protected"},
	}
	srv := pt.New(t)
	for _, c := range calls {
		srv.Push(pt.ToolCalls(pt.Call{Name: c.name, Args: c.args}))
	}
	srv.Push(pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "try")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	results := toolResults(t, srv)
	if len(results) != len(calls) {
		t.Fatalf("%d tool results for %d calls: %q", len(results), len(calls), results)
	}
	for i, c := range calls {
		if !strings.Contains(results[i], c.want) {
			t.Errorf("%s %s: result %q, want %q", c.name, c.args, results[i], c.want)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "keep\n" {
		t.Errorf("outside file changed: %q %v", b, err)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("a file was created outside the working directory")
	}
	if _, err := os.Stat(filepath.Join(cwd, ".git")); err == nil {
		t.Error(".git was written")
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt was moved or changed: %q", b)
	}
}

// TestContainDelegateChildUsesApprover: a delegate_task child's calls go
// through the parent's approver: its capitalised patch is refused and its
// edit outside the tree needs an approval nobody gives.
func TestContainDelegateChildUsesApprover(t *testing.T) {
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeConfig(t, home, "approvals: auto-edit\n")
	victim := filepath.Join(outside, "x")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"write the file"}`}),
		// The child:
		pt.ToolCalls(pt.Call{Name: "patch", Args: `{"PATCH":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`}),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"` + victim + `","content":"x"}`}),
		pt.Text("child done"),
		// The parent:
		pt.Text("parent done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "delegate")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Fatal("the child wrote outside the working directory")
	}
	var childResults []string
	for _, req := range srv.Requests() {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if s, _ := mm["content"].(string); mm["role"] == "tool" {
				childResults = append(childResults, s)
			}
		}
	}
	all := strings.Join(childResults, "\n")
	if !strings.Contains(all, `did you mean "patch"`) || !strings.Contains(all, "needs the user's approval") {
		t.Errorf("child results: %q", childResults)
	}
}

// TestContainTalariaHomeAsksInAutoEdit: with $TALARIA_HOME inside the
// working directory, an edit of its config.yaml needs an approval.
func TestContainTalariaHomeAsksInAutoEdit(t *testing.T) {
	home := t.TempDir()
	cwd := home // TALARIA_HOME is home/.talaria, below the working directory
	writeConfig(t, home, "approvals: auto-edit\n")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":".talaria/config.yaml","content":"approvals: yolo\n"}`}),
		pt.Text("done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "try")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if res := toolResults(t, srv); len(res) != 1 || !strings.Contains(res[0], "protected") {
		t.Errorf("results %q", res)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml")); string(b) != "approvals: auto-edit\n" {
		t.Errorf("config.yaml = %q", b)
	}
}
