package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

const layoutSample = "Results:\n\n| name | ok |\n|------|----|\n| parse | yes |\n| lex | no |\n\n```go\nx := 1\n```\n\n```sh\ngo test ./...\n```\n\nDone.\n"

// TestGoldenMarkdownLayout: a small table keeps its natural width at 80
// and 120 columns, and two code blocks in a row are kept apart by a rule.
func TestGoldenMarkdownLayout(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			md := newMarkdown(themes.Plain().Glamour())
			lines := md.render(layoutSample, w)
			got := ansi.Strip(strings.Join(lines, "\n"))
			for _, l := range lines {
				if strings.Contains(ansi.Strip(l), "│") && ansi.StringWidth(l) > 30 {
					t.Errorf("the table stretches to %d columns: %q", ansi.StringWidth(l), ansi.Strip(l))
				}
			}
			x, test := strings.Index(got, "x := 1"), strings.Index(got, "go test ./...")
			if x < 0 || test < 0 || !strings.Contains(got[x:test], "───") {
				t.Errorf("no rule between the code blocks:\n%s", got)
			}
			contains(t, got, "Results:", "parse", "Done.")
			golden(t, got)
		})
	}
}

func TestSplitTablesIgnoresFences(t *testing.T) {
	text := "```\n| a | b |\n|---|---|\n```\n"
	if blocks, _ := newMarkdown(themes.Plain().Glamour()).splitBlocks(text); len(blocks) != 1 || blocks[0].table() {
		t.Fatalf("a table inside a fence was split out: %+v", blocks)
	}
	if got := separateCodeBlocks("```\na\n```\ntext\n```\nb\n```\n"); strings.Contains(got, "---") {
		t.Fatalf("blocks with text between got a rule: %q", got)
	}
}
