package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"talaria/tools/lsp"
)

// recordingChecker is an EditChecker that records the paths it is given
// and reports one error for each.
type recordingChecker struct {
	got    [][]string
	warmed []string
}

func (r *recordingChecker) Check(_ context.Context, paths ...string) lsp.Report {
	r.got = append(r.got, paths)
	var rep lsp.Report
	rep.Servers = []string{"rec"}
	for _, p := range paths {
		rep.Diagnostics = append(rep.Diagnostics, lsp.Diagnostic{Path: filepath.Base(p), Line: 1, Col: 1, Severity: "error", Message: "bad"})
	}
	return rep
}

func (r *recordingChecker) Current(string) []lsp.Diagnostic { return nil }

func (r *recordingChecker) Warm(p string) { r.warmed = append(r.warmed, p) }

func TestTheWriteToolsAppendTheCheckersDiagnostics(t *testing.T) {
	dir := t.TempDir()
	rc := &recordingChecker{}
	env := &Env{Cwd: dir, Edits: rc}
	reg := NewRegistry(Builtins()...)
	res := reg.Call(context.Background(), env, "write_file", `{"path":"a.go","content":"package a\n"}`)
	if res.IsError || !strings.Contains(res.Output, "\n\nDiagnostics (rec): 1, 1 of them errors:\na.go:1:1: error: bad") || len(res.Diagnostics) != 1 {
		t.Fatalf("write_file: %+v", res)
	}
	res = reg.Call(context.Background(), env, "patch", `{"path":"a.go","old_string":"package a","new_string":"package b"}`)
	if res.IsError || len(res.Diagnostics) != 1 {
		t.Fatalf("patch: %+v", res)
	}
	v4a := "*** Begin Patch\n*** Update File: a.go\n@@\n-package b\n+package c\n*** Add File: b.go\n+package c\n*** End Patch"
	b, _ := json.Marshal(map[string]string{"mode": "patch", "patch": v4a})
	res = reg.Call(context.Background(), env, "patch", string(b))
	if res.IsError || len(res.Diagnostics) != 2 {
		t.Fatalf("v4a: %+v", res)
	}
	want := [][]string{{filepath.Join(dir, "a.go")}, {filepath.Join(dir, "a.go")}, {filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")}}
	if len(rc.got) != 3 || strings.Join(rc.got[2], ",") != strings.Join(want[2], ",") || rc.got[0][0] != want[0][0] {
		t.Fatalf("checked %v, want %v", rc.got, want)
	}
	// A failed edit is not checked.
	_ = reg.Call(context.Background(), env, "patch", `{"path":"a.go","old_string":"nope","new_string":"x"}`)
	if len(rc.got) != 3 {
		t.Fatalf("a failed edit was checked: %v", rc.got)
	}
}

// goplsBinary returns gopls v0.23.0, installed on first use into the
// user's cache (never into the repository); it skips the test when that
// is not possible.
func goplsBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the gopls test installs gopls")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the language-server tests run on Unix")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for gopls: %v", err)
	}
	bin := filepath.Join(cache, "talaria-test", "gopls-v0.23.0")
	gopls := filepath.Join(bin, "gopls")
	if _, err := os.Stat(gopls); err == nil {
		return gopls
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", "golang.org/x/tools/gopls@v0.23.0")
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("installing gopls v0.23.0 failed (no network?), skipping: %v\n%s", err, out)
	}
	return gopls
}

// TestGoplsDiagnosticsReachTheWriteResult runs the real gopls through the
// real write tools: an undefined name is reported in the same result, the
// fix reports none, and the server is gone after Close.
func TestGoplsDiagnosticsReachTheWriteResult(t *testing.T) {
	gopls := goplsBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var pids []int
	m := lsp.New(lsp.Options{
		Servers: []lsp.ServerConfig{{Name: "gopls", Command: []string{gopls}, Filetypes: []string{"go"}, RootMarkers: []string{"go.mod"}}},
		// Bounded, and generous: a cold gopls loads the module first on a
		// loaded machine.
		Wait: 2 * time.Minute, Cwd: dir,
		Environ: append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local"),
		Track:   func(pgid int) func() { pids = append(pids, pgid); return func() {} },
	})
	defer m.Close()
	env := &Env{Cwd: dir, Edits: m}
	reg := NewRegistry(Builtins()...)
	res := reg.Call(context.Background(), env, "write_file", `{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(undefinedName)\n}\n"}`)
	if res.IsError || !strings.Contains(res.Output, "main.go:4:10: error: undefined: undefinedName") {
		t.Fatalf("the result lacks the error:\n%s", res.Output)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Severity != "error" || res.Diagnostics[0].Line != 4 {
		t.Fatalf("diagnostics: %+v", res.Diagnostics)
	}
	res = reg.Call(context.Background(), env, "patch", `{"path":"main.go","old_string":"println(undefinedName)","new_string":"println(\"ok\")"}`)
	if res.IsError || !strings.Contains(res.Output, "Diagnostics (gopls): none.") || len(res.Diagnostics) != 0 {
		t.Fatalf("after the fix:\n%s", res.Output)
	}
	if len(pids) != 1 {
		t.Fatalf("gopls started %d times", len(pids))
	}
	m.Close()
	if err := syscall.Kill(pids[0], 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("gopls (pid %d) outlived Close: %v", pids[0], err)
	}
}

// BenchmarkGoplsEdit is the wall of one write_file with gopls warm, with
// and without the diagnostics wait (the extra is what checking costs).
func BenchmarkGoplsEdit(b *testing.B) {
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Skip(err)
	}
	gopls := filepath.Join(cache, "talaria-test", "gopls-v0.23.0", "gopls")
	if _, err := os.Stat(gopls); err != nil {
		b.Skip("gopls not installed: run TestGoplsDiagnosticsReachTheWriteResult first")
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	m := lsp.New(lsp.Options{
		Servers: []lsp.ServerConfig{{Name: "gopls", Command: []string{gopls}, Filetypes: []string{"go"}, RootMarkers: []string{"go.mod"}}},
		Wait:    2 * time.Minute, Cwd: dir, Environ: append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local"),
	})
	defer m.Close()
	reg := NewRegistry(Builtins()...)
	contents := []string{
		`{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(undefinedName)\n}\n"}`,
		`{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(\"ok\")\n}\n"}`,
	}
	for _, withLSP := range []bool{false, true} {
		env := &Env{Cwd: dir}
		name := "plain"
		if withLSP {
			env.Edits, name = m, "gopls"
			reg.Call(context.Background(), env, "write_file", contents[0]) // warm
		}
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				res := reg.Call(context.Background(), env, "write_file", contents[i%2])
				if withLSP && !strings.Contains(res.Output, "Diagnostics (gopls)") {
					b.Fatal(res.Output)
				}
			}
		})
	}
}

// TestReadFileWarmsTheLanguageServer: a successful read announces the
// file to the checker (its server starts before the edit); a failed read
// does not.
func TestReadFileWarmsTheLanguageServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := &recordingChecker{}
	env := &Env{Cwd: dir, Edits: rc}
	reg := NewRegistry(Builtins()...)
	if res := reg.Call(context.Background(), env, "read_file", `{"path":"a.go"}`); res.IsError {
		t.Fatal(res.Output)
	}
	reg.Call(context.Background(), env, "read_file", `{"path":"missing.go"}`)
	if len(rc.warmed) != 1 || rc.warmed[0] != filepath.Join(dir, "a.go") {
		t.Fatalf("warmed %v, want only the read file", rc.warmed)
	}
	if len(rc.got) != 0 {
		t.Fatalf("a read checked diagnostics: %v", rc.got)
	}
}
