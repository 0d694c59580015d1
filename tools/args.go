package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// checkArgKeys is the strict half of decodeArgs: it walks the JSON value
// raw against the Go type of v (a pointer to an argument struct) and
// rejects, at every depth, an object key the struct does not declare, a
// key that differs only in case from a declared one (encoding/json would
// quietly take it for that one), and a key given twice (encoding/json
// would keep the last, while a check that read the first would disagree).
// Values of the wrong JSON type are left to json.Unmarshal, which names
// them. It is what makes the tool, the planner and the approver read the
// same arguments: they all decode through decodeArgs into the same
// structs, so no spelling reaches a tool unchecked.
func checkArgKeys(raw []byte, v any) error {
	t := reflect.TypeOf(v)
	return checkValue(raw, t, "")
}

// checkValue checks raw against type t; at names the position for errors
// ("" at the top, "tasks[0]" below).
func checkValue(raw []byte, t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && raw[0] == '{' && !implementsUnmarshaler(t):
		return checkObject(raw, t, at)
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && raw[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil // json.Unmarshal reports it
		}
		for i, e := range elems {
			if err := checkValue(e, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// implementsUnmarshaler reports whether t decodes itself.
func implementsUnmarshaler(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())
}

// checkObject checks the keys of the JSON object raw against struct t.
func checkObject(raw []byte, t reflect.Type, at string) error {
	fields := argFields(t)
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil // a syntax error: json.Unmarshal reports it
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		name := key
		if at != "" {
			name = at + "." + key
		}
		if seen[key] {
			return fmt.Errorf("argument %q is given twice; give each argument once", name)
		}
		seen[key] = true
		ft, ok := fields[key]
		if !ok {
			return unknownArg(name, key, fields)
		}
		if err := checkValue(val, ft, name); err != nil {
			return err
		}
	}
	return nil
}

// unknownArg builds the error for key, which t's fields do not declare.
func unknownArg(name, key string, fields map[string]reflect.Type) error {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
		if strings.EqualFold(k, key) {
			return fmt.Errorf("unknown argument %q: argument names are case-sensitive, did you mean %q?", name, k)
		}
	}
	sort.Strings(known)
	return fmt.Errorf("unknown argument %q; the arguments are: %s", name, strings.Join(known, ", "))
}

// argFields maps the JSON names of the exported fields of struct t to
// their types.
func argFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		out[name] = f.Type
	}
	return out
}
