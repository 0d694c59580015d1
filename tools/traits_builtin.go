package tools

import (
	"encoding/json"
	"errors"
	"strings"
)

// The traits of the built-in tools (hermes.md §1.1 and §2.2, for the tools
// talaria has). A new tool declares its own next to its Run.

// Traits implements Tool: read_file reads the path it names.
func (ReadFileTool) Traits() Traits {
	return Traits{ReadOnly: true, Idempotent: true, Paths: readFilePaths,
		RecoveryHint: "Check the path first: list candidates with search_files (target \"files\") instead of guessing."}
}

// Traits implements Tool: search_files reads below the path it names.
func (SearchFilesTool) Traits() Traits {
	return Traits{ReadOnly: true, Idempotent: true, Paths: searchPaths,
		RecoveryHint: "Simplify the pattern, check that path exists, or switch target between \"content\" and \"files\"."}
}

// Traits implements Tool: write_file writes the path it names.
func (WriteFileTool) Traits() Traits {
	return Traits{Paths: writeFilePaths, Writes: true, ResetsProgress: true, Preview: previewWriteFile,
		Describe: func(raw json.RawMessage) (CallView, error) {
			var a writeFileArgs
			if err := decodeArgs(raw, &a); err != nil {
				return CallView{}, err
			}
			return CallView{Summary: "Write: " + strings.TrimSpace(a.Path)}, nil
		},
		RecoveryHint: "Check that the path is correct and its directory is writable, and that content is a plain string."}
}

// Traits implements Tool: patch writes every path its replace or V4A patch
// names.
func (PatchTool) Traits() Traits {
	return Traits{Paths: patchPaths, Writes: true, ResetsProgress: true, Preview: previewPatch,
		Describe: func(raw json.RawMessage) (CallView, error) {
			paths, err := patchPaths(raw)
			if err != nil {
				return CallView{}, err
			}
			return CallView{Summary: "Edit: " + strings.Join(paths, ", ")}, nil
		},
		RecoveryHint: "Re-read the file with read_file and copy old_string exactly, or rewrite the whole file with write_file."}
}

// Traits implements Tool: terminal runs a shell command, judged as one.
func (TerminalTool) Traits() Traits {
	return Traits{FailureTolerant: true, ResetsProgress: true,
		Describe: func(raw json.RawMessage) (CallView, error) {
			var a terminalArgs
			if err := decodeArgs(raw, &a); err != nil {
				return CallView{}, err
			}
			cmd := strings.TrimSpace(a.Command)
			if cmd == "" {
				return CallView{}, errors.New("argument \"command\" is required")
			}
			return CallView{Command: cmd, Workdir: a.Workdir, Background: bool(a.Background)}, nil
		},
		RecoveryHint: "Check where you are with `pwd && ls -la`, then try an absolute path, a simpler command, or a different tool."}
}

// Traits implements Tool: process lists, reads and waits freely; a kill
// is asked for.
func (ProcessTool) Traits() Traits {
	return Traits{FailureTolerant: true, ResetsProgress: true, Poller: true,
		Describe: func(raw json.RawMessage) (CallView, error) {
			var a processArgs
			if err := decodeArgs(raw, &a); err != nil {
				return CallView{}, err
			}
			if a.action() != "kill" {
				return CallView{Free: true}, nil
			}
			return CallView{Summary: "Kill background process " + strings.TrimSpace(a.ID), Key: "process kill"}, nil
		}}
}

// Traits implements Tool: clarify waits for the user, alone.
func (ClarifyTool) Traits() Traits { return Traits{Internal: true, Barrier: true} }

// Traits implements Tool: todo changes only the session's task list.
func (TodoTool) Traits() Traits {
	return Traits{Internal: true, ResetsProgress: true, Housekeeping: true}
}

// Traits implements Tool: session_search reads the store.
func (SessionSearchTool) Traits() Traits {
	return Traits{ReadOnly: true, ParallelSafe: true, Idempotent: true}
}

// Traits implements Tool: delegate_task's children ask for their own
// calls through the same approver; the call itself needs none.
func (DelegateTaskTool) Traits() Traits {
	return Traits{ResetsProgress: true, Spawns: delegateSpawns,
		Describe: func(json.RawMessage) (CallView, error) { return CallView{Free: true}, nil }}
}

// Traits implements Tool: web_fetch reads the network and changes nothing
// here; it is asked for per domain (the read-only mode allows it).
func (WebFetchTool) Traits() Traits {
	return Traits{ReadOnly: true, ParallelSafe: true, Idempotent: true, FailureTolerant: true,
		Describe: func(raw json.RawMessage) (CallView, error) {
			host, err := WebFetchDomain(raw)
			if err != nil {
				return CallView{}, err
			}
			u := strings.TrimSpace(webFetchURL(raw))
			return CallView{Domain: host, URL: u, Summary: "Fetch: " + clip(u, 300) + " (domain " + host + ")"}, nil
		}}
}

// Traits implements Tool: diagnostics asks the language servers.
func (DiagnosticsTool) Traits() Traits {
	return Traits{ReadOnly: true, ParallelSafe: true, Idempotent: true}
}

// Traits implements Tool: execute_code runs a script whose effect cannot
// be judged beforehand; its inner calls are judged one by one.
func (ExecuteCodeTool) Traits() Traits {
	return Traits{FailureTolerant: true, ResetsProgress: true,
		Describe: func(raw json.RawMessage) (CallView, error) {
			var a executeCodeArgs
			if err := decodeArgs(raw, &a); err != nil {
				return CallView{}, err
			}
			return CallView{Summary: execSummary(a.Code)}, nil
		}}
}

// readFilePaths is the path a read_file call reads.
func readFilePaths(raw json.RawMessage) ([]string, error) {
	var a readFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Path) == "" {
		return nil, errors.New("argument \"path\" is required")
	}
	return []string{a.Path}, nil
}

// searchPaths is the directory (or file) a search_files call searches:
// the working directory when none is given.
func searchPaths(raw json.RawMessage) ([]string, error) {
	var a searchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Path) == "" {
		return []string{"."}, nil
	}
	return []string{a.Path}, nil
}

// writeFilePaths is the path a write_file call writes.
func writeFilePaths(raw json.RawMessage) ([]string, error) {
	var a writeFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	return a.writePaths()
}

// patchPaths is every path a patch call writes, deletes or moves to.
func patchPaths(raw json.RawMessage) ([]string, error) {
	var a patchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	return a.writePaths()
}
