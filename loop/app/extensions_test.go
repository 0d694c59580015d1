package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"talaria/loop/config"
	"talaria/persist"
)

// TestSkillsNoteNamesSkillsAddedMidSession: the session's prompt lists
// the skills found at Open; a skill written afterwards is not in it, and
// SkillsNote (what /skills shows) names it and says the next session has
// it. A skill named like a built-in stays listed for the model.
func TestSkillsNoteNamesSkillsAddedMidSession(t *testing.T) {
	cwd := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(cwd, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".claude/skills/first/SKILL.md", "---\nname: first\ndescription: The first skill\n---\nbody\n")
	s := &Session{Config: config.Default(), Cwd: cwd, Home: filepath.Join(cwd, "home"), Backend: config.Backend{Provider: "openai", Model: "m"}}
	s.loadExtensions(Flags{Builtins: []string{"help"}})
	prompt := s.buildPrompt(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	s.Record = &persist.Session{SystemPrompt: &prompt}
	if !strings.Contains(prompt, "- first: The first skill (") || !strings.HasSuffix(prompt, "\nModel: m\nProvider: openai") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	if n := s.SkillsNote(); n != "" {
		t.Fatalf("nothing was added, yet: %q", n)
	}
	write(".claude/skills/second/SKILL.md", "---\nname: second\ndescription: Added later\n---\nbody\n")
	if n := s.SkillsNote(); !strings.Contains(n, "second") || strings.Contains(n, "first") || !strings.Contains(n, "/new") {
		t.Fatalf("note: %q", n)
	}
	if again := s.buildPrompt(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)); again != prompt {
		t.Fatal("the session's own set must not change after Open")
	}
}
