package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of talaria.log.
const (
	// logMaxBytes is the size at which $TALARIA_HOME/logs/talaria.log
	// is renamed to talaria.log.1 (replacing the one before) and a new
	// one begins: the logs never take more than twice this.
	logMaxBytes = 10 << 20
	// logLineCap caps one line of the log.
	logLineCap = 16 << 10
	// logAttempts bounds how often one line is retried when the file
	// was rotated under it.
	logAttempts = 3
)

// logFile is talaria.log: lines are appended with the time, and the file
// is rotated at its size cap. Several talaria processes may share one
// home: each line is written under an exclusive flock of the file, and
// the one that finds the file full renames it; the others notice that the
// path names a new file and write there. It is safe for concurrent use.
type logFile struct {
	path string
	max  int64
	mu   sync.Mutex
}

// newLogger appends diagnostic lines to $TALARIA_HOME/logs/talaria.log,
// rotated at logMaxBytes to talaria.log.1. Logging never fails a turn:
// write errors are dropped.
func newLogger(home string) func(string) {
	l := &logFile{path: filepath.Join(home, "logs", "talaria.log"), max: logMaxBytes}
	return l.write
}

// write appends one line.
func (l *logFile) write(line string) {
	if len(line) > logLineCap {
		line = strings.ToValidUTF8(line[:logLineCap], "") + "… [line cut]"
	}
	entry := time.Now().UTC().Format(time.RFC3339) + " " + line + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return
	}
	for range logAttempts {
		if l.writeOnce(entry) {
			return
		}
	}
}

// writeOnce opens the log and appends entry, or rotates the log when
// entry does not fit; it reports false when the caller should try again
// (the file was rotated, by this call or another process).
func (l *logFile) writeOnce(entry string) bool {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return true
	}
	defer f.Close()
	fd := int(f.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX) == nil {
		defer syscall.Flock(fd, syscall.LOCK_UN)
	}
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	if cur, err := os.Stat(l.path); err != nil || !os.SameFile(cur, fi) {
		return false // rotated after we opened it
	}
	if fi.Size() > 0 && fi.Size()+int64(len(entry)) > l.max {
		return os.Rename(l.path, l.path+".1") != nil // on failure, write on
	}
	_, _ = f.WriteString(entry)
	return true
}
