package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// hugeReadChild is set in the child process that does the read.
const hugeReadChild = "TALARIA_TEST_READ_FILE"

// A file that is one 300 MB line (a text head, then a sparse tail) is read
// with a peak RSS under 100 MiB, measured on a child process that does
// only the read. TALARIA_TEST_READ_SIZE (bytes) changes the size, for the
// 1 GB figure.
func TestReadHugeSingleLineBoundedMemory(t *testing.T) {
	if p := os.Getenv(hugeReadChild); p != "" {
		res := ReadFileTool{}.Run(context.Background(), &Env{Cwd: filepath.Dir(p)}, json.RawMessage(`{"path":"`+filepath.Base(p)+`"}`))
		fmt.Printf("OUTPUT %d %v %s\n", len(res.Output), res.IsError, res.Output[len(res.Output)-120:])
		return
	}
	size := int64(300 << 20)
	if s := os.Getenv("TALARIA_TEST_READ_SIZE"); s != "" {
		size, _ = strconv.ParseInt(s, 10, 64)
	}
	p := filepath.Join(t.TempDir(), "one-line.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Repeat("abcdefgh", 1<<16)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadHugeSingleLineBoundedMemory$")
	cmd.Env = append(os.Environ(), hugeReadChild+"="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	t.Logf("read_file of a %d MiB single-line file: peak RSS %.1f MiB", size>>20, rss)
	if rss >= 100 {
		t.Fatalf("peak RSS %.1f MiB, want under 100", rss)
	}
	if !strings.Contains(string(out), "line truncated: ") || !strings.Contains(string(out), "OUTPUT ") || strings.Contains(string(out), "OUTPUT 0") {
		t.Fatalf("child output: %s", out)
	}
	var n int
	fmt.Sscanf(string(out[strings.Index(string(out), "OUTPUT "):]), "OUTPUT %d", &n)
	if n > readMaxChars+300 {
		t.Fatalf("output %d bytes, over the cap", n)
	}
}

// Long lines are cut to the output cap with a marker that says how much
// was left out; the lines around them keep their numbers.
func TestReadLongLineBetweenShortOnes(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3*readMaxChars)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(long+"\r\nsecond\r\n\nfourth"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args string) string {
		res := ReadFileTool{}.Run(context.Background(), &Env{Cwd: dir}, json.RawMessage(args))
		if res.IsError {
			t.Fatal(res.Output)
		}
		return res.Output
	}
	out := run(`{"path":"f.txt"}`)
	if len(out) > readMaxChars || !strings.Contains(out, "[line truncated: 200203 more characters]\n2|second\n3|\n4|fourth\n") {
		t.Fatalf("first read: %d bytes, tail %q", len(out), out[len(out)-200:])
	}
	if got := run(`{"path":"f.txt","offset":2}`); !strings.HasPrefix(got, "2|second\n3|\n4|fourth") {
		t.Fatalf("offset 2: %q", got)
	}
}
