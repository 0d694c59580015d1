package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeSearcher struct {
	hits  []SessionHit
	err   error
	query string
	limit int
	sid   string
}

func (f *fakeSearcher) SearchSessions(_ context.Context, q string, limit int, sid string) ([]SessionHit, error) {
	f.query, f.limit, f.sid = q, limit, sid
	if len(f.hits) > limit {
		return f.hits[:limit], f.err
	}
	return f.hits, f.err
}

func TestSessionSearch(t *testing.T) {
	ctx := context.Background()
	mustErr(t, runWith(t, ctx, SessionSearchTool{}, &Env{}, map[string]any{"query": "x"}), "session search is not available")
	fs := &fakeSearcher{}
	env := &Env{Sessions: fs}
	call := func(args map[string]any) Result { return runWith(t, ctx, SessionSearchTool{}, env, args) }
	out := mustOK(t, call(map[string]any{"query": "bbolt timeout"}))
	if !strings.Contains(out, "No matches") || fs.limit != 3 || fs.query != "bbolt timeout" || fs.sid != "" {
		t.Errorf("no hits: %q limit %d", out, fs.limit)
	}
	fs.hits = []SessionHit{
		{SessionID: "s1", Title: "Fix the store", Role: "assistant", Snippet: "open bbolt with a timeout"},
		{SessionID: "s2", Role: "user", Snippet: strings.Repeat("long ", 500)},
	}
	out = mustOK(t, call(map[string]any{"query": "bbolt", "limit": 50, "session_id": "s1"}))
	if fs.limit != 10 || fs.sid != "s1" {
		t.Errorf("limit %d sid %q", fs.limit, fs.sid)
	}
	for _, w := range []string{"2 matches for \"bbolt\"", "1. session s1 · Fix the store · assistant", "open bbolt with a timeout", "2. session s2 · (untitled) · user"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if len(out) > 2000 {
		t.Errorf("snippet not capped: %d bytes", len(out))
	}
	mustErr(t, call(map[string]any{"query": " "}), "required")
	mustErr(t, call(map[string]any{"query": "x", "limit": 0}), "limit")
	fs.err = errors.New("store closed")
	mustErr(t, call(map[string]any{"query": "x"}), "store closed")
}
