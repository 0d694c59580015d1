package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// The JSON-line protocol between talaria and an execute_code script. The
// script writes one request a line, {"tool": NAME, "args": {...}}, and reads
// one reply a line, {"ok": true, "result": TEXT} or {"ok": false, "error":
// TEXT}. Calls are strictly one at a time: the script waits for the reply
// before its next request. The first line talaria writes is the boot line,
// {"module": SOURCE, "code": SCRIPT}.
const (
	// execRequestCap caps one request line (the tool's arguments with a
	// file's content for write_file fit).
	execRequestCap = 8 << 20
	// execCodeCap caps the script itself.
	execCodeCap = 1 << 20
)

// execToolName is what a tool name in a request must look like.
var execToolName = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// execRequest is one decoded request of a script.
type execRequest struct {
	// Tool is the tool's name.
	Tool string
	// Args is the arguments object, as the script sent it.
	Args json.RawMessage
}

// parseExecRequest decodes one request line (without its newline). It
// refuses anything but an object with a well-formed "tool" string and an
// "args" object (absent or null means {}), with no other keys, within
// execRequestCap.
func parseExecRequest(line []byte) (execRequest, error) {
	if len(line) > execRequestCap {
		return execRequest{}, fmt.Errorf("request of %d bytes is over the %d-byte limit", len(line), execRequestCap)
	}
	line = bytes.TrimSpace(line)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return execRequest{}, fmt.Errorf("request is not a JSON object: %v", err)
	}
	if raw == nil {
		return execRequest{}, errors.New("request is null, not an object")
	}
	for k := range raw {
		if k != "tool" && k != "args" {
			return execRequest{}, fmt.Errorf("request has an unknown key %q", k)
		}
	}
	var req execRequest
	if err := json.Unmarshal(raw["tool"], &req.Tool); err != nil || raw["tool"] == nil {
		return execRequest{}, errors.New(`request needs "tool" as a string`)
	}
	if !execToolName.MatchString(req.Tool) {
		return execRequest{}, fmt.Errorf("request names no valid tool (%.60q)", req.Tool)
	}
	args := bytes.TrimSpace(raw["args"])
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return execRequest{}, errors.New(`request needs "args" as a JSON object of the tool's arguments`)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, args); err != nil {
		return execRequest{}, fmt.Errorf("request arguments: %v", err)
	}
	req.Args = json.RawMessage(compact.Bytes())
	return req, nil
}

// execReply is one reply line to a script.
type execReply struct {
	OK     bool   `json:"ok"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// encodeExecReply returns the reply line for a tool result, newline
// included.
func encodeExecReply(r Result) []byte {
	rep := execReply{OK: !r.IsError, Result: r.Output}
	if r.IsError {
		rep.Result, rep.Error = "", r.Output
		if rep.Error == "" {
			rep.Error = "the tool call failed"
		}
	}
	b, err := json.Marshal(rep)
	if err != nil { // strings always marshal; keep the protocol alive anyway
		b = []byte(`{"ok":false,"error":"talaria could not encode the result"}`)
	}
	return append(b, '\n')
}
