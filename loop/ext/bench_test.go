package ext

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLoad loads 200 commands (a quarter in subfolders), 50 skills
// and 20 agents, the size the issue bounds at 5 ms of start-up.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	put := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		p := filepath.Join(root, ".claude", "commands", fmt.Sprintf("cmd%03d.md", i))
		if i%4 == 0 {
			p = filepath.Join(root, ".claude", "commands", fmt.Sprintf("group%d", i%10), fmt.Sprintf("cmd%03d.md", i))
		}
		put(p, fmt.Sprintf("---\ndescription: command %d does a thing\nargument-hint: \"[file]\"\nmodel: m\n---\nDo thing %d with $ARGUMENTS.\n\nMore text here.\n", i, i))
	}
	for i := range 50 {
		name := fmt.Sprintf("skill-%02d", i)
		put(filepath.Join(root, ".claude", "skills", name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: Skill %d. Use when the task needs it.\n---\n# Skill\n\nSteps.\n", name, i))
		put(filepath.Join(root, ".claude", "skills", name, "scripts", "run.sh"), "echo\n")
	}
	for i := range 20 {
		put(filepath.Join(root, ".claude", "agents", fmt.Sprintf("agent-%02d.md", i)), fmt.Sprintf("---\nname: agent-%02d\ndescription: Agent %d.\ntools: Read, Grep, Bash\nmodel: inherit\n---\nYou are agent %d.\n", i, i, i))
	}
	o := Options{Cwd: root, ClaudeDirs: true, Builtins: []string{"help", "model"}}
	s := Load(o)
	if len(s.Commands) != 200 || len(s.Skills) != 50 || len(s.Agents) != 20 || len(s.Notices) != 0 {
		b.Fatalf("loaded %d/%d/%d, notices %v", len(s.Commands), len(s.Skills), len(s.Agents), s.Notices)
	}
	b.ReportAllocs()
	before := cpuTime()
	n := 0
	for b.Loop() {
		Load(o)
		n++
	}
	// CPU time per load (user+sys of the process): on a shared machine the
	// wall time of ns/op includes waiting for a core.
	b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(n), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
