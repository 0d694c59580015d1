package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Limits of session_search.
const (
	sessionSearchDefault = 3
	sessionSearchMax     = 10
	sessionSnippetCap    = 600
)

// SessionHit is one match of a search over past sessions.
type SessionHit struct {
	// SessionID is the session the match is in.
	SessionID string
	// Title is the session's title.
	Title string
	// Role is the role of the matching message (user, assistant, tool).
	Role string
	// Snippet is the matching text with some context.
	Snippet string
	// When is when the matching message was written.
	When time.Time
}

// SessionSearcher searches the messages of past sessions. The store
// implements it; session_search uses it through Env.Sessions.
type SessionSearcher interface {
	// SearchSessions returns at most limit hits for query, best first,
	// within the session sessionID only when it is not empty.
	SearchSessions(ctx context.Context, query string, limit int, sessionID string) ([]SessionHit, error)
}

// SessionSearchTool is the session_search tool: it searches the messages of
// past sessions.
type SessionSearchTool struct{}

// Name implements Tool.
func (SessionSearchTool) Name() string { return "session_search" }

// Description implements Tool.
func (SessionSearchTool) Description() string {
	return "Search the messages of past sessions (this machine's conversation history) for something discussed or decided before: " +
		"a fix, a command, a preference the user stated, where work stopped. `query` holds the words to find; " +
		"`limit` is the number of matches (default 3, max 10); `session_id` restricts the search to one session. " +
		"Returns for each match the session id and title, the role of the message, its date and a snippet. Read-only."
}

// Schema implements Tool.
func (SessionSearchTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Words to search for."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3, "description": "Number of matches to return."},
    "session_id": {"type": "string", "description": "Search only this session (id or unique prefix)."}
  },
  "required": ["query"],
  "additionalProperties": false
}`)
}

type sessionSearchArgs struct {
	Query     string   `json:"query"`
	Limit     *flexInt `json:"limit"`
	SessionID string   `json:"session_id"`
}

// Run implements Tool.
func (SessionSearchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a sessionSearchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("session_search: %v", err)
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return Errorf("session_search: argument \"query\" is required")
	}
	limit := sessionSearchDefault
	if a.Limit != nil {
		limit = int(*a.Limit)
	}
	if limit < 1 {
		return Errorf("session_search: limit must be >= 1, got %d", limit)
	}
	limit = min(limit, sessionSearchMax)
	if env == nil || env.Sessions == nil {
		return Errorf("session_search: session search is not available in this session (no session store); rely on the current conversation")
	}
	hits, err := env.Sessions.SearchSessions(ctx, q, limit, strings.TrimSpace(a.SessionID))
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("session_search: cancelled")
		}
		return Errorf("session_search: %v", err)
	}
	if len(hits) == 0 {
		where := "past sessions"
		if a.SessionID != "" {
			where = "session " + a.SessionID
		}
		return Result{Output: fmt.Sprintf("No matches for %q in %s. Try fewer or other words.", q, where)}
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	var b strings.Builder
	noun := "matches"
	if len(hits) == 1 {
		noun = "match"
	}
	fmt.Fprintf(&b, "%d %s for %q:\n", len(hits), noun, q)
	for i, h := range hits {
		title := h.Title
		if title == "" {
			title = "(untitled)"
		}
		when := ""
		if !h.When.IsZero() {
			when = " · " + h.When.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(&b, "\n%d. session %s · %s · %s%s\n%s\n", i+1, h.SessionID, clip(title, 100), h.Role, when,
			clip(strings.TrimSpace(h.Snippet), sessionSnippetCap))
	}
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}
}
