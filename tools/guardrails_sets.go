package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

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
// JSON when it is JSON, else of the raw text.
func ResultHash(output string) string {
	t := strings.TrimSpace(output)
	if t != "" && strings.ContainsRune("{[\"-0123456789tfn", rune(t[0])) && json.Valid([]byte(t)) {
		if c, ok := canonicalJSON([]byte(t)); ok {
			return sha256Hex(c)
		}
	}
	return sha256Hex([]byte(output))
}

// recoveryHint is the tool-specific advice of a same_tool_failure_warning.
func recoveryHint(tr Traits) string {
	if tr.RecoveryHint != "" {
		return tr.RecoveryHint
	}
	return "Read the last error closely, then change the arguments or use a different tool."
}
