package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"talaria/loop"
)

// gitTimeout bounds the one git command the prompt builder may run.
const gitTimeout = 2 * time.Second

// maxAgentsBytes caps how much of the AGENTS.md files goes into the prompt.
const maxAgentsBytes = 32 * 1024

// BuildSystemPrompt builds a session's system prompt: identity, tool rules,
// the steer note, the environment, AGENTS.md from cwd up to the git root,
// and the closing Model:/Provider: lines. It is built once per session and
// then replayed byte for byte.
func BuildSystemPrompt(cwd, provider, model string, now time.Time) string {
	var b strings.Builder
	b.WriteString("You are talaria, a coding agent working in the user's terminal on a real repository. ")
	b.WriteString("You solve the user's request by calling tools and then answering in text.\n\n")
	b.WriteString("# Working rules\n")
	b.WriteString("- Read before you edit: use read_file and search_files to find the code, then patch or write_file to change it.\n")
	b.WriteString("- Prefer patch for small edits; old_string must match the file exactly once.\n")
	b.WriteString("- Use terminal to build, test and inspect; commands run in the working directory with a timeout.\n")
	b.WriteString("- Independent read-only calls may be issued together in one batch.\n")
	b.WriteString("- When a tool fails, read its error and change your approach instead of repeating the same call.\n")
	b.WriteString("- When the task is done, answer with a short summary of what you did and what you found.\n")
	b.WriteString("- " + loop.SteerPromptNote + "\n\n")
	b.WriteString("# Environment\n")
	fmt.Fprintf(&b, "- Working directory: %s\n", cwd)
	fmt.Fprintf(&b, "- OS: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	root := gitRoot(cwd)
	if root != "" {
		fmt.Fprintf(&b, "- Git root: %s\n", root)
		if br := gitBranch(root); br != "" {
			fmt.Fprintf(&b, "- Git branch: %s\n", br)
		}
	}
	fmt.Fprintf(&b, "- Date: %s\n", now.Format("2006-01-02"))
	if agents := readAgentsFiles(cwd, root); agents != "" {
		b.WriteString("\n# Project instructions (AGENTS.md)\n")
		b.WriteString(agents)
		if !strings.HasSuffix(agents, "\n") {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\nModel: %s\nProvider: %s", model, provider)
	return b.String()
}

// gitRoot walks up from dir to the directory holding .git, or "".
func gitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func gitBranch(root string) string {
	head, err := os.ReadFile(filepath.Join(root, ".git", "HEAD"))
	if err != nil {
		// A hung git (a network file system, a lock) must not hold up the
		// session's start: the branch is a nicety.
		ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--abbrev-ref", "HEAD").Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	s := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
		return ref
	}
	if len(s) > 12 {
		return s[:12] + " (detached)"
	}
	return s
}

// readAgentsFiles concatenates AGENTS.md files from the git root (or cwd
// alone outside a repository) down to cwd, outermost first.
func readAgentsFiles(cwd, root string) string {
	var dirs []string
	for d := cwd; ; {
		dirs = append(dirs, d)
		if root == "" || d == root {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var b strings.Builder
	for i := len(dirs) - 1; i >= 0; i-- {
		p := filepath.Join(dirs[i], "AGENTS.md")
		data, err := os.ReadFile(p)
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n%s\n", p, strings.TrimSpace(string(data)))
		if b.Len() > maxAgentsBytes {
			return b.String()[:maxAgentsBytes] + "\n[AGENTS.md truncated]\n"
		}
	}
	return b.String()
}

// buildPrompt is BuildSystemPrompt for the session, with its skills listed
// (name, description, SKILL.md path) before the closing Model:/Provider:
// lines. Like the rest of the prompt it is built once per session and
// replayed byte for byte: a skill added later is the next session's.
func (s *Session) buildPrompt(now time.Time) string {
	p := BuildSystemPrompt(s.Cwd, s.Backend.Provider, s.Backend.Model, now)
	if sk := strings.TrimRight(s.Extensions().SkillsPrompt(), "\n"); sk != "" {
		p = insertBeforeRuntimeLines(p, sk)
	}
	return p
}
