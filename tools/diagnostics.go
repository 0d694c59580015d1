package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// diagnosticsMax caps the diagnostics the diagnostics tool lists.
const diagnosticsMax = 200

// DiagnosticsTool is the read-only diagnostics tool: what the language
// servers report now about one file, or about every file they have open.
type DiagnosticsTool struct{}

// Name implements Tool.
func (DiagnosticsTool) Name() string { return "diagnostics" }

// Description implements Tool.
func (DiagnosticsTool) Description() string {
	return "List the language-server diagnostics (errors first, then warnings) known now for a file, or for every file the servers have open when path is omitted. " +
		"write_file and patch already report the diagnostics of what they wrote; use this to re-check a file after other changes or to see the state of all edited files."
}

// Schema implements Tool.
func (DiagnosticsTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to check (relative to the working directory); omit for all open files."}
  },
  "additionalProperties": false
}`)
}

type diagnosticsArgs struct {
	Path string `json:"path"`
}

// Run implements Tool.
func (DiagnosticsTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a diagnosticsArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("diagnostics: %v", err)
	}
	if env == nil || env.Edits == nil {
		return Errorf("diagnostics: no language servers in this session")
	}
	var res Result
	if p := strings.TrimSpace(a.Path); p != "" {
		abs, err := resolveArgPath(env, p)
		if err != nil {
			return Errorf("diagnostics: %v", err)
		}
		// Send the file as it is on disk and wait for its diagnostics.
		r := env.Edits.Check(ctx, abs)
		res.Diagnostics = r.Diagnostics
		res.Output = r.Text()
		if res.Output == "" {
			res.Output = fmt.Sprintf("No language server checks %s.", p)
		}
		return res
	}
	ds := env.Edits.Current("")
	if len(ds) == 0 {
		return Result{Output: "No diagnostics in the files the language servers have open."}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d diagnostics:", len(ds))
	for i, d := range ds {
		if i == diagnosticsMax {
			fmt.Fprintf(&b, "\n... and %d more", len(ds)-i)
			break
		}
		b.WriteString("\n" + d.String())
	}
	res.Output, res.Diagnostics = b.String(), ds[:min(len(ds), diagnosticsMax)]
	return res
}
