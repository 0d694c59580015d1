package app

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// runTotals sums what the turns of one headless run used (a run is the
// prompt's turn plus any queued ones).
type runTotals struct {
	usage    providers.Usage
	cost     float64
	apiCalls int
}

func (t *runTotals) add(r loop.Result) {
	t.usage.Add(r.Usage)
	t.cost += r.CostUSD
	t.apiCalls += r.APICalls
}

// finalAnswer is what a run answers: the validated JSON with
// --output-schema, else the final response.
func finalAnswer(res loop.Result) string {
	if len(res.StructuredOutput) > 0 {
		return string(res.StructuredOutput)
	}
	return res.FinalResponse
}

// headlessResult is --output-format json's one object.
type headlessResult struct {
	Type             string          `json:"type"`
	SessionID        string          `json:"session_id"`
	ExitReason       loop.Exit       `json:"exit_reason"`
	Completed        bool            `json:"completed"`
	Result           string          `json:"result"`
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	Usage            providers.Usage `json:"usage"`
	CostUSD          float64         `json:"cost_usd"`
	DurationMS       int64           `json:"duration_ms"`
	APICalls         int             `json:"api_calls"`
	Explanation      string          `json:"explanation,omitempty"`
}

// writeResult prints the run's result object, masked like every other
// output, on one line.
func writeResult(w io.Writer, s *Session, res loop.Result, sum runTotals, started time.Time) {
	r := headlessResult{Type: "result", SessionID: s.Record.ID, ExitReason: res.ExitReason, Completed: res.Completed,
		Result: s.mask.Mask(res.FinalResponse), Usage: sum.usage, CostUSD: sum.cost,
		DurationMS: time.Since(started).Milliseconds(), APICalls: sum.apiCalls, Explanation: s.mask.Mask(res.Explanation)}
	if len(res.StructuredOutput) > 0 {
		r.StructuredOutput = json.RawMessage(s.mask.Mask(string(res.StructuredOutput)))
		if !json.Valid(r.StructuredOutput) {
			r.StructuredOutput = res.StructuredOutput // masking must not break the JSON
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
	}
	_, _ = w.Write(append(b, '\n'))
}

// writeAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path: a reader sees the old file or
// the whole new one, never a part.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
