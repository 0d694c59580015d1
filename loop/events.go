package loop

import (
	"encoding/json"
	"time"

	"talaria/providers"
	"talaria/tools/lsp"
)

// Event is one thing that happened during a session, in the order it
// happened. Every event marshals to one JSON Lines object carrying at least
// type, session_id and ts; the headless writer and the UI consume the same
// values.
type Event interface {
	// Meta returns the common header, so the emitter can stamp it.
	Meta() *Header
}

// Header is the part every event carries.
type Header struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	TS        Timestamp `json:"ts"`
	// Turn is the turn the event belongs to (0 before the first turn); the
	// UI uses it to drop events of a turn it no longer shows.
	Turn int `json:"turn,omitempty"`
}

// Meta implements Event.
func (h *Header) Meta() *Header { return h }

// Timestamp marshals as RFC 3339 with microseconds, always with fractions.
type Timestamp time.Time

// MarshalJSON implements json.Marshaler.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000000Z07:00") + `"`), nil
}

// Time returns the timestamp as a time.Time.
func (t Timestamp) Time() time.Time { return time.Time(t) }

// Sink receives events. It is called from the turn goroutine (and from tool
// workers for tool events) and must not block for long.
type Sink func(Event)

// Event type names, as written in the "type" field.
const (
	TypeSessionStarted    = "session.started"
	TypeTurnStarted       = "turn.started"
	TypeIterationStarted  = "iteration.started"
	TypeMessageDelta      = "message.delta"
	TypeReasoningDelta    = "reasoning.delta"
	TypeMessageCompleted  = "message.completed"
	TypeToolsPlanned      = "tools.planned"
	TypeToolStarted       = "tool.started"
	TypeToolCompleted     = "tool.completed"
	TypeRetryScheduled    = "retry.scheduled"
	TypeCredentialRotated = "credential.rotated"
	TypeFallbackActivated = "fallback.activated"
	TypeGuardrail         = "guardrail"
	TypeSteerQueued       = "steer.queued"
	TypeSteerDelivered    = "steer.delivered"
	TypeSteerRefused      = "steer.refused"
	TypeBudgetRefunded    = "budget.refunded"
	TypeCompression       = "compression"
	TypeTurnFinished      = "turn.finished"
	TypeToolOutput        = "tool.output"
	TypeCheckpointCreated = "checkpoint.created"
)

// SessionStarted is emitted once when a session is opened for a run.
type SessionStarted struct {
	Header
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Cwd      string `json:"cwd"`
	// Resumed is true when the session existed before.
	Resumed bool `json:"resumed"`
}

// TurnStarted is emitted at the start of each turn.
type TurnStarted struct {
	Header
	Input string `json:"input"`
}

// IterationStarted is emitted before each model call of a turn.
type IterationStarted struct {
	Header
	Iteration  int `json:"iteration"`
	BudgetUsed int `json:"budget_used"`
	BudgetMax  int `json:"budget_max"`
}

// MessageDelta is a fragment of streamed answer text.
type MessageDelta struct {
	Header
	Text string `json:"text"`
}

// ReasoningDelta is a fragment of streamed reasoning text.
type ReasoningDelta struct {
	Header
	Text string `json:"text"`
}

// ToolCallInfo names one tool call in events.
type ToolCallInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MessageCompleted is emitted when a model response is complete.
type MessageCompleted struct {
	Header
	Content      string          `json:"content"`
	Reasoning    string          `json:"reasoning,omitempty"`
	ToolCalls    []ToolCallInfo  `json:"tool_calls"`
	FinishReason string          `json:"finish_reason"`
	Usage        providers.Usage `json:"usage"`
}

// PlannedSegment is one segment of a tool batch plan.
type PlannedSegment struct {
	Mode  string         `json:"mode"`
	Calls []ToolCallInfo `json:"calls"`
}

// ToolsPlanned is emitted with the execution plan of a tool batch.
type ToolsPlanned struct {
	Header
	Segments []PlannedSegment `json:"segments"`
}

// ToolStarted is emitted when a tool call starts running.
type ToolStarted struct {
	Header
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Segment   int    `json:"segment"`
	// ParentID is the execute_code call this call was made from ("" for
	// a call of the model).
	ParentID string `json:"parent_id,omitempty"`
}

// ToolCompleted is emitted when a tool call has a result.
type ToolCompleted struct {
	Header
	ID         string `json:"id"`
	Name       string `json:"name"`
	OK         bool   `json:"ok"`
	Cancelled  bool   `json:"cancelled"`
	DurationMS int64  `json:"duration_ms"`
	Output     string `json:"output"`
	Segment    int    `json:"segment"`
	// Diff is the unified diff write_file and patch applied (empty for
	// other tools).
	Diff string `json:"diff,omitempty"`
	// Denied marks a call the approval refused (ok is false): it never ran.
	Denied bool `json:"denied,omitempty"`
	// ParentID is the execute_code call this call was made from.
	ParentID string `json:"parent_id,omitempty"`
	// Diagnostics are what the language servers reported about the files
	// write_file or patch changed (also in Output), errors first.
	Diagnostics []lsp.Diagnostic `json:"diagnostics,omitempty"`
}

// ToolOutput is output of a running tool as it appears, coalesced to about
// ten events a second per call; ToolCompleted.Output still has the whole.
type ToolOutput struct {
	Header
	ID   string `json:"id"`
	Text string `json:"text"`
	// ParentID is the execute_code call this call was made from.
	ParentID string `json:"parent_id,omitempty"`
}

// CheckpointCreated is emitted after the working tree was recorded, before a
// tool batch that may change files runs.
type CheckpointCreated struct {
	Header
	Iteration  int    `json:"iteration"`
	Checkpoint string `json:"checkpoint"`
}

// RetryScheduled is emitted before a backoff sleep.
type RetryScheduled struct {
	Header
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms"`
	Reason      string `json:"reason"`
	Status      int    `json:"status"`
	Message     string `json:"message,omitempty"`
}

// CredentialRotated is emitted when the credential pool moves to another key.
type CredentialRotated struct {
	Header
	Provider string `json:"provider"`
	Reason   string `json:"reason"`
}

// Backend names a provider and model.
type Backend struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// FallbackActivated is emitted when the turn switches to a fallback provider.
type FallbackActivated struct {
	Header
	From   Backend `json:"from"`
	To     Backend `json:"to"`
	Reason string  `json:"reason"`
}

// Guardrail is emitted when the tool-loop guardrail warns, blocks or halts.
type Guardrail struct {
	Header
	// ID is the tool_call_id of the call the decision is about (its
	// result carries the warning); "" when it is about no single call.
	ID      string `json:"id,omitempty"`
	Action  string `json:"action"`
	Code    string `json:"code"`
	Tool    string `json:"tool"`
	Count   int    `json:"count"`
	Message string `json:"message"`
}

// SteerQueued is emitted when a steer is accepted.
type SteerQueued struct {
	Header
	Text string `json:"text"`
	// ID names this steer (1, 2, … per session); steer.delivered lists it.
	ID int `json:"id"`
}

// SteerDelivered is emitted when pending steer text is injected.
type SteerDelivered struct {
	Header
	Text      string `json:"text"`
	Iteration int    `json:"iteration"`
	// IDs are the steers delivered together (Text joins theirs).
	IDs []int `json:"ids"`
}

// SteerRefused is emitted when a steer is not queued because the pending
// steer text would exceed MaxPromptBytes (nothing of it is kept).
type SteerRefused struct {
	Header
	// Bytes is the refused steer's length; PendingBytes that of the steer
	// text already waiting; LimitBytes the cap.
	Bytes        int    `json:"bytes"`
	PendingBytes int    `json:"pending_bytes"`
	LimitBytes   int    `json:"limit_bytes"`
	Message      string `json:"message"`
}

// BudgetRefunded is emitted when an iteration is given back.
type BudgetRefunded struct {
	Header
	Reason string `json:"reason"`
}

// Compression is emitted after a context compression pass.
type Compression struct {
	Header
	Pass         int `json:"pass"`
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
}

// TurnFinished is emitted once at the end of every turn, on every path.
type TurnFinished struct {
	Header
	ExitReason    Exit            `json:"exit_reason"`
	Completed     bool            `json:"completed"`
	FinalResponse string          `json:"final_response"`
	APICalls      int             `json:"api_calls"`
	Usage         providers.Usage `json:"usage"`
	PendingSteer  string          `json:"pending_steer"`
	CleanupErrors []string        `json:"cleanup_errors"`
	Explanation   string          `json:"explanation"`
	// StructuredOutput is the final answer as JSON valid against
	// --output-schema; absent without one.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
}

// TypeHookCompleted is hook.completed's type name.
const TypeHookCompleted = "hook.completed"

// HookCompleted is emitted once for every hook command that ran (or could
// not start), after it ended: the UI shows a blocking or failing hook on
// the card of the call it touched (ToolCallID), or as a notice.
type HookCompleted struct {
	Header
	// Event is the hook event (PreToolUse, Stop, ...).
	Event string `json:"event"`
	// Command is the hook's command as configured.
	Command string `json:"command"`
	// ExitCode is its exit status; -1 when it timed out, was cancelled or
	// did not start.
	ExitCode   int   `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	// Decision is block, deny, ask, allow, stop, timeout, error, canceled,
	// or "" (it let things go on).
	Decision string `json:"decision"`
	// Failed marks a non-blocking failure (timeout, crash, an exit other
	// than 0 and 2): the turn went on; the UI shows it as failed.
	Failed bool `json:"failed,omitempty"`
	// ToolCallID is the call a tool event's hook ran for.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	// Message is what the hook said to the user: its reason for a block,
	// stderr for a failure (capped).
	Message string `json:"message,omitempty"`
}

// NewHookCompleted returns a hook.completed event (Emit stamps it).
func NewHookCompleted() *HookCompleted {
	return &HookCompleted{Header: Header{Type: TypeHookCompleted}}
}
