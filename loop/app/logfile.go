package app

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// newLogger appends diagnostic lines to $TALARIA_HOME/logs/talaria.log.
// Logging never fails a turn: write errors are dropped.
func newLogger(home string) func(string) {
	path := filepath.Join(home, "logs", "talaria.log")
	return func(line string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), line)
	}
}
