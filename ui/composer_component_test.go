package ui

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"talaria/themes"
)

// composerFiles are the composer component's files: none of them may
// name the root model (issue 23, point 8).
var composerFiles = []string{
	"composer.go", "composer_intent.go", "composer_keys.go", "composer_popup.go",
	"complete.go", "history.go", "editor.go", "editor_external.go",
	"attach_files.go", "attach_images.go", "attach_clipboard.go",
}

// TestComposerFilesNeverReachTheRoot: the composer reads a composerEnv and
// answers intents; no function, method or closure in its files takes or
// names *Model.
func TestComposerFilesNeverReachTheRoot(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range composerFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "Model" {
				t.Errorf("%s: the composer names the root model", fset.Position(id.Pos()))
			}
			return true
		})
	}
}

// bareComposer is a composer with an env of its own: no root model.
func bareComposer(t *testing.T, cwd string) (*composer, *composerEnv) {
	t.Helper()
	st, keys := themes.Plain().Styles(), defaultKeyMap()
	c := newComposer()
	c.setStyles(st, true)
	c.setWidth(80)
	return &c, &composerEnv{width: 80, st: &st, keys: &keys, ctx: context.Background(), cwd: cwd, term: termEnv{lookPath: noProgram}}
}

// typeInto types s into c, key by key, and returns the last intent.
func typeInto(c *composer, env *composerEnv, s string) composerIntent {
	var in composerIntent
	for _, r := range s {
		in = c.key(tea.KeyPressMsg{Code: r, Text: string(r)}, env)
	}
	return in
}

// runComposerCmd runs a composer command and applies the composerMsg
// results it yields (a batch's too), returning their intents.
func runComposerCmd(t *testing.T, c *composer, env *composerEnv, cmd tea.Cmd) []composerIntent {
	t.Helper()
	var out []composerIntent
	for _, msg := range execCmd(cmd) {
		if cm, ok := msg.(composerMsg); ok {
			in := cm.apply(c, env)
			out = append(out, in)
			out = append(out, runComposerCmd(t, c, env, in.cmd)...)
		}
	}
	return out
}

// TestComposerAnswersIntents drives the composer alone: each key answers
// what the root should do, and the composer keeps its own state.
func TestComposerAnswersIntents(t *testing.T) {
	c, env := bareComposer(t, t.TempDir())

	typeInto(c, env, "/hel")
	if !c.popupOpen(env) {
		t.Fatal("no popup for /hel")
	}
	if in := c.key(keyMsg("enter"), env); in.kind != composerCommand || in.text != "help" || c.value() != "" {
		t.Fatalf("enter on /hel: %+v, input %q", in, c.value())
	}

	typeInto(c, env, "hello")
	if in := c.key(keyMsg("enter"), env); in.kind != composerSend || in.text != "hello" {
		t.Fatalf("enter on hello: %+v", in)
	}
	if in := c.afterKey(env); !slices.Equal(in.save, []string{"/help", "hello"}) {
		t.Fatalf("history to save: %q", in.save)
	}
	if in := c.afterKey(env); len(in.save) != 0 {
		t.Fatalf("saved twice: %q", in.save)
	}

	typeInto(c, env, `two\`)
	if in := c.key(keyMsg("enter"), env); in.kind != composerStay || c.value() != "two\n" {
		t.Fatalf("enter after a backslash: %+v, input %q", in, c.value())
	}
	c.setText("")

	env.busy = true
	typeInto(c, env, "later")
	if in := c.key(keyMsg("tab"), env); in.kind != composerQueue || in.text != "later" {
		t.Fatalf("tab while busy: %+v", in)
	}
	if in := c.key(keyMsg("tab"), env); in.kind != composerStay {
		t.Fatalf("tab on an empty input while busy: %+v", in)
	}
	env.busy = false

	if in := c.key(keyMsg("up"), env); c.value() != "later" || in.dirty&dirtyChrome == 0 {
		t.Fatalf("up: input %q, %+v", c.value(), in)
	}
	c.key(keyMsg("down"), env)
	if in := c.key(keyMsg("ctrl+d"), env); in.kind != composerQuit {
		t.Fatalf("ctrl+d on an empty input: %+v", in)
	}
	if in := c.key(keyMsg("ctrl+g"), env); in.kind != composerStay || in.cmd == nil {
		t.Fatalf("ctrl+g: %+v", in)
	}
	if in := c.paste(strings.Repeat("line\n", 30), env); c.value() != "[pasted 30 lines]" || in.dirty&dirtyChrome == 0 {
		t.Fatalf("a long paste: input %q", c.value())
	}
}

// TestComposerAttachesAFileAlone: @ starts the file list, Tab takes a
// match and reads its file, all as the composer's own background work;
// what is sent carries the file.
func TestComposerAttachesAFileAlone(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, env := bareComposer(t, dir)
	typeInto(c, env, "read @not")
	runComposerCmd(t, c, env, c.afterKey(env).cmd) // lists the directory
	if !c.popupOpen(env) {
		t.Fatal("no popup for @not once the files are listed")
	}
	in := c.key(keyMsg("tab"), env)
	if c.value() != "read @notes.md " {
		t.Fatalf("tab: input %q", c.value())
	}
	runComposerCmd(t, c, env, in.cmd) // reads the file
	if !strings.Contains(c.view(), "[@notes.md · ") {
		t.Fatalf("no chip for the attached file:\n%s", c.view())
	}
	if in := c.key(keyMsg("enter"), env); in.kind != composerSend || in.text != "read @notes.md " {
		t.Fatalf("enter: %+v", in)
	}
	if got := c.takeInput("read @notes.md").Text; !strings.Contains(got, "<file path=\"notes.md\">\nremember the milk\n</file>") {
		t.Fatalf("sent without the file:\n%s", got)
	}
}
