package ext

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadFixtureProject(t *testing.T) {
	root := copyProject(t)
	home := t.TempDir()
	write(t, filepath.Join(home, "commands", "review.md"), "---\ndescription: home review\n---\nhome\n")
	write(t, filepath.Join(home, "commands", "standup.md"), "Write my standup notes.\n")
	cwd := filepath.Join(root, "src")
	s := Load(Options{Home: home, Cwd: cwd, ClaudeDirs: true, Builtins: []string{"help", "model"}})

	if got, want := s.CommandNames(), []string{"fix-issue", "frontend:component", "review", "standup"}; !slices.Equal(got, want) {
		t.Fatalf("commands = %v, want %v (notices %v)", got, want, s.Notices)
	}
	rev := s.Commands["review"]
	if rev.Description != "Review a pull request for bugs and style" || rev.ArgumentHint != "[pr-number] [priority]" || rev.Model != "claude-sonnet-4-5" {
		t.Errorf("review front matter = %+v", rev)
	}
	if rev.Source.Origin != OriginProject || rev.Source.Tree != ".claude" || !strings.HasSuffix(rev.Source.Path, ".claude/commands/review.md") {
		t.Errorf("review source = %+v: the project's file must win over $TALARIA_HOME's", rev.Source)
	}
	if fx := s.Commands["fix-issue"]; fx.Source.Tree != ".talaria" || fx.Description != "Fix an issue (talaria's version wins)" {
		t.Errorf("fix-issue = %+v: .talaria comes after .claude and wins", fx)
	}
	if sd := s.Commands["standup"]; sd.Source.Origin != OriginHome || sd.Description != "Write my standup notes." {
		t.Errorf("standup = %+v: the description defaults to the first line", sd)
	}
	if got := s.Commands["frontend:component"].Description; got != "Scaffold a React component" {
		t.Errorf("subfolder command description = %q", got)
	}

	if got, want := s.SkillNames(), []string{"pdf-forms", "release-notes"}; !slices.Equal(got, want) {
		t.Fatalf("skills = %v, want %v", got, want)
	}
	if res := s.Skills["pdf-forms"].Resources(); !slices.Equal(res, []string{"scripts/fill.py"}) {
		t.Errorf("pdf-forms resources = %v", res)
	}
	if res := s.Skills["release-notes"].Resources(); !slices.Equal(res, []string{"references/style.md"}) {
		t.Errorf("release-notes resources = %v", res)
	}

	if got, want := s.AgentNames(), []string{"code-reviewer", "doc-writer"}; !slices.Equal(got, want) {
		t.Fatalf("agents = %v, want %v", got, want)
	}
	cr := s.Agents["code-reviewer"]
	if want := []string{"read_file", "search_files", "terminal", "github__get_pr"}; !slices.Equal(cr.Tools, want) {
		t.Errorf("code-reviewer tools = %v, want %v", cr.Tools, want)
	}
	if cr.Model != "" || !strings.HasPrefix(cr.Prompt, "You are a senior code reviewer.") {
		t.Errorf("code-reviewer model %q (inherit is the parent's) prompt %q", cr.Model, cr.Prompt)
	}
	dw := s.Agents["doc-writer"]
	if want := []string{"read_file", "write_file", "patch"}; !slices.Equal(dw.Tools, want) || dw.Model != "claude-haiku-4-5" {
		t.Errorf("doc-writer = %+v", dw)
	}

	broken := findNotice(s, "broken.md")
	if broken == nil || broken.Line != 3 || !strings.Contains(broken.Msg, "not valid YAML") {
		t.Errorf("broken.md notice = %+v, want line 3 (the argument-hint line); all: %v", broken, s.Notices)
	}
	if _, ok := s.Commands["broken"]; ok {
		t.Error("a file that does not parse must be skipped")
	}
	if n := findNotice(s, "Bad_Name"); n == nil || !strings.Contains(n.Msg, "not a skill name") {
		t.Errorf("invalid skill name: notice %+v", n)
	}
}

func findNotice(s *Set, fileSuffix string) *Notice {
	for i := range s.Notices {
		if strings.Contains(s.Notices[i].File, fileSuffix) {
			return &s.Notices[i]
		}
	}
	return nil
}

func TestLoadClaudeDirsOff(t *testing.T) {
	root := copyProject(t)
	s := Load(Options{Cwd: root, ClaudeDirs: false})
	if got := s.CommandNames(); !slices.Equal(got, []string{"fix-issue"}) {
		t.Errorf("commands with claude_dirs false = %v, want only .talaria's", got)
	}
	if len(s.Skills) != 0 || len(s.Agents) != 0 {
		t.Errorf("claude_dirs false still loaded skills %v agents %v", s.SkillNames(), s.AgentNames())
	}
}

func TestBuiltinNeverShadowed(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".talaria", "commands", "help.md"), "Not the help.\n")
	write(t, filepath.Join(dir, ".talaria", "skills", "model", "SKILL.md"), "---\nname: model\ndescription: a skill named like a built-in\n---\nbody\n")
	write(t, filepath.Join(dir, ".talaria", "commands", "deploy.md"), "Deploy.\n")
	s := Load(Options{Cwd: dir, Builtins: []string{"/help", "model"}})
	if _, ok := s.Lookup("help"); ok {
		t.Error("a custom command shadowed the built-in /help")
	}
	if _, ok := s.Lookup("model"); ok {
		t.Error("a skill shadowed the built-in /model")
	}
	if findNotice(s, "help.md") == nil || findNotice(s, "SKILL.md") == nil {
		t.Errorf("shadowing must be noticed: %v", s.Notices)
	}
	if c, ok := s.Lookup("deploy"); !ok || c.Body != "Deploy.\n" {
		t.Errorf("Lookup(deploy) = %+v, %v", c, ok)
	}
}

func TestSkillWinsOverCommandAndRunsAsCommand(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".talaria", "commands", "notes.md"), "command body\n")
	write(t, filepath.Join(dir, ".talaria", "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Take notes.\n---\nskill body $ARGUMENTS\n")
	s := Load(Options{Cwd: dir})
	c, ok := s.Lookup("notes")
	if !ok || !c.Skill || c.Expand("x y", ExpandOptions{}) != "skill body x y\n" {
		t.Errorf("Lookup(notes) = %+v", c)
	}
}

func TestSkillValidation(t *testing.T) {
	cases := map[string]string{
		"no-front":   "just a body\n",
		"no-desc":    "---\nname: no-desc\n---\nbody\n",
		"other-name": "---\nname: something-else\ndescription: d\n---\n",
		"long-desc":  "---\nname: long-desc\ndescription: " + strings.Repeat("x", 1025) + "\n---\n",
		"a--b":       "---\ndescription: d\n---\n",
		"-edge":      "---\ndescription: d\n---\n",
	}
	dir := t.TempDir()
	for name, body := range cases {
		write(t, filepath.Join(dir, ".talaria", "skills", name, "SKILL.md"), body)
	}
	write(t, filepath.Join(dir, ".talaria", "skills", "good-one", "SKILL.md"), "---\ndescription: fine without a name (the folder's)\n---\n")
	s := Load(Options{Cwd: dir})
	if got := s.SkillNames(); !slices.Equal(got, []string{"good-one"}) {
		t.Errorf("skills = %v, want only good-one; notices %v", got, s.Notices)
	}
	if len(s.Notices) != len(cases) {
		t.Errorf("%d notices for %d invalid skills: %v", len(s.Notices), len(cases), s.Notices)
	}
}

func TestSkillsPromptStable(t *testing.T) {
	root := copyProject(t)
	a := Load(Options{Cwd: root, ClaudeDirs: true}).SkillsPrompt()
	for range 5 {
		if b := Load(Options{Cwd: root, ClaudeDirs: true}).SkillsPrompt(); b != a {
			t.Fatalf("skills prompt not byte-stable:\n%s\n---\n%s", a, b)
		}
	}
	pdf := strings.Index(a, "- pdf-forms: Fill in PDF forms")
	rel := strings.Index(a, "- release-notes: Write release notes")
	if pdf < 0 || rel < pdf || !strings.Contains(a, filepath.Join(root, ".claude", "skills", "pdf-forms", "SKILL.md")) {
		t.Errorf("skills prompt:\n%s", a)
	}
	if (&Set{}).SkillsPrompt() != "" {
		t.Error("no skills must add nothing to the prompt")
	}
}

func TestLoadBounds(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", MaxFileBytes+1)
	write(t, filepath.Join(dir, ".talaria", "commands", "huge.md"), big)
	write(t, filepath.Join(dir, ".talaria", "commands", "a", "b", "c", "d", "deep.md"), "deep\n")
	write(t, filepath.Join(dir, ".talaria", "commands", "has space.md"), "x\n")
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".talaria", "commands", "zero.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".talaria", "commands", "unclosed.md"), "---\ndescription: x\nbody without end\n")
	s := Load(Options{Cwd: dir})
	if len(s.Commands) != 0 {
		t.Errorf("commands = %v, want none", s.CommandNames())
	}
	for _, f := range []string{"huge.md", "/d", "has space.md", "zero.md", "unclosed.md"} {
		if findNotice(s, f) == nil {
			t.Errorf("no notice for %s: %v", f, s.Notices)
		}
	}
}

func TestProjectDirsNearestLast(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "pkg", "api")
	write(t, filepath.Join(root, ".talaria", "commands", "t.md"), "root\n")
	write(t, filepath.Join(sub, ".claude", "commands", "t.md"), "sub\n")
	if got := ProjectDirs(sub); !slices.Equal(got, []string{root, filepath.Join(root, "pkg"), sub}) {
		t.Fatalf("ProjectDirs = %v", got)
	}
	if c := Load(Options{Cwd: sub, ClaudeDirs: true}).Commands["t"]; c == nil || c.Body != "sub\n" {
		t.Errorf("the working directory's command must win over the root's: %+v", c)
	}
	lone := t.TempDir()
	if got := ProjectDirs(lone); len(got) != 1 {
		t.Errorf("without a git root only the working directory counts: %v", got)
	}
}

func TestAgentTools(t *testing.T) {
	parent := []string{"delegate_task", "github__get_pr", "github__list", "patch", "read_file", "search_files", "terminal", "write_file"}
	cases := []struct {
		tools, deny []string
		want        []string
	}{
		{nil, nil, []string{"github__get_pr", "github__list", "patch", "read_file", "search_files", "terminal", "write_file"}},
		{[]string{"read_file", "github__*"}, nil, []string{"github__get_pr", "github__list", "read_file"}},
		{[]string{"read_file", "web_fetch"}, nil, []string{"read_file"}}, // never more than the parent
		{nil, []string{"terminal", "patch"}, []string{"github__get_pr", "github__list", "read_file", "search_files", "write_file"}},
		{[]string{}, nil, nil},
	}
	for _, c := range cases {
		a := &Agent{Tools: c.tools, DisallowedTools: c.deny}
		if got := a.AllowedTools(parent); !slices.Equal(got, c.want) {
			t.Errorf("tools %v deny %v: got %v, want %v", c.tools, c.deny, got, c.want)
		}
	}
	for in, want := range map[string]string{"Bash": "terminal", "MultiEdit": "patch", "Task": "delegate_task", "mcp__mem__save": "mem__save", "mcp__mem": "mem__*", "read_file": "read_file"} {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}
