package tools

import (
	"context"
	"os"
	"strings"
	"testing"
)

// BenchmarkTerminalTrue measures one `true` through the terminal tool,
// started directly and through the spawner (this test binary standing in
// for talaria, which starts faster where it is not race-built).
func BenchmarkTerminalTrue(b *testing.B) {
	for _, via := range []string{"direct", "spawner"} {
		b.Run(via, func(b *testing.B) {
			pm := NewProcessManager()
			defer pm.Close()
			if via == "spawner" {
				pm.SetSpawner(os.Args[0])
			}
			env := &Env{Cwd: b.TempDir(), Processes: pm}
			for b.Loop() {
				if res := (TerminalTool{}).Run(context.Background(), env, []byte(`{"command":"true"}`)); !strings.Contains(res.Output, "exit code: 0") {
					b.Fatal(res.Output)
				}
			}
		})
	}
}
