package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadPipedFromAFile: a regular file on stdin is read whole, with no
// wait; /dev/null and a closed reader attach nothing; over the limit is
// an error.
func TestReadPipedFromAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, note, err := readPiped(f, 100, time.Hour)
	if err != nil || note != "" || string(data) != "line one\nline two\n" {
		t.Fatalf("%q %q %v", data, note, err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if data, _, err := readPiped(null, 100, time.Hour); err != nil || data != nil {
		t.Fatalf("/dev/null: %q %v", data, err)
	}
	if _, _, err := readPiped(strings.NewReader(strings.Repeat("x", 101)), 100, time.Hour); err == nil {
		t.Fatal("over the limit accepted")
	}
	if err := checkText([]byte("ok\xff")); err == nil || !strings.Contains(err.Error(), "offset 2") {
		t.Fatalf("invalid UTF-8: %v", err)
	}
}

// TestScriptFlagChecks: the combinations that make no sense are usage
// errors naming the flag.
func TestScriptFlagChecks(t *testing.T) {
	for args, want := range map[string]string{
		"-p x --json --output-format json":              "--json",
		"--output-format json":                          "need -p",
		"-p x --fork-session":                           "--fork-session",
		"-p x --max-budget-usd -1":                      "--max-budget-usd",
		"-p x --output-schema /nonexistent/schema.json": "--output-schema",
	} {
		_, err := parseFlags(strings.Fields(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	o, err := parseFlags([]string{"-p", "x", "--max-turns", "7", "--output-format", "stream-json"})
	if err != nil || o.flags.Overrides.MaxIterations != 7 || !o.json {
		t.Fatalf("%+v %v", o, err)
	}
}
