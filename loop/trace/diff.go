package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// urlPath is a URL without its scheme and host.
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			return u[j:]
		}
		return "/"
	}
	return u
}

// firstDiff walks two decoded JSON values and returns the first path where
// they differ, with both sides (clipped).
func firstDiff(path string, a, b any) (string, string, string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			va, oka := x[k]
			vb, okb := y[k]
			if !oka || !okb {
				return path + "." + k, show(va, oka), show(vb, okb), true
			}
			if p, s1, s2, d := firstDiff(path+"."+k, va, vb); d {
				return p, s1, s2, true
			}
		}
		return "", "", "", false
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if p, s1, s2, d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d {
				return p, s1, s2, true
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s (length)", path), fmt.Sprint(len(x), " items"), fmt.Sprint(len(y), " items"), true
		}
		return "", "", "", false
	default:
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if bytes.Equal(ja, jb) {
			return "", "", "", false
		}
	}
	return path, show(a, true), show(b, true), true
}

func show(v any, present bool) string {
	if !present {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	return clip(string(b), 300)
}

// sameArgs compares two JSON argument strings by value.
func sameArgs(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	_, _, _, d := firstDiff("$", x, y)
	return !d
}
