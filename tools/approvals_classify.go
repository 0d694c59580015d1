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
	// cmd is the shell command of a command call (Traits.Describe).
	cmd string
	// edits marks a call of a path-scoped writer (Traits.Writes).
	edits bool
}

// traits returns the traits of the tool called name: from Tools, else
// (an approver without a registry) from the built-in tools; false when
// neither has it.
func (a *Approver) traits(name string) (Traits, bool) {
	if a.Tools != nil {
		return a.Tools.Traits(name)
	}
	return BuiltinTraits(name)
}

// BuiltinTraits returns the traits of the built-in tool called name; false
// when there is none (the replay's stand-ins take theirs from it).
func BuiltinTraits(name string) (Traits, bool) {
	for _, t := range append(Builtins(), ExecuteCodeTool{}) {
		if t.Name() == name {
			return t.Traits(), true
		}
	}
	return Traits{}, false
}

// classify builds the verdict of a call from its tool's traits, decoding
// the arguments exactly as the tool will (Traits.Describe and
// Traits.Paths use the tool's own decoding). Arguments the tool would
// refuse make classInvalid with the tool's own error, so nothing the
// approver did not check can run. Edits are keyed by tool and "cwd"; an
// edit reaching outside the working directory, or one whose paths cannot
// be determined, is classExec with NoSessionScope set.
func (a *Approver) classify(toolName, args string) verdict {
	v := verdict{req: ApprovalRequest{Tool: toolName, Args: args, Summary: "call " + toolName}, class: classExec, key: toolName}
	raw := json.RawMessage(args)
	invalid := func(err error) verdict {
		v.class, v.invalid = classInvalid, Errorf("%s: %v", toolName, err)
		return v
	}
	tr, known := a.traits(toolName)
	if !known && a.Tools != nil {
		v.class = classReadOnly // the call fails anyway
		return v
	}
	if tr.Describe == nil && (tr.Internal || tr.ReadOnly && !tr.Claimed) {
		return verdict{req: v.req, class: classReadOnly, key: toolName}
	}
	if tr.Describe != nil {
		view, err := tr.Describe(raw)
		if err != nil {
			return invalid(err)
		}
		if view.Summary != "" {
			v.req.Summary = view.Summary
		}
		if view.Key != "" {
			v.key = view.Key
		}
		switch {
		case view.Free:
			v.class = classReadOnly
			return v
		case view.Command != "":
			return a.commandVerdict(v, view.Command, a.commandDir(view.Workdir), view.Background)
		case view.Domain != "": // asked for per domain; read-only mode allows it
			v.class, v.key = classNetwork, toolName+" domain:"+view.Domain
			return v
		}
	}
	if tr.Writes && tr.Paths != nil {
		paths, err := tr.Paths(raw)
		if err != nil {
			return invalid(err)
		}
		v.edits = true
		return a.editVerdict(v, paths)
	}
	if tr.ReadOnly && tr.Claimed {
		v.class = classClaimedReadOnly
		return v
	}
	if tr.Describe == nil && len(args) > 2 {
		v.req.Summary = fmt.Sprintf("call %s %s", toolName, clip(args, 300))
	}
	if tr.Destructive {
		v.req.Destructive, v.req.NoSessionScope = true, true
		v.req.Summary += " [destructive: by the tool's own account]"
	}
	return v
}

// commandVerdict classifies the shell command cmd of a call, run in
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
	v.key, v.cmd = v.req.Tool+": "+cmd, cmd
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
