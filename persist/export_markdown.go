package persist

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"talaria/providers"
)

// Caps of what a Markdown export shows of one block: a tool's result or
// the model's reasoning (resultMax*), a tool call's arguments (argsMax*).
// The JSON Lines export has everything.
const (
	resultMaxLines = 40
	resultMaxBytes = 4 << 10
	argsMaxLines   = 200
	argsMaxBytes   = 32 << 10
)

// ExportMarkdown writes the session for people to read: a heading per
// turn, the user's and the model's text as they wrote it, each tool call
// as a fenced block of its arguments (as YAML: the strings as the model
// wrote them, without JSON escapes, multi-line ones as blocks) followed by
// its result, capped at resultMaxLines lines or resultMaxBytes bytes. A
// turn a rewind took back keeps its place, marked; each rewind shows where
// it happened. ExportSession is the complete, machine-readable form.
func (s *Store) ExportMarkdown(w io.Writer, id string) error {
	sess, err := s.GetSession(id)
	if err != nil {
		return err
	}
	entries, err := s.Entries(id)
	if err != nil {
		return err
	}
	rws, err := s.Rewinds(id)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeMarkdownHeader(bw, sess)
	turns, live := assignTurns(entries, rws)
	calls := map[string]string{} // tool call id → tool name, for results
	lastTurn, lastLive := -1, true
	for i := range entries {
		for len(rws) > 0 && rws[0].LogSeq < entries[i].Seq {
			writeRewindNote(bw, rws[0])
			rws = rws[1:]
		}
		if turns[i] != lastTurn || live[i] != lastLive {
			lastTurn, lastLive = turns[i], live[i]
			writeTurnHeading(bw, turns[i], live[i], entries[i].Message.Timestamp)
		}
		writeMessage(bw, &entries[i].Message, calls)
	}
	for _, r := range rws {
		writeRewindNote(bw, r)
	}
	return bw.Flush()
}

// writeMarkdownHeader writes the title and what the session is.
func writeMarkdownHeader(w *bufio.Writer, sess *Session) {
	title := oneLineText(sess.Title)
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(w, "# %s\n\n", escapeHeading(title))
	fmt.Fprintf(w, "- session: `%s`\n", sess.ID)
	if sess.ParentID != "" {
		fmt.Fprintf(w, "- forked from: `%s`\n", sess.ParentID)
	}
	if sess.Provider != "" || sess.Model != "" {
		fmt.Fprintf(w, "- model: %s/%s\n", sess.Provider, sess.Model)
	}
	if sess.Cwd != "" {
		fmt.Fprintf(w, "- directory: `%s`\n", sess.Cwd)
	}
	fmt.Fprintf(w, "- created: %s · updated: %s\n", sess.CreatedAt.Local().Format("2006-01-02 15:04"), sess.UpdatedAt.Local().Format("2006-01-02 15:04"))
	fmt.Fprintf(w, "- messages: %d · tool calls: %d · tokens: %d in, %d out\n", sess.MessageCount, sess.ToolCallCount,
		sess.InputTokens+sess.CacheReadTokens+sess.CacheWriteTokens, sess.OutputTokens)
}

// writeTurnHeading starts a turn (turn 0: what came before the first
// user message).
func writeTurnHeading(w *bufio.Writer, turn int, live bool, ts int64) {
	h := fmt.Sprintf("Turn %d", turn)
	if turn == 0 {
		h = "Before the first turn"
	}
	if ts > 0 {
		h += " · " + time.UnixMilli(ts).Local().Format("2006-01-02 15:04")
	}
	if !live {
		h += " (taken back by a rewind)"
	}
	fmt.Fprintf(w, "\n## %s\n", h)
}

// writeRewindNote says where a rewind happened and what it did.
func writeRewindNote(w *bufio.Writer, r Rewind) {
	var what []string
	if r.Code {
		what = append(what, "code")
	}
	if r.Conversation {
		what = append(what, "conversation")
	}
	fmt.Fprintf(w, "\n> Rewound %s to before turn %d", strings.Join(what, " and "), r.ToTurn)
	if !r.At.IsZero() {
		fmt.Fprintf(w, " · %s", r.At.Local().Format("2006-01-02 15:04"))
	}
	if len(r.Restored) > 0 {
		fmt.Fprintf(w, " · restored %d file(s)", len(r.Restored))
	}
	w.WriteString("\n")
}

// writeMessage writes one message: text as it is, calls and results as
// fenced blocks.
func writeMessage(w *bufio.Writer, m *providers.Message, calls map[string]string) {
	switch m.Role {
	case providers.RoleUser:
		fmt.Fprintf(w, "\n### User\n\n%s\n", strings.TrimRight(m.Content, "\n"))
	case providers.RoleAssistant:
		if strings.TrimSpace(m.Reasoning) != "" {
			w.WriteString("\n**Reasoning**\n\n")
			writeFenced(w, "text", m.Reasoning, resultMaxLines, resultMaxBytes)
		}
		if strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) == 0 {
			fmt.Fprintf(w, "\n### Assistant\n\n%s\n", strings.TrimRight(m.Content, "\n"))
		}
		for _, c := range m.ToolCalls {
			calls[c.ID] = c.Name
			fmt.Fprintf(w, "\n**Tool call** `%s` (%s)\n\n", c.Name, c.ID)
			writeFenced(w, "yaml", readableArgs(c.Arguments), argsMaxLines, argsMaxBytes)
		}
	case providers.RoleTool:
		name := or(m.ToolName, calls[m.ToolCallID])
		status := ""
		if m.ToolStatus != "" {
			status = " · " + m.ToolStatus
		}
		fmt.Fprintf(w, "\n**Result** of `%s` (%s%s)\n\n", name, m.ToolCallID, status)
		writeFenced(w, "text", m.Content, resultMaxLines, resultMaxBytes)
	default:
		fmt.Fprintf(w, "\n### %s\n\n", strings.ToUpper(string(m.Role[:1]))+string(m.Role[1:]))
		writeFenced(w, "text", m.Content, resultMaxLines, resultMaxBytes)
	}
}

// or returns a unless it is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readableArgs turns a tool call's JSON arguments into YAML: keys in the
// model's order, strings unescaped (no \u003e, no \n), multi-line strings
// as literal blocks. Arguments that are not JSON are shown as they came.
func readableArgs(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "{}"
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &doc); err != nil || len(doc.Content) == 0 {
		return raw
	}
	restyle(&doc)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return raw
	}
	return strings.TrimRight(b.String(), "\n")
}

// restyle drops the JSON flow styles and quoting from a decoded tree, so
// the YAML encoder writes block mappings and plain or literal strings.
func restyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "\n") {
		n.Style = yaml.LiteralStyle
	}
	for _, c := range n.Content {
		restyle(c)
	}
}

// writeFenced writes text as a fenced code block, cut after maxLines
// lines or maxBytes bytes with a note of what was left out. The fence is
// longer than any run of backticks inside, so the text cannot close it.
func writeFenced(w *bufio.Writer, lang, text string, maxLines, maxBytes int) {
	text = strings.TrimRight(text, "\n")
	shown, note := capText(text, maxLines, maxBytes)
	fence := strings.Repeat("`", max(3, longestRun(shown, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", fence, lang, shown, fence)
	if note != "" {
		fmt.Fprintf(w, "\n*%s*\n", note)
	}
}

// capText keeps the first maxLines lines of text and at most maxBytes
// bytes (cut at a rune boundary), and says what it left out.
func capText(text string, maxLines, maxBytes int) (string, string) {
	total := strings.Count(text, "\n") + 1
	cut := text
	if i := nthIndex(cut, '\n', maxLines); i >= 0 {
		cut = cut[:i]
	}
	if len(cut) > maxBytes {
		cut = cut[:maxBytes]
		for !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
	}
	if cut == text {
		return text, ""
	}
	kept := strings.Count(cut, "\n") + 1
	return cut, fmt.Sprintf("… %d more line(s), %d more byte(s) not shown (of %d lines); `talaria export ID` has all of it",
		total-kept, len(text)-len(cut), total)
}

// nthIndex is the index of the n-th (1-based) occurrence of c, or -1.
func nthIndex(s string, c byte, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// oneLineText joins text's lines with spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// escapeHeading keeps a title from being read as Markdown syntax at the
// start of the heading.
func escapeHeading(s string) string {
	if s != "" && strings.ContainsRune("#>-+*=`", rune(s[0])) {
		return `\` + s
	}
	return s
}
