package main

import (
	"os"
	"path/filepath"
	"testing"

	"talaria/loop/ext"
)

// TestTUICustomCommandsList: the screen's list holds the commands and the
// skills /NAME runs, by name, with argument hint, description and file; a
// command or skill named like a built-in is not listed (the built-in runs).
func TestTUICustomCommandsList(t *testing.T) {
	proj := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(proj, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".claude/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $0\n")
	write(".claude/commands/help.md", "shadow\n")
	write(".claude/commands/git/commit.md", "Commit $ARGUMENTS\n")
	write(".claude/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDF work\n---\nbody\n")
	write(".claude/skills/usage/SKILL.md", "---\nname: usage\ndescription: shadowed by /usage\n---\nbody\n")
	set := ext.Load(ext.Options{Cwd: proj, ClaudeDirs: true, Builtins: builtinCommandNames()})
	got := customCommands(set)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if len(got) != 3 || names[0] != "git:commit" || names[1] != "pdf" || names[2] != "review" {
		t.Fatalf("listed %v", names)
	}
	if r := got[2]; r.ArgumentHint != "FILE" || r.Description != "Review a file" || r.Path != filepath.Join(proj, ".claude/commands/review.md") || r.Skill {
		t.Fatalf("review: %+v", r)
	}
	if !got[1].Skill {
		t.Fatalf("pdf is a skill: %+v", got[1])
	}
}
