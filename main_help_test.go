package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpListsEverything: --help, -h and `talaria help` print the same
// help on stdout, exit 0, and list the subcommands, flags (with their
// double dash) and slash commands with their aliases.
func TestHelpListsEverything(t *testing.T) {
	var first string
	for _, argv := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var out, errb bytes.Buffer
		if rc := run(argv, strings.NewReader(""), &out, &errb); rc != 0 {
			t.Fatalf("%v: exit %d, stderr %q", argv, rc, errb.String())
		}
		got := out.String()
		for _, want := range []string{"sessions search QUERY", "export ID", "checkpoints ID", "rewind ID --to TURN", "version", "--yolo", "-r ID", "--resume ID",
			"--base-url URL", "-p PROMPT", "/compress", "/resume [ID]", "/clear", "same as /new", "/init"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: help lacks %q", argv, want)
			}
		}
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("%v prints a different help", argv)
		}
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--bogus"}, strings.NewReader(""), &out, &errb); rc != 2 || !strings.Contains(errb.String(), "--help") || out.Len() != 0 {
		t.Fatalf("bad flag: rc %d stderr %q stdout %q", rc, errb.String(), out.String())
	}
}
