package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// idempotentTool reports whether repeating name with the same arguments
// should return the same result: a read-only tool that mutates nothing
// (hermes.md §2.2). MCP tools count by their own name after "SERVER__".
func idempotentTool(name string) bool {
	if mutatingTool(name) {
		return false
	}
	switch name {
	case "read_file", "search_files", "web_search", "web_extract", "session_search",
		"skill_view", "skills_list", "browser_snapshot", "browser_console", "browser_get_images":
		return true
	}
	base, ok := mcpToolBase(name)
	if !ok {
		return false
	}
	switch base {
	case "read_file", "read_text_file", "read_multiple_files", "list_directory",
		"list_directory_with_sizes", "directory_tree", "get_file_info", "search_files":
		return true
	}
	return false
}

// mcpToolBase returns the server's own tool name of an MCP tool offered as
// SERVER__TOOL (or, in Hermes' spelling, mcp_filesystem_TOOL).
func mcpToolBase(name string) (string, bool) {
	if base, ok := strings.CutPrefix(name, "mcp_filesystem_"); ok && base != "" {
		return base, true
	}
	if i := strings.LastIndex(name, "__"); i > 0 && i+2 < len(name) {
		return name[i+2:], true
	}
	return "", false
}

// mutatingTool reports whether name changes state (files, processes,
// lists, the outside world).
func mutatingTool(name string) bool {
	switch name {
	case "terminal", "execute_code", "write_file", "patch", "todo", "todo_list", "memory",
		"skill_manage", "browser_click", "browser_type", "browser_press", "browser_scroll",
		"browser_navigate", "send_message", "cronjob", "cronjob_manage", "delegate_task",
		"process", "process_manage":
		return true
	}
	return false
}

// failureTolerantTool reports whether failures are ordinary output for
// name (red tests, an empty grep), so that repeated failures never halt it.
func failureTolerantTool(name string) bool {
	switch name {
	case "terminal", "execute_code", "process", "process_manage", "browser_navigate", "web_extract":
		return true
	}
	return false
}

// progressResetTool reports whether a success of name counts as progress:
// the next identical retry of a failed call is then a new experiment.
func progressResetTool(name string) bool {
	switch name {
	case "write_file", "patch", "terminal", "execute_code",
		"browser_click", "browser_type", "browser_press", "browser_navigate",
		"process", "process_manage", "delegate_task", "send_message", "cronjob", "cronjob_manage",
		"todo", "todo_list", "memory", "skill_manage":
		return true
	}
	return false
}

// stallRepeatableTool reports whether name is a poller that may be called
// again and again with the same result (exempt from the stall notices).
func stallRepeatableTool(name string) bool {
	return name == "process" || name == "process_manage" ||
		strings.HasSuffix(name, "_get_result") || strings.HasSuffix(name, "_poll")
}

// canonicalJSON re-encodes a JSON text with sorted object keys, no
// insignificant whitespace, integers exact, floats by value and non-ASCII
// kept.
func canonicalJSON(raw []byte) ([]byte, bool) {
	v, ok := decodeJSONValue(raw)
	if !ok {
		return nil, false
	}
	return encodeCanonical(v)
}

// decodeJSONValue decodes one JSON value, keeping integers exact
// (json.Number) and turning other numbers into jsonFloat, so that 2.5 and
// 2.50 are the same value while 1 and 1.0 stay apart.
func decodeJSONValue(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return normalizeNumbers(v), true
}

// normalizeNumbers turns the non-integer json.Numbers of v into jsonFloat.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			if f, err := x.Float64(); err == nil {
				return jsonFloat(f)
			}
		}
	}
	return v
}

// jsonFloat is a non-integer JSON number; it always encodes with a
// fraction or an exponent, so 1.0 never reads as the integer 1.
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return []byte(s), nil
}

// encodeCanonical encodes v (maps are sorted by key) without HTML escaping.
func encodeCanonical(v any) ([]byte, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}

// sha256Hex returns the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ArgsHash returns the hex SHA-256 of the canonical JSON of a tool call's
// arguments (sorted keys, compact); blank arguments hash as {}, and
// arguments that are not JSON hash as the trimmed raw text.
func ArgsHash(args string) string {
	s := strings.TrimSpace(args)
	if s == "" {
		s = "{}"
	}
	if c, ok := canonicalJSON([]byte(s)); ok {
		return sha256Hex(c)
	}
	return sha256Hex([]byte(s))
}

// CallSignature identifies a tool call by its tool name and the hash of its
// canonical arguments; it never exposes the argument values.
func CallSignature(name, args string) string {
	return name + ":" + ArgsHash(args)
}

// ResultHash returns the hex SHA-256 of a tool result: of its canonical
// JSON when it is JSON, else of the raw text. For execute_code the
// run-dependent fields duration_seconds and kernel.execution_count are
// left out.
func ResultHash(name, output string) string {
	t := strings.TrimSpace(output)
	if t != "" && strings.ContainsRune("{[\"-0123456789tfn", rune(t[0])) && json.Valid([]byte(t)) {
		if v, ok := decodeJSONValue([]byte(t)); ok {
			if m, ok := v.(map[string]any); ok && name == "execute_code" {
				delete(m, "duration_seconds")
				if k, ok := m["kernel"].(map[string]any); ok {
					delete(k, "execution_count")
				}
			}
			if c, ok := encodeCanonical(v); ok {
				return sha256Hex(c)
			}
		}
	}
	return sha256Hex([]byte(output))
}

// lastExitCode returns N of the last "exit code: N" line, the line that
// ends the terminal tool's output.
func lastExitCode(output string) (int, bool) {
	const tag = "exit code: "
	i := strings.LastIndex(output, tag)
	if i < 0 || (i > 0 && output[i-1] != '\n') {
		return 0, false
	}
	rest := output[i+len(tag):]
	end := 0
	for end < len(rest) && (rest[end] == '-' && end == 0 || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// ClassifyToolFailure is the fallback failure test for a tool result that
// carries no error flag: a guardrail refusal is not a failure; terminal
// failed when its exit code is not 0; memory failed when it is full;
// anything else failed when its first 500 characters mention "error" or
// "failed", or it starts with "Error".
func ClassifyToolFailure(name, output string) bool {
	var obj map[string]json.RawMessage
	isObj := json.Unmarshal([]byte(strings.TrimSpace(output)), &obj) == nil && obj != nil
	if isObj {
		if _, ok := obj["guardrail"]; ok {
			return false
		}
	}
	switch name {
	case "terminal":
		if isObj {
			if raw, ok := obj["exit_code"]; ok {
				var n json.Number
				if json.Unmarshal(raw, &n) == nil {
					return n.String() != "0"
				}
			}
		}
		if n, ok := lastExitCode(output); ok {
			return n != 0
		}
	case "memory":
		if isObj {
			var ok bool
			var msg string
			if json.Unmarshal(obj["success"], &ok) == nil && !ok {
				_ = json.Unmarshal(obj["error"], &msg)
				if strings.Contains(msg, "exceed the limit") {
					return true
				}
			}
		}
	}
	head := output
	if len(head) > 500 {
		head = head[:500]
	}
	head = strings.ToLower(head)
	return strings.Contains(head, "error") || strings.Contains(head, "failed") || strings.HasPrefix(output, "Error")
}

// recoveryHint is the tool-specific advice of a same_tool_failure_warning.
func recoveryHint(name string) string {
	switch name {
	case "terminal":
		return "Check where you are with `pwd && ls -la`, then try an absolute path, a simpler command, or a different tool."
	case "read_file":
		return "Check the path first: list candidates with search_files (target \"files\") instead of guessing."
	case "write_file":
		return "Check that the path is correct and its directory is writable, and that content is a plain string."
	case "patch":
		return "Re-read the file with read_file and copy old_string exactly, or rewrite the whole file with write_file."
	case "search_files":
		return "Simplify the pattern, check that path exists, or switch target between \"content\" and \"files\"."
	}
	return "Read the last error closely, then change the arguments or use a different tool."
}
