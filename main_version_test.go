package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestVersionFlags: --version and -v print exactly what `talaria version`
// prints, on stdout, and exit 0 (issue 24, defect 13: -v was an unknown
// flag, exit 2), even with other flags around them.
func TestVersionFlags(t *testing.T) {
	var want bytes.Buffer
	if rc := run([]string{"version"}, strings.NewReader(""), &want, &bytes.Buffer{}); rc != 0 || want.Len() == 0 {
		t.Fatalf("talaria version: exit %d, %q", rc, want.String())
	}
	for _, argv := range [][]string{{"--version"}, {"-v"}, {"-version"}, {"--theme", "dark", "-v"}} {
		var out, errb bytes.Buffer
		if rc := run(argv, strings.NewReader(""), &out, &errb); rc != 0 || out.String() != want.String() || errb.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q (want %q), stderr %q", argv, rc, out.String(), want.String(), errb.String())
		}
	}
}
