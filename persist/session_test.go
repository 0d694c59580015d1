package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"talaria/providers"
)

// tempStore opens a fresh store in a temporary directory.
func tempStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "home", "state.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustCreate creates a session or fails the test.
func mustCreate(t testing.TB, s *Store, sess *Session) *Session {
	t.Helper()
	if err := s.CreateSession(sess); err != nil {
		t.Fatal(err)
	}
	return sess
}

func sampleConversation() []providers.Message {
	user := providers.Message{Role: providers.RoleUser, Content: "  \n  Fix the failing build in ./cmd\nplease"}
	user.SetFlag("_steer", true)
	asst := providers.Message{
		Role:            providers.RoleAssistant,
		Content:         "Looking.",
		Reasoning:       "The build fails; read the file first.",
		ReasoningReplay: json.RawMessage(`{"signature":"abc=="}`),
		FinishReason:    providers.FinishToolCalls,
		ToolCalls: []providers.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: `{"path":"cmd/main.go"}`},
			{ID: "call_2", Name: "search_files", Arguments: `{"pattern":"<T>"}`, Extra: json.RawMessage(`{"thought_signature":"xyz"}`)},
		},
	}
	asst.SetFlag("_partial", true)
	return []providers.Message{
		user,
		asst,
		{Role: providers.RoleTool, ToolCallID: "call_1", ToolName: "read_file", Content: "1|package main", Timestamp: 42},
		{Role: providers.RoleTool, ToolCallID: "call_2", ToolName: "search_files", Content: "no matches"},
		{Role: providers.RoleAssistant, Content: "Done.", FinishReason: providers.FinishStop},
	}
}

func TestNewSessionID(t *testing.T) {
	now := time.Date(2026, 7, 4, 9, 5, 3, 0, time.UTC)
	id := NewSessionID(now)
	if !regexp.MustCompile(`^20260704_090503_[0-9a-f]{6}$`).MatchString(id) {
		t.Fatalf("id %q has the wrong form", id)
	}
	if a, b := NewSessionID(now), NewSessionID(now); a == id && b == id {
		t.Fatal("suffix is not random")
	}
}

func TestRoundTripThroughReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prompt := "You are talaria.\nModel: m\nProvider: p"
	sess := mustCreate(t, s, &Session{Cwd: "/src/x", Provider: "openai", Model: "gpt", SystemPrompt: &prompt})
	if !regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{6}$`).MatchString(sess.ID) || sess.CreatedAt.IsZero() || sess.UpdatedAt.IsZero() {
		t.Fatalf("CreateSession did not fill id/times: %+v", sess)
	}
	if sess.SystemPromptState != PromptPresent {
		t.Fatalf("state = %q", sess.SystemPromptState)
	}
	in := sampleConversation()
	if err := s.AppendMessages(sess.ID, in[:2]...); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(sess.ID, in[2:]...); err != nil {
		t.Fatal(err)
	}
	if in[0].Timestamp != 0 {
		t.Fatal("AppendMessages modified the caller's message")
	}

	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s2.Messages(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d messages, want %d", len(got), len(in))
	}
	for i := range in {
		want := in[i]
		want.Internal = nil
		if want.Timestamp == 0 {
			if got[i].Timestamp == 0 {
				t.Fatalf("message %d has no timestamp", i)
			}
			want.Timestamp = got[i].Timestamp
		}
		if got[i].Internal != nil {
			t.Fatalf("message %d kept internal flags: %v", i, got[i].Internal)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("message %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	if got[2].Timestamp != 42 {
		t.Fatalf("explicit timestamp lost: %d", got[2].Timestamp)
	}

	back, err := s2.GetSession(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.SystemPrompt == nil || *back.SystemPrompt != prompt || back.SystemPromptState != PromptPresent {
		t.Fatalf("system prompt lost: %v %q", back.SystemPrompt, back.SystemPromptState)
	}
	if back.Title != "Fix the failing build in ./cmd" {
		t.Fatalf("title = %q", back.Title)
	}
	if back.MessageCount != 5 || back.ToolCallCount != 2 {
		t.Fatalf("counts = %d msgs, %d tool calls", back.MessageCount, back.ToolCallCount)
	}
	if !back.CreatedAt.Equal(sess.CreatedAt) || back.UpdatedAt.Before(sess.UpdatedAt) {
		t.Fatalf("times: %v %v vs %v %v", back.CreatedAt, back.UpdatedAt, sess.CreatedAt, sess.UpdatedAt)
	}
}

func TestSystemPromptStates(t *testing.T) {
	s := tempStore(t)
	empty := ""
	cases := []struct {
		prompt  *string
		claimed string
		want    string
	}{
		{nil, "", PromptMissing},
		{nil, PromptNull, PromptNull},
		{&empty, "", PromptEmpty},
	}
	for _, c := range cases {
		sess := mustCreate(t, s, &Session{SystemPrompt: c.prompt, SystemPromptState: c.claimed})
		got, err := s.GetSession(sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.SystemPromptState != c.want || (c.prompt == nil) != (got.SystemPrompt == nil) {
			t.Fatalf("stored %v/%q: got %v/%q", c.prompt, c.claimed, got.SystemPrompt, got.SystemPromptState)
		}
	}
	// present → cleared → rebuilt
	sess := mustCreate(t, s, &Session{})
	p := "prompt"
	if err := s.UpdateSession(sess.ID, func(x *Session) { x.SystemPrompt = &p }); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateSession(sess.ID, func(x *Session) { x.SystemPrompt, x.SystemPromptState = nil, PromptNull }); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(sess.ID)
	if got.SystemPromptState != PromptNull || got.SystemPrompt != nil {
		t.Fatalf("cleared prompt: %v %q", got.SystemPrompt, got.SystemPromptState)
	}
	list, _ := s.ListSessions()
	for _, l := range list {
		if l.SystemPrompt != nil {
			t.Fatal("ListSessions loaded a prompt")
		}
	}
}

func TestResolveSession(t *testing.T) {
	s := tempStore(t)
	a := mustCreate(t, s, &Session{ID: "20260101_100000_aaaaaa", Title: "alpha"})
	mustCreate(t, s, &Session{ID: "20260101_100000_aabbbb", Title: "beta"})
	mustCreate(t, s, &Session{ID: "20260202_100000_cccccc", Title: "alpha"})
	time.Sleep(2 * time.Millisecond)
	if err := s.RenameSession(a.ID, "  alpha  "); err != nil { // touch: newest "alpha"
		t.Fatal(err)
	}

	for ref, want := range map[string]string{
		"20260101_100000_aaaaaa": a.ID,                     // exact
		"20260202":               "20260202_100000_cccccc", // unique prefix
		"20260101_100000_aab":    "20260101_100000_aabbbb",
		"beta":                   "20260101_100000_aabbbb", // title
		"alpha":                  a.ID,                     // title shared: most recently updated
		"cccccc":                 "20260202_100000_cccccc", // the random suffix the TUI shows
		"aab":                    "20260101_100000_aabbbb", // a unique prefix of it
	} {
		got, err := s.ResolveSession(ref)
		if err != nil {
			t.Fatalf("%q: %v", ref, err)
		}
		if got.ID != want {
			t.Fatalf("%q resolved to %s, want %s", ref, got.ID, want)
		}
	}
	_, err := s.ResolveSession("20260101")
	if err == nil || !strings.Contains(err.Error(), "ambiguous") ||
		!strings.Contains(err.Error(), "20260101_100000_aaaaaa") || !strings.Contains(err.Error(), "20260101_100000_aabbbb") {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	if _, err := s.ResolveSession("aa"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous suffix: %v", err)
	}
	for _, ref := range []string{"nope", "", "2027"} {
		if _, err := s.ResolveSession(ref); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%q: %v, want ErrNotFound", ref, err)
		}
	}
	if _, err := s.GetSession("nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("GetSession: %v", err)
	}
}

func TestLatestSessionAndList(t *testing.T) {
	s := tempStore(t)
	if _, err := s.LatestSession("/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store: %v", err)
	}
	a1 := mustCreate(t, s, &Session{Cwd: "/a"})
	time.Sleep(2 * time.Millisecond)
	a2 := mustCreate(t, s, &Session{Cwd: "/a/"})
	time.Sleep(2 * time.Millisecond)
	b := mustCreate(t, s, &Session{Cwd: "/b"})
	got, err := s.LatestSession("/a")
	if err != nil || got.ID != a2.ID {
		t.Fatalf("latest /a = %v, %v; want %s", got, err, a2.ID)
	}
	time.Sleep(2 * time.Millisecond)
	if err := s.AppendMessages(a1.ID, providers.Message{Role: providers.RoleUser, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LatestSession("/a"); got.ID != a1.ID {
		t.Fatalf("after append latest /a = %s, want %s", got.ID, a1.ID)
	}
	list, err := s.ListSessions()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	if want := []string{a1.ID, b.ID, a2.ID}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("list order %v, want %v", ids, want)
	}
	if err := s.DeleteSession(a1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Messages(a1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("messages of deleted session: %v", err)
	}
	if got, _ := s.LatestSession("/a"); got.ID != a2.ID {
		t.Fatalf("after delete latest /a = %s", got.ID)
	}
	if err := s.DeleteSession(a1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("double delete: %v", err)
	}
}

func TestCounters(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{})
	if err := s.AppendMessages(sess.ID, sampleConversation()...); err != nil {
		t.Fatal(err)
	}
	// Tool calls are counted on assistant messages only.
	odd := providers.Message{Role: providers.RoleUser, Content: "x", ToolCalls: []providers.ToolCall{{ID: "c"}}}
	if err := s.AppendMessages(sess.ID, odd); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(sess.ID, 2, providers.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 80, CacheWriteTokens: 5, ReasoningTokens: 7}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(sess.ID, 1, providers.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSession(sess.ID, "completed"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(sess.ID)
	want := [...]int{6, 2, 3, 101, 22, 83, 9, 7}
	have := [...]int{got.MessageCount, got.ToolCallCount, got.APICallCount, got.InputTokens, got.OutputTokens, got.CacheReadTokens, got.CacheWriteTokens, got.ReasoningTokens}
	if have != want {
		t.Fatalf("counters %v, want %v", have, want)
	}
	if got.EndedAt == nil || got.EndReason != "completed" {
		t.Fatalf("end not recorded: %v %q", got.EndedAt, got.EndReason)
	}
	if err := s.AppendMessages("missing", odd); !errors.Is(err, ErrNotFound) {
		t.Fatalf("append to missing session: %v", err)
	}
	if err := s.AddUsage("missing", 1, providers.Usage{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("usage on missing session: %v", err)
	}
}

func TestTitles(t *testing.T) {
	long := "ünïcödé " + strings.Repeat("word ", 30)
	cut := DeriveTitle(long)
	if n := utf8.RuneCountInString(cut); n > 60 || n < 40 || !strings.HasSuffix(cut, "…") ||
		!strings.HasPrefix(cut, "ünïcödé word word") || !strings.HasSuffix(cut, " word…") {
		t.Fatalf("long title %q (%d runes)", cut, utf8.RuneCountInString(cut))
	}
	exact := strings.Repeat("x", 60)
	for in, want := range map[string]string{
		"hello":                        "hello",
		"\n\n   first\tline  \nsecond": "first line",
		"   \n\t\n":                    "",
		"a\x1b[31mred\x00":             "a[31mred",
		exact:                          exact,
		exact + "y":                    strings.Repeat("x", 59) + "…",
	} {
		if got := DeriveTitle(in); got != want {
			t.Fatalf("DeriveTitle(%q) = %q, want %q", in, got, want)
		}
	}

	// Only the first user message with text names the session.
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{})
	if err := s.AppendMessages(sess.ID,
		providers.Message{Role: providers.RoleAssistant, Content: "not me"},
		providers.Message{Role: providers.RoleUser, Content: "  "},
		providers.Message{Role: providers.RoleUser, Content: "me\nnot this"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(sess.ID, providers.Message{Role: providers.RoleUser, Content: "later"}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(sess.ID)
	if got.Title != "me" {
		t.Fatalf("title = %q", got.Title)
	}
	// A title set by the user is kept.
	named := mustCreate(t, s, &Session{Title: "mine"})
	_ = s.AppendMessages(named.ID, providers.Message{Role: providers.RoleUser, Content: "other"})
	if got, _ := s.GetSession(named.ID); got.Title != "mine" {
		t.Fatalf("title overwritten: %q", got.Title)
	}
	if err := s.RenameSession(named.ID, " new\n name "); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetSession(named.ID); got.Title != "new name" {
		t.Fatalf("renamed title: %q", got.Title)
	}
	if err := s.RenameSession(named.ID, "  "); err == nil {
		t.Fatal("empty rename accepted")
	}
}

func TestUpdateSession(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Model: "a"})
	time.Sleep(2 * time.Millisecond)
	if err := s.UpdateSession(sess.ID, func(x *Session) { x.Model, x.ID = "b", "hijack" }); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSession(sess.ID)
	if err != nil || got.Model != "b" || !got.UpdatedAt.After(sess.UpdatedAt) {
		t.Fatalf("update: %+v %v", got, err)
	}
	if _, err := s.GetSession("hijack"); !errors.Is(err, ErrNotFound) {
		t.Fatal("UpdateSession let fn change the id")
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the callback's panic", r)
			}
		}()
		_ = s.UpdateSession(sess.ID, func(x *Session) { x.Model = "c"; panic("boom") })
	}()
	if got, _ := s.GetSession(sess.ID); got.Model != "b" {
		t.Fatalf("panicking update was committed: %q", got.Model)
	}
	// A Store call from inside the callback fails instead of hanging.
	short, err := Open(s.Path(), Options{LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var inner error
	if err := short.UpdateSession(sess.ID, func(*Session) { _, inner = short.GetSession(sess.ID) }); err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	if !errors.As(inner, &le) {
		t.Fatalf("nested call: %v", inner)
	}
	if err := s.UpdateSession("nope", func(*Session) {}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	if err := s.CreateSession(&Session{ID: sess.ID}); err == nil {
		t.Fatal("duplicate id accepted")
	}
}

func TestWriters(t *testing.T) {
	when := time.Date(2026, 3, 4, 5, 6, 0, 0, time.Local)
	list := []Session{
		{ID: "20260304_050600_abcdef", Title: "tab\there\nnewline", Cwd: "/src/x", UpdatedAt: when, MessageCount: 12, Provider: "openai", Model: "gpt"},
		{ID: "20260304_050600_000000", Cwd: "/a much longer path/with space", UpdatedAt: when, MessageCount: 3},
	}
	var b bytes.Buffer
	if err := WriteSessionsTable(&b, list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", b.String())
	}
	col := strings.Index(lines[0], "UPDATED")
	for _, l := range lines[1:] {
		if !strings.Contains(l, "2026-03-04 05:06") || strings.Index(l, "2026-03-04") != col {
			t.Fatalf("misaligned table:\n%s", b.String())
		}
	}
	if !strings.Contains(lines[1], "tab here newline") || !strings.Contains(lines[2], "(untitled)") {
		t.Fatalf("table cells:\n%s", b.String())
	}

	b.Reset()
	if err := WriteSessionsJSON(&b, nil); err != nil || strings.TrimSpace(b.String()) != "[]" {
		t.Fatalf("empty JSON list: %q %v", b.String(), err)
	}
	b.Reset()
	p := "secret prompt"
	list[0].SystemPrompt = &p
	if err := WriteSessionsJSON(&b, list); err != nil {
		t.Fatal(err)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(b.Bytes(), &decoded); err != nil || len(decoded) != 2 {
		t.Fatalf("JSON list %q: %v", b.String(), err)
	}
	for _, k := range []string{"id", "title", "cwd", "created_at", "updated_at", "message_count", "provider", "model"} {
		if _, ok := decoded[0][k]; !ok {
			t.Fatalf("JSON list lacks %q: %s", k, b.String())
		}
	}
	if strings.Contains(b.String(), "secret") {
		t.Fatal("JSON list includes the system prompt")
	}

	b.Reset()
	msgs := sampleConversation()
	if err := WriteExport(&b, msgs); err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(out) != len(msgs) {
		t.Fatalf("export has %d lines, want %d", len(out), len(msgs))
	}
	for i, l := range out {
		var m providers.Message
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Role != msgs[i].Role || m.Content != msgs[i].Content {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		if strings.Contains(l, "_steer") || strings.Contains(l, "_partial") {
			t.Fatalf("export leaked internal flags: %s", l)
		}
	}
	if !strings.Contains(b.String(), `"pattern\":\"<T>\"`) {
		t.Fatalf("export escaped HTML: %s", b.String())
	}
}
