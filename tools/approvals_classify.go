package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// verdict is how the approver sees one call: the request it would put to
// the user, the call's class, its session allow-list key and, for
// classInvalid, the error result the tool would give.
type verdict struct {
	req     ApprovalRequest
	class   approvalClass
	key     string
	invalid Result
	// cmd is terminal's command.
	cmd string
}

// ChangesNoFiles reports the built-in tools that change no files, whatever
// their arguments: the approver lets them run in every mode, and a batch
// of only these (and read-only MCP tools) needs no checkpoint.
func ChangesNoFiles(name string) bool {
	switch name {
	case "read_file", "search_files", "session_search", "todo", "clarify",
		"list_mcp_resources", "read_mcp_resource", "diagnostics":
		return true
	}
	return false
}

// classify decodes the call's arguments exactly as the tool will (through
// decodeArgs into the tool's own argument struct) and builds its verdict.
// Arguments the tool would refuse make classInvalid with the tool's own
// error, so nothing the approver did not check can run. Edits are keyed by
// tool and "cwd"; an edit reaching outside the working directory, or one
// whose paths cannot be determined, is classExec with NoSessionScope set.
func (a *Approver) classify(toolName, args string) verdict {
	v := verdict{req: ApprovalRequest{Tool: toolName, Args: args, Summary: "call " + toolName}, class: classExec, key: toolName}
	raw := json.RawMessage(args)
	invalid := func(err error) verdict {
		v.class, v.invalid = classInvalid, Errorf("%s: %v", toolName, err)
		return v
	}
	if ChangesNoFiles(toolName) || toolName == "delegate_task" {
		// delegate_task's children call their tools through this same
		// approver.
		v.class = classReadOnly
		return v
	}
	switch toolName {
	case "web_fetch": // asked for per domain; read-only mode allows it
		host, err := WebFetchDomain(raw)
		if err != nil {
			return invalid(err)
		}
		v.class, v.key = classNetwork, "web_fetch domain:"+host
		v.req.Summary = "Fetch: " + clip(strings.TrimSpace(webFetchURL(raw)), 300) + " (domain " + host + ")"
		return v
	case "terminal":
		var ta terminalArgs
		if err := decodeArgs(raw, &ta); err != nil {
			return invalid(err)
		}
		cmd := strings.TrimSpace(ta.Command)
		if cmd == "" {
			return invalid(fmt.Errorf("argument \"command\" is required"))
		}
		return a.commandVerdict(v, cmd, a.commandDir(ta.Workdir), bool(ta.Background))
	case "process":
		var pa processArgs
		if err := decodeArgs(raw, &pa); err != nil {
			return invalid(err)
		}
		if pa.action() != "kill" {
			v.class = classReadOnly
			return v
		}
		v.req.Summary = "Kill background process " + strings.TrimSpace(pa.ID)
		v.key = "process kill"
		return v
	case "execute_code": // asked like a command whose effect cannot be judged
		var ea executeCodeArgs
		if err := decodeArgs(raw, &ea); err != nil {
			return invalid(err)
		}
		v.req.Summary = execSummary(ea.Code)
		return v
	case "write_file":
		var wa writeFileArgs
		if err := decodeArgs(raw, &wa); err != nil {
			return invalid(err)
		}
		paths, err := wa.writePaths()
		if err != nil {
			return invalid(err)
		}
		v.req.Summary = "Write: " + strings.TrimSpace(wa.Path)
		return a.editVerdict(v, paths)
	case "patch":
		var pa patchArgs
		if err := decodeArgs(raw, &pa); err != nil {
			return invalid(err)
		}
		paths, err := pa.writePaths()
		if err != nil {
			return invalid(err)
		}
		v.req.Summary = "Edit: " + strings.Join(paths, ", ")
		return a.editVerdict(v, paths)
	}
	if a.Tools != nil {
		t, ok := a.Tools.Get(toolName)
		if !ok {
			v.class = classReadOnly // the call fails anyway
			return v
		}
		if ro, ok := t.(interface{ ReadOnly() bool }); ok && ro.ReadOnly() {
			v.class = classClaimedReadOnly
			return v
		}
	}
	if len(args) > 2 {
		v.req.Summary = fmt.Sprintf("call %s %s", toolName, clip(args, 300))
	}
	return v
}

// commandVerdict classifies the shell command cmd of terminal, run in
// the directory dir ("" when unknown). A destructive command (a write
// that creates a file in dir is not one), or one that does not parse, is
// never allowed for the session, so the allow-list
// holds only exact, parsed, non-empty commands. A known-safe command
// (KnownSafeCommand in the sandbox, the stricter KnownSafeUnsandboxed
// outside it) is classSandboxed: it runs without asking in the ask and
// auto-edit modes; in the sandbox any other says why in the summary.
func (a *Approver) commandVerdict(v verdict, cmd, dir string, background bool) verdict {
	v.req.Summary = "Run: " + clip(cmd, 300)
	if background {
		v.req.Summary = "Run in the background: " + clip(cmd, 300)
	}
	if ok, why := destructiveIn(cmd, dir); ok {
		v.req.Destructive, v.req.NoSessionScope = true, true
		v.req.Summary += " [destructive: " + why + "]"
	}
	if _, err := parseShell(cmd); err != nil {
		v.req.NoSessionScope = true
	}
	judge := KnownSafeUnsandboxed
	if a.Sandboxed {
		judge = KnownSafeCommand
	}
	if safe, why := judge(cmd, dir); safe && !v.req.Destructive {
		v.class = classSandboxed
	} else if !v.req.Destructive && a.Sandboxed {
		v.req.Summary += " [not known safe: " + clip(why, 200) + "]"
	}
	v.key, v.cmd = "terminal: "+cmd, cmd
	return v
}

// commandDir is the directory a terminal call with the workdir argument
// runs in, as the tool resolves it; "" when it cannot be known.
func (a *Approver) commandDir(workdir string) string {
	base := a.Cwd
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return ""
		}
		base = wd
	}
	if strings.TrimSpace(workdir) == "" {
		return base
	}
	d, err := ResolvePath(base, workdir)
	if err != nil {
		return ""
	}
	return d
}

// editVerdict classifies a write of paths: classEdit with the key
// "TOOL:cwd" when every path lies below a.Cwd once symlinks are resolved
// and none is protected, else classExec with NoSessionScope set, so that
// auto-edit asks and no session approval covers them. No path at all (a
// call whose target cannot be determined) is treated as outside.
func (a *Approver) editVerdict(v verdict, paths []string) verdict {
	v.class, v.key = classEdit, v.req.Tool+":cwd"
	if len(paths) == 0 {
		v.class, v.key, v.req.NoSessionScope = classExec, v.req.Tool+":outside", true
		return v
	}
	base := a.Cwd
	for _, p := range paths {
		abs, err := ResolvePath(base, p)
		if err != nil {
			v.class, v.key, v.req.NoSessionScope = classExec, v.req.Tool+":outside", true
			continue
		}
		v.req.Paths = append(v.req.Paths, abs)
		if why := a.protectedWhy(abs); why != "" {
			if !v.req.Protected {
				v.req.Summary += " [protected: " + why + "]"
			}
			v.req.Protected, v.req.NoSessionScope = true, true
			v.class, v.key = classExec, v.req.Tool+":protected"
		}
		if !resolvesWithin(base, p) && v.class == classEdit {
			v.class, v.key, v.req.NoSessionScope = classExec, v.req.Tool+":outside", true
		}
	}
	return v
}
