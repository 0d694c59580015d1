package tools

import (
	"strings"
	"testing"
)

// FuzzV4A feeds model-written patch text to the parser and the hunk
// applier over a fixed mixed-ending file. Neither may panic; a patch
// without "*** End Patch" must be refused; an applied update keeps every
// line of the file that no hunk touched, with its ending.
func FuzzV4A(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TWO\n*** End Patch",
		"*** Begin Patch\n  *** Update File: a.txt\n@@\n+tail\n@@ one\n-two\n+2\n *** End Patch\n",
		"*** Begin Patch\n*** Delete File: a.txt\n*** Update File: b.txt\n-x\n+y\n",
		"*** Begin Patch\n*** Update File: a.txt\n-three \u2014 3\n+three - 3\n*** End of File\n*** End Patch",
		"```\n*** Begin Patch\n*** Add File: n.txt\n+x\n\n+y\n*** End Patch\n```",
		"*** Update File: a.txt\n*** Move to: c.txt\n@@\n four\n+five\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n 4\n-5\n+five\n@@\n-one\n+1\n*** End Patch",
	} {
		f.Add(s)
	}
	const content = "one\r\ntwo\nthree \u2014 3\r\nfour\n"
	f.Fuzz(func(t *testing.T, text string) {
		files, err := parseV4A(text)
		if err != nil {
			return
		}
		if !strings.Contains(text, "*** End Patch") {
			t.Fatalf("a patch without *** End Patch was accepted: %q", text)
		}
		for _, fl := range files {
			if fl.op != v4aUpdate {
				continue
			}
			after, hunks, err := applyHunks(content, fl)
			if err != nil {
				continue
			}
			removed := 0
			for _, h := range hunks {
				for _, l := range h.lines {
					if l[0] == '-' {
						removed++
					}
				}
			}
			// Every original line not removed survives with its ending.
			before, _ := splitLineEnds(content)
			kept := 0
			for _, l := range before {
				if strings.Contains(after, l) {
					kept++
				}
			}
			if kept < len(before)-removed {
				t.Fatalf("lines lost: %q over %q gave %q", text, content, after)
			}
		}
	})
}
