package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// event is one streamed event, decoded with only the fields this transport
// reads. Which fields are set depends on Type.
type event struct {
	Type         string          `json:"type"`
	OutputIndex  int             `json:"output_index"`
	ItemID       string          `json:"item_id"`
	SummaryIndex int             `json:"summary_index"`
	Delta        string          `json:"delta"`
	Arguments    string          `json:"arguments"`
	Item         json.RawMessage `json:"item"`
	Response     *wireResponse   `json:"response"`
	// The fields of an "error" event: flat (SDK type) or nested in Error.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   *wireError      `json:"error"`
}

// wireResponse is the response object of response.created,
// response.completed, response.incomplete and response.failed, or of a
// complete (non-streamed) answer.
type wireResponse struct {
	ID                string            `json:"id"`
	Model             string            `json:"model"`
	Status            string            `json:"status"`
	Output            []json.RawMessage `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *wireError `json:"error"`
	Usage *wireUsage `json:"usage"`
}

// wireItem is an output item: a message, a function_call or a reasoning
// item.
type wireItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// wireUsage is the usage object of a finished response.
type wireUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *wireUsage) cached() int {
	if u == nil || u.InputTokensDetails == nil {
		return 0
	}
	return u.InputTokensDetails.CachedTokens
}

// wireError is an error object: {"type","code","message","param"}; code
// may be a string, a number or null.
type wireError struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// errorFields is what can be read from an error object.
type errorFields struct {
	Message, Type, Code string
}

func (e *wireError) fields() errorFields {
	return errorFields{Message: e.Message, Type: e.Type, Code: codeString(e.Code)}
}

// parseErrorBody reads an error body: {"error":{…}} (OpenAI and compatible
// servers), {"error":"msg"}, or a JSON array of those (Gemini). ok is false
// when the body is none of these.
func parseErrorBody(body []byte) (f errorFields, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return f, false
		}
		body = arr[0]
	}
	var top struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &top) != nil {
		return f, false
	}
	raw := bytes.TrimSpace(top.Error)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		var e wireError
		if json.Unmarshal(raw, &e) != nil {
			return f, false
		}
		return e.fields(), true
	case len(raw) > 0 && raw[0] == '"':
		return f, json.Unmarshal(raw, &f.Message) == nil
	}
	return f, false
}

// codeString stringifies an error code that may be a string, a number or
// null.
func codeString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	if n, err := strconv.ParseFloat(string(raw), 64); err == nil && n == float64(int64(n)) {
		return strconv.FormatInt(int64(n), 10)
	}
	return string(raw)
}

// replay is the ReasoningReplay this transport writes: the reasoning items
// of one response, verbatim as the server sent them (summary and
// encrypted_content included).
type replay struct {
	Format string            `json:"format"`
	Items  []json.RawMessage `json:"items"`
}

// parseReplay decodes a ReasoningReplay written by this transport; ok is
// false for empty data and for another transport's format.
func parseReplay(raw json.RawMessage) (replay, bool) {
	var r replay
	if len(raw) == 0 || json.Unmarshal(raw, &r) != nil || r.Format != ReplayFormat {
		return r, false
	}
	return r, true
}
