package persist

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"talaria/providers"
)

// searchFixture stores a few sessions whose messages make the query
// semantics visible: each message's content starts with a label.
func searchFixture(t *testing.T) (*Store, map[string]string) {
	t.Helper()
	s := tempStore(t)
	ids := map[string]string{}
	add := func(name string, msgs ...providers.Message) {
		sess := mustCreate(t, s, &Session{Title: name})
		ids[name] = sess.ID
		for _, m := range msgs {
			// One message per transaction: doc ids follow this order.
			if err := s.AppendMessages(sess.ID, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	user := func(c string) providers.Message { return providers.Message{Role: providers.RoleUser, Content: c} }
	add("deploy",
		user("m1: Deploy the service with Docker please"),
		providers.Message{Role: providers.RoleAssistant, Content: "m2: building the image",
			ToolCalls: []providers.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"docker build -t web ."}`}}},
		providers.Message{Role: providers.RoleTool, ToolCallID: "c1", Content: "m3: Error: connection reset by peer"},
		user("m4: use podman instead, docker is broken"),
	)
	add("notes",
		user("m5: the connection was reset, then it timed out"),
		user("m6: Überprüfung der Datenbank-Migration abgeschlossen"),
		user("m7: 日本語のテキストを検索する"),
		user("m8: migrating the vendor directory; migration done"),
	)
	return s, ids
}

// labels runs a search and returns the labels (m1, m2, ...) of the hits.
func labels(t *testing.T, s *Store, query string, limit int, session string) []string {
	t.Helper()
	hits, err := s.SearchSessions(context.Background(), query, limit, session)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	labelRE := regexp.MustCompile(`\bm\d+:`)
	var out []string
	for _, h := range hits {
		label := "?"
		if m := labelRE.FindString(h.Snippet); m != "" {
			label = m[:len(m)-1]
		}
		out = append(out, label)
	}
	return out
}

func TestSearchSemantics(t *testing.T) {
	s, ids := searchFixture(t)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"docker", []string{"m4", "m2", "m1"}},           // newest first; tool call arguments count
		{"DOCKER deploy", []string{"m1"}},                // AND, any case
		{"docker AND deploy", []string{"m1"}},            // explicit AND
		{"podman OR deploy", []string{"m4", "m1"}},       // OR
		{"docker podman OR image", []string{"m4", "m2"}}, // docker AND (podman OR image)
		{`"connection reset"`, []string{"m3"}},           // phrase: m5 has the words apart
		{"connection reset", []string{"m5", "m3"}},       // words anywhere
		{"migrat*", []string{"m8", "m6"}},                // prefix
		{"migrat* -vendor", []string{"m6"}},              // exclusion
		{"migrat* NOT vendor", []string{"m6"}},           // NOT
		{`connection -"reset by"`, []string{"m5"}},       // excluded phrase
		{"überprüfung", []string{"m6"}},                  // unicode, lowercased
		{"ÜBERPRÜFUNG datenbank", []string{"m6"}},        //
		{"テキスト", []string{"m7"}},                         // CJK as a phrase of characters
		{"検索", []string{"m7"}},                           //
		{"docker build", []string{"m2"}},                 // words of one tool call
		{"read_file", nil},                               // nothing
		{"nosuchword", nil},                              //
		{"docker nosuchword", nil},                       //
		{"nosuchword OR podman", []string{"m4"}},         //
		{"Datenbank-Migration", []string{"m6"}},          // a hyphenated word is a phrase
		{`"the connection`, []string{"m5"}},              // unterminated quote
		{"docker -", []string{"m4", "m2", "m1"}},         // stray operators are ignored
		{"OR docker", []string{"m4", "m2", "m1"}},        //
		{"m1 OR m2 OR m3 OR m4 OR m5", []string{"m5", "m4", "m3", "m2", "m1"}},
	} {
		if got := labels(t, s, c.query, 0, ""); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.query, got, c.want)
		}
	}
	if got := labels(t, s, "docker", 2, ""); !reflect.DeepEqual(got, []string{"m4", "m2"}) {
		t.Errorf("limit 2: %v", got)
	}
	if got := labels(t, s, "connection", 0, ids["deploy"]); !reflect.DeepEqual(got, []string{"m3"}) {
		t.Errorf("in one session: %v", got)
	}
	if _, err := s.SearchSessions(context.Background(), "x", 0, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	for _, q := range []string{"", "  ", "-docker", "NOT docker", "*", `""`, "OR AND"} {
		if _, err := s.SearchSessions(context.Background(), q, 0, ""); err == nil || !strings.Contains(err.Error(), "nothing to look for") {
			t.Errorf("%q: %v", q, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SearchSessions(ctx, "docker", 0, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSearchHitFields(t *testing.T) {
	s, ids := searchFixture(t)
	before := time.Now()
	hits, err := s.SearchSessions(context.Background(), "podman", 0, "")
	if err != nil || len(hits) != 1 {
		t.Fatal(hits, err)
	}
	h := hits[0]
	if h.SessionID != ids["deploy"] || h.Title != "deploy" || h.Role != "user" || h.Seq != 4 ||
		h.When.IsZero() || h.When.After(before) || h.Snippet != "m4: use podman instead, docker is broken" {
		t.Fatalf("hit %+v", h)
	}
	// A long message: the snippet is a window around the first hit.
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40) + "NEEDLE in\nthe\thaystack " + strings.Repeat("consectetur adipiscing ", 40)
	sess := mustCreate(t, s, &Session{})
	if err := s.AppendMessages(sess.ID, providers.Message{Role: providers.RoleTool, Content: long}); err != nil {
		t.Fatal(err)
	}
	hits, err = s.SearchSessions(context.Background(), "needle haystack", 0, "")
	if err != nil || len(hits) != 1 {
		t.Fatal(hits, err)
	}
	snip := hits[0].Snippet
	if !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") || !strings.Contains(snip, "NEEDLE in the haystack") ||
		utf8.RuneCountInString(snip) > snippetRunes+2 || strings.Contains(snip, "  ") {
		t.Fatalf("snippet %q", snip)
	}
	if i := strings.Index(snip, "NEEDLE"); i < 20 || i > snippetBefore+5 {
		t.Fatalf("hit at %d in %q", i, snip)
	}
	if snippet("short", 0, 5) != "short" {
		t.Fatal("short snippet changed")
	}
}

func TestSearchAfterDelete(t *testing.T) {
	s, ids := searchFixture(t)
	if err := s.DeleteSession(ids["deploy"]); err != nil {
		t.Fatal(err)
	}
	if got := labels(t, s, "docker OR connection", 0, ""); !reflect.DeepEqual(got, []string{"m5"}) {
		t.Fatalf("after delete: %v", got)
	}
	verifyIndex(t, s)
}

// FuzzQuery: any query and text parse, match and cut snippets without
// panicking, and spans stay inside the text.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{`a "b c`, `-"x y"* OR`, `日本*`, `NOT -a`, `"`, `--a`, `a*b* "c*"`} {
		f.Add(q, "a b c 日本語 x y z\n\tend")
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		spans := tokenSpans(text)
		for _, sp := range spans {
			if sp.start < 0 || sp.end > len(text) || sp.start >= sp.end || sp.tok == "" {
				t.Fatalf("bad span %+v in %q", sp, text)
			}
		}
		q, ok := parseQuery(query)
		if !ok {
			return
		}
		if start, end, ok := q.match(spans); ok {
			if start < 0 || end > len(text) || start > end {
				t.Fatalf("bad hit %d..%d", start, end)
			}
			_ = snippet(text, start, end)
		}
	})
}
