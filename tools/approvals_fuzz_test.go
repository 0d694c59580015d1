package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTools are the tools FuzzApprovalAgreesWithTool drives, by index.
var fuzzTools = [...]string{"write_file", "patch", "terminal", "process"}

// FuzzApprovalAgreesWithTool is the differential check between the
// approver and the tools it guards. For any argument bytes:
//
//   - a call allowed without asking in a mode is one that mode allows:
//     nothing but reads in ask and read-only, edits only of unprotected
//     paths inside the working directory in auto-edit, judged on the
//     arguments as a lenient decoder (encoding/json's case-insensitive,
//     last-key-wins reading, which the tools used to get) would hand them
//     to the tool, so that no spelling of a key slips past;
//   - when auto-edit allows an edit, running the tool for real in a
//     scratch working directory changes only paths the approver checked
//     (ApprovalRequest.Paths) and nothing beside the working directory.
func FuzzApprovalAgreesWithTool(f *testing.F) {
	v4a := func(body string) string {
		b, _ := json.Marshal("*** Begin Patch\n" + body + "\n*** End Patch")
		return string(b)
	}
	seeds := []struct {
		tool uint8
		args string
	}{
		{0, `{"path":"a.txt","content":"x"}`},
		{0, `{"path":"../outside/x","content":"x"}`},
		{0, `{"Path":"../outside/x","content":"x"}`},
		{0, `{"path":"a.txt","path":"../outside/x","content":"x"}`},
		{0, `{"path":".git/config","content":"x"}`},
		{1, `{"path":"a.txt","old_string":"a","new_string":"b"}`},
		{1, `{"PATCH":` + v4a("*** Add File: ../outside/x\n+x") + `}`},
		{1, `{"Patch":` + v4a("*** Delete File: ../outside/keep") + `}`},
		{1, `{"Mode":"patch","Patch":` + v4a("*** Add File: ../outside/x\n+x") + `}`},
		{1, `{"mode":"patch","patch":` + v4a("*** Add File: b.txt\n+x") + `}`},
		{1, `{"mode":"patch","patch":` + v4a("*** Update File: a.txt\n*** Move to: ../outside/m\n@@\n-a\n+b") + `}`},
		{1, `{"mode":"patch","patch":` + v4a("*** Update File: a.txt\n*** Move to: .git/hooks/x\n@@\n-a\n+b") + `}`},
		{1, `{"path":"a.txt","patch":` + v4a("*** Add File: ../outside/x\n+x") + `}`},
		{1, `{"path":"a.txt","Patch":` + v4a("*** Add File: ../outside/x\n+x") + `}`},
		{2, `{"command":"ls"}`},
		{2, `{"Command":"rm -rf ../outside"}`},
		{2, `{"command":"echo x > a.txt"}`},
		{2, `{"command":"echo x > new.txt"}`},
		{2, `{"command":"awk 'BEGIN{system(\"rm -f a.txt\")}'"}`},
		{2, `{"command":"env -S \"rm -rf ../outside\""}`},
		{2, `{"command":"cat a.txt | wc -l","workdir":"."}`},
		{2, `{"command":"echo x > keep","workdir":"../outside"}`},
		{3, `{"action":"list"}`},
		{3, `{"Action":"kill","id":"proc_1"}`},
		{3, `{"action":" KILL ","id":"proc_1"}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	// The approver's checks read the tree but never change it: one tree
	// serves them all; a run of the tool gets a fresh one.
	scratch := func(t testing.TB, root string) (cwd string) {
		cwd = filepath.Join(root, "cwd")
		writeFiles(t, cwd, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"})
		writeFiles(t, filepath.Join(root, "outside"), map[string]string{"keep": "keep\n"})
		return cwd
	}
	shared := scratch(f, f.TempDir())
	f.Fuzz(func(t *testing.T, toolIdx uint8, args string) {
		tool := fuzzTools[int(toolIdx)%len(fuzzTools)]
		cwd := shared
		lenient := lenientView(tool, args)
		for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit, ApprovalReadOnly, ApprovalYolo} {
			for _, sandboxed := range []bool{false, true} {
				rp := &recordingPrompt{d: ApprovalDecision{Allow: false}}
				a := NewApprover(mode, rp.prompt)
				a.Cwd, a.Home, a.Sandboxed = cwd, filepath.Join(cwd, ".talaria"), sandboxed
				ok, _ := a.Check(context.Background(), tool, args)
				if !ok || rp.count() > 0 || mode == ApprovalYolo {
					continue
				}
				switch {
				case lenient.kill:
					t.Fatalf("%s: process kill allowed unasked: %s", mode, args)
				case tool == "terminal" && mode == ApprovalReadOnly:
					t.Fatalf("%s sandboxed=%v: command allowed unasked: %s", mode, sandboxed, args)
				case tool == "terminal":
					dir := a.commandDir(lenient.workdir)
					if d, _ := destructiveIn(lenient.command, dir); d {
						t.Fatalf("destructive command allowed unasked (sandboxed=%v): %s", sandboxed, args)
					}
					judge := KnownSafeUnsandboxed
					if sandboxed {
						judge = KnownSafeCommand
					}
					if ok, why := judge(lenient.command, dir); !ok {
						t.Fatalf("a command not known safe (%s) allowed unasked (sandboxed=%v): %s", why, sandboxed, args)
					}
				case tool == "write_file" || tool == "patch":
					if mode != ApprovalAutoEdit {
						t.Fatalf("%s: edit allowed unasked: %s", mode, args)
					}
					for _, p := range lenient.paths {
						abs, err := ResolvePath(cwd, p)
						if err != nil || !resolvesWithin(cwd, p) || a.protectedWhy(abs) != "" {
							t.Fatalf("auto-edit allowed a write of %q unasked: %s", p, args)
						}
					}
				}
			}
		}
		if tool != "write_file" && tool != "patch" {
			return
		}
		a := NewApprover(ApprovalAutoEdit, nil)
		a.Cwd, a.Home = cwd, filepath.Join(cwd, ".talaria")
		if ok, _ := a.Check(context.Background(), tool, args); !ok {
			return
		}
		root := t.TempDir()
		cwd = scratch(t, root)
		a.Cwd, a.Home = cwd, filepath.Join(cwd, ".talaria")
		if ok, _ := a.Check(context.Background(), tool, args); !ok {
			t.Fatalf("allowed in one tree, not in its copy: %s", args)
		}
		checked := a.classify(tool, args).req.Paths
		before := snapshot(t, root)
		NewRegistry(Builtins()...).Call(context.Background(), &Env{Cwd: cwd}, tool, args)
		for p := range changedPaths(before, snapshot(t, root)) {
			if !coveredBy(p, checked) {
				t.Fatalf("the tool changed %s, which the approver did not check (%q): %s", p, checked, args)
			}
		}
	})
}

// lenientCall is what a lenient decoder would hand a tool.
type lenientCall struct {
	paths   []string
	command string
	workdir string
	kill    bool
}

// lenientView decodes args as encoding/json alone does (keys matched
// case-insensitively, the last one winning), and also, for process, looks
// at every key that folds to "action".
func lenientView(tool, args string) lenientCall {
	var out lenientCall
	raw := []byte(args)
	if strings.TrimSpace(args) == "" {
		raw = []byte("{}")
	}
	switch tool {
	case "write_file":
		var a writeFileArgs
		if json.Unmarshal(raw, &a) == nil {
			out.paths, _ = a.writePaths()
		}
	case "patch":
		var a patchArgs
		if json.Unmarshal(raw, &a) == nil {
			out.paths, _ = a.writePaths()
		}
	case "terminal":
		var a terminalArgs
		_ = json.Unmarshal(raw, &a)
		out.command, out.workdir = a.Command, a.Workdir
	case "process":
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		for k, v := range m {
			if s, ok := v.(string); ok && strings.EqualFold(k, "action") && strings.EqualFold(strings.TrimSpace(s), "kill") {
				out.kill = true
			}
		}
	}
	return out
}

// snapshot maps every path below root to its content ("/" for a
// directory, "->target" for a symlink).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[p] = "->" + l
		case d.IsDir():
			out[p] = "/"
		default:
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// changedPaths lists the paths added, removed or changed between a and b.
func changedPaths(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for p, v := range a {
		if w, ok := b[p]; !ok || w != v {
			out[p] = true
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out[p] = true
		}
	}
	return out
}

// coveredBy reports whether p is one of the checked paths, or a directory
// above one of them that the tool created to hold it.
func coveredBy(p string, checked []string) bool {
	for _, c := range checked {
		if p == c || isWithin(p, c) {
			return true
		}
	}
	return false
}
