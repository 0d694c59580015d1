package compress

import (
	"fmt"
	"strconv"
	"strings"

	"talaria/providers"
)

// Limits of fitting a history into a stated window.
const (
	// fitMinKeepChars is the least of a tool result kept when it is cut.
	fitMinKeepChars = 400
	// fitMinCutChars: tool results shorter than this are not worth cutting.
	fitMinCutChars = 1000
)

// UnseenStart is the index of the first message the model has not yet
// answered: when the history ends on tool results (the current
// iteration's), the assistant message that called them; else len(msgs).
// Pruning never touches messages from there on.
func UnseenStart(msgs []providers.Message) int {
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == providers.RoleTool {
		i--
	}
	if i == len(msgs) {
		return i
	}
	if i > 0 && msgs[i-1].Role == providers.RoleAssistant && len(msgs[i-1].ToolCalls) > 0 {
		i--
	}
	return i
}

// fitPlan shrinks the kept tail of p when head and tail alone would not
// leave room for a summary within o.FitTokens: whole groups are taken
// newest first within half of what the head leaves (the other half is the
// summary's); the current iteration's tool results always stay, and the
// latest user message stays when it fits.
func fitPlan(msgs []providers.Message, p Plan, o Options) Plan {
	toks := make([]int, len(msgs))
	for i := range msgs {
		toks[i] = MessageTokens(&msgs[i])
	}
	sum := func(idx []int) int {
		n := 0
		for _, i := range idx {
			n += toks[i]
		}
		return n
	}
	head := sum(p.Head)
	room := o.FitTokens - head
	if !p.Noop && sum(p.Tail)+summaryMinTokens/2 <= room {
		return p // the ordinary plan fits
	}
	budget := room / 2
	headEnd := len(p.Head)
	unseen := UnseenStart(msgs)
	sp := spans(msgs)
	start, acc := len(msgs), 0
	for k := len(sp) - 1; k >= 0 && sp[k].start >= headEnd; k-- {
		gt := 0
		for i := sp[k].start; i < sp[k].end; i++ {
			gt += toks[i]
		}
		if sp[k].start < unseen && acc+gt > budget {
			break
		}
		acc += gt
		start = sp[k].start
	}
	q := Plan{TokensBefore: p.TokensBefore, Head: p.Head}
	q.Middle = indices(headEnd, start)
	q.Tail = indices(start, len(msgs))
	q.Noop = len(q.Middle) == 0
	return q
}

// fitSummary clips a summary body so that it fits within room tokens.
func fitSummary(summary string, room int) string {
	if room <= 0 {
		return "(older turns omitted to fit the model's context window)"
	}
	if EstimateText(summary) <= room {
		return summary
	}
	// EstimateText counts at most 4 characters a token for ASCII text.
	chars := max(room*3, 200)
	return clip(summary, chars) + "\n…[summary cut to fit the model's context window]"
}

// cutToFit cuts the largest tool results, newest calls' included, until
// msgs fit fit tokens or nothing more can be cut. Each cut result ends
// with a marker that says how much was left out and how to read it. It
// returns a new slice and how many results were cut.
func cutToFit(msgs []providers.Message, fit int) ([]providers.Message, int) {
	out := append([]providers.Message(nil), msgs...)
	calls := map[string]providers.ToolCall{}
	for i := range out {
		for _, tc := range out[i].ToolCalls {
			calls[tc.ID] = tc
		}
	}
	done := map[int]bool{}
	cut := 0
	for {
		excess := Estimate(out, nil) - fit
		if excess <= 0 {
			return out, cut
		}
		big := -1
		for i := range out {
			if out[i].Role == providers.RoleTool && !done[i] && len(out[i].Content) >= fitMinCutChars &&
				(big < 0 || len(out[i].Content) > len(out[big].Content)) {
				big = i
			}
		}
		if big < 0 {
			return out, cut
		}
		done[big] = true
		m := &out[big]
		body, steer := splitSteer(m.Content)
		tok := max(EstimateText(body), 1)
		// Keep the share of the characters that leaves the excess out,
		// with room for the marker.
		keepTok := tok - excess - 64
		keep := max(int(int64(len(body))*int64(max(keepTok, 0))/int64(tok)), fitMinKeepChars)
		if keep >= len(body) {
			continue
		}
		tc := calls[m.ToolCallID]
		if tc.Name == "" {
			tc.Name = m.ToolName
		}
		m.Content = cutResult(body, keep, tc) + steer
		cut++
	}
}

// cutResult keeps the first keep bytes of a tool result (at a line break
// when one is near) and adds a marker saying how to read the rest: for
// read_file, the offset of the first line left out.
func cutResult(body string, keep int, tc providers.ToolCall) string {
	head := clip(body, keep)
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i+1]
	}
	left := len(body) - len(head)
	lines := strings.Count(body[len(head):], "\n")
	how := "Narrow the request (a smaller range, a more specific pattern, or a command piped through head/tail/grep) to see the rest."
	if tc.Name == "read_file" {
		args := parseArgs(tc.Arguments)
		path := argString(args, "path")
		if next, ok := nextLine(head); ok {
			how = fmt.Sprintf("Read the rest with read_file path=%q offset=%d and a limit small enough to fit.", path, next)
		} else {
			how = fmt.Sprintf("Read the rest with read_file path=%q using offset and limit.", path)
		}
	}
	return fmt.Sprintf("%s\n[Output cut to fit the model's context window: %s more characters (about %d lines) not shown. %s]",
		strings.TrimRight(head, "\n"), thousands(left), lines, how)
}

// nextLine reads the line number of the last "N|text" line of read_file
// output and returns N+1.
func nextLine(s string) (int, bool) {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	num, _, ok := strings.Cut(s, "|")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	return n + 1, err == nil && n > 0
}
