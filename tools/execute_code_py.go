package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// execExcluded are the tools a script cannot call: they need the model or
// the user (delegate_task, clarify) or would nest scripts (execute_code).
var execExcluded = map[string]bool{"delegate_task": true, "clarify": true, "execute_code": true}

// ExecutableFromScript reports whether a script may call the tool name.
func ExecutableFromScript(name string) bool { return !execExcluded[name] }

// pyIdent is a Python identifier made only of ASCII.
var pyIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pyKeywords are names a Python function or parameter cannot have.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
	"match": true, "case": true, "type": true, "_": true,
}

// execPrelude is the start of the generated talaria_tools module. The boot
// code sets _rf and _wf, the two ends of the private channel, before it
// runs the module.
const execPrelude = `"""Tools of the talaria session, callable from an execute_code script.

Each function makes one tool call: keyword arguments are the tool's JSON
arguments, the return value is the tool's result text, and a failed call
raises ToolError with the tool's error text. Calls run one at a time, each
approved and checked exactly like a direct call.
"""
import json as _json

class ToolError(Exception):
    """A tool call failed; str(error) is the tool's explanation."""

def _call(_name, _args):
    _args = {k: v for k, v in _args.items() if v is not None}
    _line = _json.dumps({"tool": _name, "args": _args}, ensure_ascii=False) + "\n"
    _data = _line.encode("utf-8", "surrogatepass")
    if len(_data) > %d:
        raise ToolError("the arguments of this %%s call are over the %d-byte limit" %% _name)
    _wf.write(_data)
    _wf.flush()
    _reply = _rf.readline(%d)
    if not _reply:
        raise SystemExit("talaria closed the tool channel (the script was stopped)")
    _r = _json.loads(_reply)
    if _r.get("ok"):
        return _r.get("result", "")
    raise ToolError(_r.get("error", "the tool call failed"))

`

// execBoot is the program python3 runs (-c). fd 0 is the private channel:
// it moves to a private, non-inheritable descriptor and stdin becomes
// /dev/null, so neither the script's input() nor its children see the
// channel. It reads the boot line, builds the talaria_tools module and runs
// the script as __main__.
const execBoot = `import os, sys, json, types
if sys.version_info < (3, 8):
    sys.exit("execute_code needs Python 3.8 or later, found " + sys.version.split()[0])
_fd = os.dup(0)
_n = os.open(os.devnull, os.O_RDONLY)
os.dup2(_n, 0)
os.close(_n)
_rf = open(_fd, "rb", buffering=1 << 16)
_wf = open(os.dup(_fd), "wb", buffering=0)
_boot = json.loads(_rf.readline(%d))
_m = types.ModuleType("talaria_tools")
_m._rf, _m._wf = _rf, _wf
exec(compile(_boot["module"], "talaria_tools.py", "exec"), _m.__dict__)
sys.modules["talaria_tools"] = _m
_code = compile(_boot["code"], "<execute_code>", "exec")
del _boot, _fd, _n, _rf, _wf, _m, os, json, types
_g = {"__name__": "__main__", "__builtins__": __builtins__}
exec(_code, _g)
`

// bootProgram returns execBoot with its limits filled in.
func bootProgram() string {
	return fmt.Sprintf(execBoot, execCodeCap*3+(4<<20))
}

// pyLiteral writes s as a Python string literal (a JSON string is one).
func pyLiteral(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// execModule generates the talaria_tools module for the tools ts: one
// function per tool a script may call, named like the tool (tools whose
// names are not Python identifiers get one with the other characters
// replaced by _), with the schema's properties as keyword parameters and
// the description as docstring.
func execModule(ts []Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, execPrelude, execRequestCap, execRequestCap, execRequestCap+(1<<20))
	names := []string{"ToolError"}
	seen := map[string]bool{"ToolError": true}
	for _, t := range ts {
		if !ExecutableFromScript(t.Name()) {
			continue
		}
		fn := pyFuncName(t.Name())
		if fn == "" || seen[fn] {
			continue
		}
		seen[fn] = true
		names = append(names, fn)
		writePyFunc(&b, fn, t)
	}
	lits := make([]string, len(names))
	for i, n := range names {
		lits[i] = pyLiteral(n)
	}
	fmt.Fprintf(&b, "__all__ = [%s]\n", strings.Join(lits, ", "))
	return b.String()
}

// pyFuncName is the Python name of tool name, "" when none fits.
func pyFuncName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "tool_" + s
	}
	if !pyIdent.MatchString(s) || pyKeywords[s] || strings.HasPrefix(s, "_") {
		return ""
	}
	return s
}

// schemaParams reads a tool's top-level properties (sorted, required
// first) from its schema; ok is false when they cannot all be Python
// parameters.
func schemaParams(schema json.RawMessage) (required, optional []string, docs map[string]string, ok bool) {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, nil, nil, false
	}
	docs = map[string]string{}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	ok = true
	for name, p := range s.Properties {
		if !pyIdent.MatchString(name) || pyKeywords[name] || strings.HasPrefix(name, "_") {
			ok = false
		}
		d := strings.TrimSpace(p.Description)
		if t, isStr := p.Type.(string); isStr {
			d = strings.TrimSpace("(" + t + ") " + d)
		}
		docs[name] = d
		if req[name] {
			required = append(required, name)
		} else {
			optional = append(optional, name)
		}
	}
	sort.Strings(required)
	sort.Strings(optional)
	return required, optional, docs, ok
}

// writePyFunc writes the function fn that calls tool t.
func writePyFunc(b *strings.Builder, fn string, t Tool) {
	required, optional, docs, ok := schemaParams(t.Schema())
	doc := strings.TrimSpace(t.Description())
	if ok && len(docs) > 0 {
		doc += "\n\nArguments:"
		for _, p := range append(append([]string{}, required...), optional...) {
			mark := ""
			if !contains(required, p) {
				mark = ", optional"
			}
			doc += fmt.Sprintf("\n  %s%s: %s", p, mark, docs[p])
		}
	}
	if !ok {
		// Parameters Python cannot name: a dict of the JSON arguments.
		fmt.Fprintf(b, "def %s(_args=None, **kwargs):\n    %s\n    a = dict(_args or {})\n    a.update(kwargs)\n    return _call(%s, a)\n\n",
			fn, pyLiteral(doc), pyLiteral(t.Name()))
		return
	}
	params := make([]string, 0, len(required)+len(optional))
	items := make([]string, 0, cap(params))
	for _, p := range required {
		params = append(params, p)
		items = append(items, fmt.Sprintf("%s: %s", pyLiteral(p), p))
	}
	for _, p := range optional {
		params = append(params, p+"=None")
		items = append(items, fmt.Sprintf("%s: %s", pyLiteral(p), p))
	}
	fmt.Fprintf(b, "def %s(%s):\n    %s\n    return _call(%s, {%s})\n\n",
		fn, strings.Join(params, ", "), pyLiteral(doc), pyLiteral(t.Name()), strings.Join(items, ", "))
}

// contains reports whether xs holds x.
func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
