package mcp

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"talaria/tools/mcp/mcptest"
)

// spewConfig runs a stdio server that prints n lines that are not
// JSON-RPC to stdout before it serves (this test binary as the test
// server).
func spewConfig(name string, n int) ServerConfig {
	return ServerConfig{Name: name, Command: "/bin/sh",
		Args: []string{"-c", `yes 'INFO junk on stdout' | head -n ` + strconv.Itoa(n) + `; exec "$0" -test.run='^$'`, os.Args[0]},
		Env:  map[string]string{mcptest.EnvServer: "1"}, StartupTimeout: 60 * time.Second}
}

// A server that prints a flood of stray lines costs the log the first
// strayFirst of them and a count: every line is accounted for, and the
// log stays small.
func TestStrayFloodIsCounted(t *testing.T) {
	const n = 200_000
	log := &logLines{}
	m, errs := Start([]ServerConfig{spewConfig("spew", n)}, Options{Log: log.add})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if errs := m.Wait(context.Background()); len(errs) != 0 {
		m.Close()
		t.Fatal(errs)
	}
	if r, _ := call(t, toolsByName(m.Tools())["spew__echo"], `{"text":"alive"}`); r.IsError {
		t.Fatalf("echo after the flood: %+v", r)
	}
	m.Close() // the last count comes when the output ends
	log.mu.Lock()
	lines := append([]string(nil), log.lines...)
	log.mu.Unlock()
	count := regexp.MustCompile(`\[([0-9,]+) more stray lines suppressed\]`)
	logged, counted, bytes := 0, 0, 0
	for _, l := range lines {
		bytes += len(l) + 1
		switch {
		case strings.HasSuffix(l, "INFO junk on stdout"):
			logged++
		case count.MatchString(l):
			k, _ := strconv.Atoi(strings.ReplaceAll(count.FindStringSubmatch(l)[1], ",", ""))
			counted += k
		}
	}
	if logged != strayFirst || logged+counted != n {
		t.Errorf("%d lines logged and %d counted, want %d and %d", logged, counted, strayFirst, n-strayFirst)
	}
	if len(lines) > strayFirst+10 || bytes > 16<<10 {
		t.Errorf("%d log lines, %d bytes for %d stray lines", len(lines), bytes, n)
	}
}

// The count comes at most every strayEvery while the flood goes on.
func TestStrayLimiterRate(t *testing.T) {
	var out []string
	l := &strayLimiter{log: func(s string) { out = append(out, s) }}
	for range strayFirst + 5000 {
		l.line("x")
	}
	if len(out) != strayFirst+1 { // the lines and the note that counting begins
		t.Fatalf("%d lines before the interval passed: %q", len(out), out[strayFirst:])
	}
	l.since = l.since.Add(-strayEvery) // the interval passes
	l.line("x")
	if got := out[len(out)-1]; got != "[5,001 more stray lines suppressed]" {
		t.Errorf("count line %q", got)
	}
	l.flush()
	if len(out) != strayFirst+2 {
		t.Errorf("a flush with nothing counted logged %q", out[len(out)-1])
	}
	if g := groupDigits(1234567); g != "1,234,567" {
		t.Errorf("groupDigits = %q", g)
	}
}
