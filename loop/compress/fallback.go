package compress

import (
	"fmt"
	"sort"
	"strings"

	"talaria/providers"
)

// Limits of the fallback summary (hermes.md §8, summary failure).
const (
	fallbackMaxChars  = 8000
	fallbackTurnChars = 700
	fallbackPrevChars = 3000 // of a previous summary carried into it
)

// FallbackSummary is the deterministic summary used when the summary call
// fails for a reason other than auth or the network: a digest of the middle
// turn by turn (a turn starts at each user message), each turn at most 700
// characters — the user's words, the tools called and their targets, the
// assistant's last words — newest turns kept first when the whole would pass
// 8000 characters, followed by the files touched when room is left.
func FallbackSummary(middle []providers.Message) string {
	return fallbackSummary(middle, fallbackMaxChars)
}

// fallbackWithPrevious keeps the start of a previous summary ahead of the
// digest of the newer turns, within the same 8000 characters.
func fallbackWithPrevious(middle []providers.Message, previous string) string {
	turns, prev := splitPrevious(middle, previous)
	if prev == "" {
		return fallbackSummary(turns, fallbackMaxChars)
	}
	head := "## Earlier checkpoint (cut to fit)\n" + clip(prev, fallbackPrevChars) + "\n\n"
	return head + fallbackSummary(turns, fallbackMaxChars-len(head))
}

func fallbackSummary(middle []providers.Message, limit int) string {
	header := fmt.Sprintf("## Historical Task Snapshot\nThe summary model was unavailable, so this is a mechanical digest of %d earlier %s, oldest first.\n\n## Completed Actions\n",
		len(middle), plural(len(middle), "message"))
	files := map[string]bool{}
	var turns []string
	for start := 0; start < len(middle); {
		end := start + 1
		for end < len(middle) && middle[end].Role != providers.RoleUser {
			end++
		}
		turns = append(turns, digestTurn(middle[start:end], files))
		start = end
	}
	room := limit - len(header)
	kept := 0
	for k := len(turns) - 1; k >= 0 && room-len(turns[k]) >= 0; k-- {
		room -= len(turns[k])
		kept++
	}
	var b strings.Builder
	b.WriteString(header)
	if skipped := len(turns) - kept; skipped > 0 {
		note := fmt.Sprintf("…%d older %s omitted…\n", skipped, plural(skipped, "turn"))
		if len(note) <= room {
			b.WriteString(note)
			room -= len(note)
		}
	}
	for _, t := range turns[len(turns)-kept:] {
		b.WriteString(t)
	}
	if len(files) > 0 {
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		section := "\n## Relevant Files\n"
		for _, p := range paths {
			if len(section)+len(p)+3 > room {
				break
			}
			section += "- " + p + "\n"
		}
		if len(section) > len("\n## Relevant Files\n") {
			b.WriteString(section)
		}
	}
	return clip(strings.TrimRight(b.String(), "\n"), limit)
}

// digestTurn renders one turn in at most fallbackTurnChars characters and
// collects the paths its tool calls touched.
func digestTurn(turn []providers.Message, files map[string]bool) string {
	var user, last string
	var tools []string
	for i := range turn {
		m := &turn[i]
		switch m.Role {
		case providers.RoleUser:
			if body, rest, ok := splitSummary(m.Content); ok && rest == "" {
				user = "(earlier summary) " + body
			} else if ok {
				user = rest
			} else {
				user = m.Content
			}
		case providers.RoleAssistant:
			if s := strings.TrimSpace(m.Content); s != "" {
				last = s
			}
			for _, tc := range m.ToolCalls {
				args := parseArgs(tc.Arguments)
				target := ""
				for _, k := range []string{"path", "command", "pattern", "query", "goal", "action"} {
					if v := argString(args, k); v != "" {
						target = oneLine(v, 60)
						if k == "path" {
							files[v] = true
						}
						break
					}
				}
				if target != "" {
					tools = append(tools, tc.Name+" "+target)
				} else {
					tools = append(tools, tc.Name)
				}
			}
		}
	}
	var b strings.Builder
	if user != "" {
		b.WriteString("- User: " + oneLine(user, 300) + "\n")
	}
	if len(tools) > 0 {
		b.WriteString("  Tools: " + oneLine(strings.Join(tools, "; "), 250) + "\n")
	}
	if last != "" {
		b.WriteString("  Assistant: " + oneLine(last, 250) + "\n")
	}
	s := b.String()
	if len(s) > fallbackTurnChars {
		s = clip(s, fallbackTurnChars-4) + "…\n"
	}
	return s
}
