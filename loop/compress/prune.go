package compress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"talaria/providers"
)

// PrunedPlaceholder replaces an old tool output whose tool is unknown.
const PrunedPlaceholder = "[Old tool output cleared to save context space]"

const (
	// pruneMinChars: shorter tool outputs are kept, a one-line summary
	// would not be shorter.
	pruneMinChars = 200
	// argsPruneMin: tool-call arguments at least this long are shrunk.
	argsPruneMin = 1500
	// argsKeepChars is what is kept of each long string inside them.
	argsKeepChars = 300
	// steerMarker opens a steer appended to a tool result (the loop's
	// SteerOpen); the steer is the user's own words and survives pruning.
	steerMarker = "[OUT-OF-BAND USER MESSAGE"
)

// PruneToolOutputs is the cheap first step of compression (hermes.md §8
// step 1), with no model call: every tool output before index protectFrom
// that is at least 200 characters long becomes a one-line summary of what
// the call did ("[terminal] ran `npm test` -> exit 0, 47 lines output"), or
// PrunedPlaceholder when the call is unknown; an output identical to a later
// one says so (only the newest full copy is kept); and long tool-call
// arguments before protectFrom have their long strings cut, staying valid
// JSON. A steer appended to a tool output is kept verbatim. It returns a new
// slice (the caller's is not modified) and how many messages changed.
func PruneToolOutputs(msgs []providers.Message, protectFrom int) ([]providers.Message, int) {
	out := make([]providers.Message, len(msgs))
	copy(out, msgs)
	protectFrom = min(max(protectFrom, 0), len(msgs))
	if protectFrom == 0 {
		return out, 0
	}
	calls := map[string]providers.ToolCall{}
	for i := range msgs {
		for _, tc := range msgs[i].ToolCalls {
			if tc.ID != "" {
				calls[tc.ID] = tc
			}
		}
	}
	seen := map[string]bool{} // tool outputs met so far, walking backward
	changed := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &out[i]
		switch {
		case m.Role == providers.RoleTool:
			body, steer := splitSteer(m.Content)
			if len(body) < pruneMinChars {
				continue
			}
			dup := seen[body]
			seen[body] = true
			if i >= protectFrom {
				continue
			}
			tc, ok := calls[m.ToolCallID]
			if !ok && m.ToolName != "" {
				tc, ok = providers.ToolCall{Name: m.ToolName}, true
			}
			line := PrunedPlaceholder
			if ok {
				line = toolLine(tc, body)
			}
			if dup {
				line += " (identical to a later result)"
			}
			m.Content = line + steer
			changed++
		case i < protectFrom && m.Role == providers.RoleAssistant && len(m.ToolCalls) > 0:
			var tcs []providers.ToolCall
			for k, tc := range m.ToolCalls {
				if len(tc.Arguments) < argsPruneMin {
					continue
				}
				if tcs == nil {
					tcs = append([]providers.ToolCall(nil), m.ToolCalls...)
				}
				tcs[k].Arguments = shrinkArgs(tc.Arguments)
			}
			if tcs != nil {
				m.ToolCalls = tcs
				changed++
			}
		}
	}
	return out, changed
}

// splitSteer separates a tool output from a steer appended to it.
func splitSteer(content string) (body, steer string) {
	if i := strings.Index(content, steerMarker); i >= 0 {
		return strings.TrimRight(content[:i], "\n"), "\n\n" + content[i:]
	}
	return content, ""
}

// toolLine is the one-line summary of a call and its output.
func toolLine(tc providers.ToolCall, output string) string {
	args := parseArgs(tc.Arguments)
	str := func(k string) string { return oneLine(argString(args, k), 100) }
	lines := strings.Count(strings.TrimRight(output, "\n"), "\n") + 1
	chars := thousands(len(output))
	switch tc.Name {
	case "terminal":
		body, exit := output, "?"
		if i := strings.LastIndex(output, "exit code: "); i >= 0 {
			body = strings.TrimRight(output[:i], "\n")
			exit = strings.Fields(output[i+len("exit code: "):] + " ?")[0]
		}
		n := strings.Count(body, "\n") + 1
		return fmt.Sprintf("[terminal] ran `%s` -> exit %s, %d %s output", str("command"), exit, n, plural(n, "line"))
	case "read_file":
		from := 1
		if n, ok := argInt(args, "offset"); ok && n > 0 {
			from = n
		}
		return fmt.Sprintf("[read_file] read %s from line %d (%s chars)", str("path"), from, chars)
	case "write_file":
		return fmt.Sprintf("[write_file] wrote %s (%s chars output)", str("path"), chars)
	case "patch":
		return fmt.Sprintf("[patch] patched %s (%s chars output)", orDefault(str("path"), "files"), chars)
	case "search_files":
		return fmt.Sprintf("[search_files] searched for `%s` in %s -> %d %s output", str("pattern"), orDefault(str("path"), "."), lines, plural(lines, "line"))
	case "process":
		return fmt.Sprintf("[process] %s %s -> %d %s output", str("action"), str("id"), lines, plural(lines, "line"))
	case "delegate_task":
		return fmt.Sprintf("[delegate_task] delegated `%s` (%s chars result)", oneLine(argString(args, "goal"), 80), chars)
	case "session_search":
		return fmt.Sprintf("[session_search] searched sessions for `%s` (%s chars)", str("query"), chars)
	case "todo":
		return fmt.Sprintf("[todo] updated the todo list (%s chars output)", chars)
	}
	return fmt.Sprintf("[%s] returned %s chars in %d %s", tc.Name, chars, lines, plural(lines, "line"))
}

// parseArgs decodes tool-call arguments; anything but an object gives nil.
func parseArgs(raw string) map[string]any {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

func argString(args map[string]any, k string) string {
	switch v := args[k].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func argInt(args map[string]any, k string) (int, bool) {
	switch v := args[k].(type) {
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

// shrinkArgs cuts every long string inside JSON arguments, keeping valid
// JSON with sorted keys; arguments that are not JSON become a JSON object
// holding their clipped text.
func shrinkArgs(raw string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		v = map[string]any{"_truncated_arguments": clip(raw, argsKeepChars)}
	} else {
		v = shrinkValue(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return raw
	}
	return strings.TrimRight(b.String(), "\n")
}

func shrinkValue(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > argsKeepChars+50 {
			return clip(x, argsKeepChars) + fmt.Sprintf(" …[%s chars truncated]", thousands(len(x)-argsKeepChars))
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = shrinkValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = shrinkValue(e)
		}
		return x
	}
	return v
}

// clip returns at most n bytes of s, cut on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !runeStart(s[n]) {
		n--
	}
	return s[:n]
}

// clipTail returns at most the last n bytes of s, cut on a rune boundary.
func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !runeStart(s[i]) {
		i++
	}
	return s[i:]
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// oneLine flattens whitespace and clips to n bytes with an ellipsis.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return clip(s, n) + "…"
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// thousands formats n with comma separators: 3400 → "3,400".
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
