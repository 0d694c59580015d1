package persist

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"talaria/providers"
)

// The crash and multi-process tests re-run this test binary as child
// processes: helperEnv names the part the child plays, and
// TestHelperProcess, which does nothing in a normal run, plays it.
const helperEnv = "TALARIA_PERSIST_HELPER"

// TestHelperProcess is the child side of the process tests.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	var err error
	switch mode {
	case "crash-writer":
		err = helperCrashWriter()
	case "mp-writer":
		err = helperMPWriter()
	case "mp-reader":
		err = helperMPReader()
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// helperCmd builds the command running a child in mode, with extra
// environment variables.
func helperCmd(ctx context.Context, mode string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// crashBatch is the size of the batch that starts at message number first:
// the writer's batches are a pure function of how many messages exist, so
// the parent can tell what a complete history looks like.
func crashBatch(first int) int { return 1 + first%3 }

// crashMessage is message k of the batch starting at first.
func crashMessage(first, k int) providers.Message {
	i := first + k
	content := fmt.Sprintf("crash b%d k%d/%d uniq%d", first, k, crashBatch(first), i)
	if i%7 == 0 {
		// Big enough for overflow pages.
		content += strings.Repeat(" filler text of a long tool output", 600)
	}
	if i%2 == 0 {
		return providers.Message{Role: providers.RoleAssistant, Content: content, Timestamp: int64(i + 1),
			ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: `{"path":"x.go"}`}}}
	}
	return providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("call_%d", i-1), Content: content, Timestamp: int64(i + 1)}
}

// helperCrashWriter appends batches to $DB session $SESSION forever (60 s
// at most), printing "committed N" (messages in the session) after each
// append returns.
func helperCrashWriter() error {
	s, err := Open(os.Getenv("DB"), Options{LockTimeout: 10 * time.Second})
	if err != nil {
		return err
	}
	id := os.Getenv("SESSION")
	sess, err := s.GetSession(id)
	if err != nil {
		return err
	}
	next := sess.MessageCount
	fmt.Println("ready", next)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		msgs := make([]providers.Message, crashBatch(next))
		for k := range msgs {
			msgs[k] = crashMessage(next, k)
		}
		if err := s.AppendMessages(id, msgs...); err != nil {
			return err
		}
		next += len(msgs)
		fmt.Println("committed", next)
	}
	return errors.New("not killed within 60 s")
}

// latencies summarises operation times.
type latencies []time.Duration

func (l latencies) String() string {
	if len(l) == 0 {
		return "no ops"
	}
	s := slices.Clone(l)
	slices.Sort(s)
	pct := func(p int) time.Duration { return s[(len(s)-1)*p/100] }
	return fmt.Sprintf("ops=%d p50=%s p99=%s max=%s", len(s), pct(50).Round(time.Microsecond),
		pct(99).Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond))
}

// helperMPWriter appends $N messages to session $OWN and $N to $SHARED,
// alternately, as writer $NAME, then prints its latencies.
func helperMPWriter() error {
	s, err := Open(os.Getenv("DB"), Options{LockTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(os.Getenv("N"))
	if err != nil {
		return err
	}
	name, own, shared := os.Getenv("NAME"), os.Getenv("OWN"), os.Getenv("SHARED")
	var lat latencies
	for i := range n {
		for _, target := range []string{own, shared} {
			kind := "own"
			if target == shared {
				kind = "shared"
			}
			m := providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("writer%s %s %d", name, kind, i),
				ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("c%s%d", name, i), Name: "t"}}}
			start := time.Now()
			if err := s.AppendMessages(target, m); err != nil {
				return err
			}
			lat = append(lat, time.Since(start))
		}
	}
	fmt.Println("writer", name, lat)
	return nil
}

// helperMPReader lists sessions and searches until the file $STOP exists,
// checking that no session's message count ever goes down, then prints its
// latencies.
func helperMPReader() error {
	s, err := Open(os.Getenv("DB"), Options{LockTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	seen := map[string]int{}
	var lat latencies
	for deadline := time.Now().Add(90 * time.Second); ; {
		if _, err := os.Stat(os.Getenv("STOP")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("never told to stop")
		}
		start := time.Now()
		list, err := s.ListSessions()
		if err != nil {
			return err
		}
		if _, err := s.SearchSessions(context.Background(), "shared", 5, ""); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
		for _, sess := range list {
			if sess.MessageCount < seen[sess.ID] {
				return fmt.Errorf("session %s went from %d to %d messages", sess.ID, seen[sess.ID], sess.MessageCount)
			}
			seen[sess.ID] = sess.MessageCount
		}
	}
	fmt.Println("reader", lat)
	return nil
}

// readLines sends the child's stdout lines on a channel, closed at EOF.
func readLines(cmd *exec.Cmd) (<-chan string, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines, nil
}
