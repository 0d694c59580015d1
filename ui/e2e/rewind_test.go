package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestTUIRewind drives the real binary: a turn writes a file, Esc Esc
// lists it, rewinding both removes the file, puts the message back in the
// composer, and the next request lacks the rewound turn. While a turn
// hangs /rewind is refused; after Esc interrupts it, /rewind opens.
func TestTUIRewind(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	s := start(t, bin, srv)

	srv.Push(pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"made.txt","content":"x"}`}), pt.Text("Made it."))
	s.typeLine("make a file")
	s.waitFor("Allow write_file?")
	s.waitFor("enter confirm")
	s.keys("y")
	s.waitFor("Made it.")
	if _, err := os.Stat(filepath.Join(s.cwd, "made.txt")); err != nil {
		t.Fatal("the write did not happen")
	}

	s.keys("Escape", "Escape")
	s.waitFor("Rewind · 1 turn")
	s.waitFor("created made.txt")
	s.keys("Enter")
	s.waitFor("1. Code and conversation")
	s.keys("1")
	s.waitFor("rewound to before turn 1: conversation · 1 file restored")
	if _, err := os.Stat(filepath.Join(s.cwd, "made.txt")); !os.IsNotExist(err) {
		t.Fatal("the rewind left the file")
	}
	s.waitFor("│ make a file") // back in the composer

	srv.Push(pt.Text("Second try."))
	s.keys("Enter")
	s.waitFor("Second try.")
	raw := srv.RawRequests()
	if last := raw[len(raw)-1]; strings.Contains(last, "Made it.") || strings.Count(last, "make a file") != 1 {
		t.Fatalf("the request after the rewind still has the rewound turn:\n%s", last)
	}

	never := make(chan struct{})
	defer close(never)
	srv.Push(pt.Reply{Chunks: pt.TextChunks("never", "stop"), Hold: never})
	s.typeLine("hang")
	waitRequest(t, srv, len(raw)+1)
	s.typeLine("/rewind")
	s.waitFor("interrupt it first")
	s.keys("Escape")
	s.waitFor("interrupted")
	s.typeLine("/rewind")
	s.waitFor("Rewind · 2 turns")
}
