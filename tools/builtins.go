package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Builtins returns the built-in tools in a stable order: read_file,
// write_file, patch, search_files, terminal, process, clarify, todo,
// session_search, delegate_task, web_fetch and diagnostics. Process,
// clarify, todo, session_search, delegate_task and diagnostics depend on
// Env fields (Processes, Ask, Todos, Sessions, Delegate, Edits) and say so
// clearly when they are not set.
func Builtins() []Tool {
	return []Tool{
		ReadFileTool{},
		WriteFileTool{},
		PatchTool{},
		SearchFilesTool{},
		TerminalTool{},
		ProcessTool{},
		ClarifyTool{},
		TodoTool{},
		SessionSearchTool{},
		DelegateTaskTool{},
		WebFetchTool{},
		DiagnosticsTool{},
	}
}

// AvailableBuiltins returns the built-in tools that can work with env, in
// the order of Builtins: process only with env.Processes, todo only with
// env.Todos, session_search only with env.Sessions, delegate_task only
// with env.Delegate and diagnostics only with env.Edits. clarify is
// always offered: without env.Ask it tells the model to decide by itself.
func AvailableBuiltins(env *Env) []Tool {
	var out []Tool
	for _, t := range Builtins() {
		switch t.Name() {
		case "process":
			if env == nil || env.Processes == nil {
				continue
			}
		case "todo":
			if env == nil || env.Todos == nil {
				continue
			}
		case "session_search":
			if env == nil || env.Sessions == nil {
				continue
			}
		case "delegate_task":
			if env == nil || env.Delegate == nil {
				continue
			}
		case "diagnostics":
			if env == nil || env.Edits == nil {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// decodeArgs decodes the JSON object raw into v (a pointer to an argument
// struct), strictly: see checkArgKeys. The error names the offending field
// and what it should be, in words the model can act on.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	err := json.Unmarshal(raw, v)
	if err == nil {
		return checkArgKeys(raw, v)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Errorf("arguments must be a JSON object, got %s", te.Value)
		}
		return fmt.Errorf("argument %q must be %s, got %s", field, jsonTypeName(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("arguments are not valid JSON: %v", se)
	}
	return fmt.Errorf("invalid arguments: %v", err)
}

// jsonTypeName names a Go type the way a JSON Schema would.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// flexInt is an integer argument that also accepts an integral float (3.0)
// or a string holding an integer ("3"), which models send now and then.
type flexInt int

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return nil
	}
	kind := "number"
	if strings.HasPrefix(s, `"`) {
		kind = "string " + s
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
	} else if s == "true" || s == "false" {
		kind = "boolean"
	} else if strings.HasPrefix(s, "{") {
		kind = "object"
	} else if strings.HasPrefix(s, "[") {
		kind = "array"
	}
	if n, err := strconv.Atoi(s); err == nil {
		*f = flexInt(n)
		return nil
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		*f = flexInt(int(x))
		return nil
	}
	if kind == "number" {
		kind = "number " + s
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[int]()}
}

// flexBool is a boolean argument that also accepts the strings "true" and
// "false".
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexBool) UnmarshalJSON(b []byte) error {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(string(b)), `"`)) {
	case "null":
		return nil
	case "true":
		*f = true
		return nil
	case "false":
		*f = false
		return nil
	}
	return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[bool]()}
}

// sniffLen is how much of a file is inspected to decide whether it is
// binary.
const sniffLen = 8 << 10

// hasNUL reports whether the first sniffLen bytes of data hold a NUL byte.
func hasNUL(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// looksBinary reports whether data (the start of a file, or all of it when
// complete is true) looks like a binary file: a NUL byte or invalid UTF-8 in
// the first sniffLen bytes. A rune cut off at the end of a partial sniff is
// not held against it.
func looksBinary(data []byte, complete bool) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
		complete = false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	if utf8.Valid(data) {
		return false
	}
	if !complete {
		// Drop up to 3 trailing bytes of a rune split by the cut.
		for i := 1; i <= 3 && i <= len(data); i++ {
			if utf8.RuneStart(data[len(data)-i]) {
				return !utf8.Valid(data[:len(data)-i])
			}
		}
	}
	return true
}

// countLines counts the lines of s: newlines, plus one for a last line
// without a trailing newline.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// plural returns "1 line" or "n lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
