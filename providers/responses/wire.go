package responses

import (
	"encoding/json"
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
