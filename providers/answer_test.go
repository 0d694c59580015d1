package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReadEvents checks the shared event loop: blank data is skipped,
// names and trimmed data reach fn, done stops reading, fn's error is
// returned as is, and a body that fails is a MidStream error wrapping the
// read error.
func TestReadEvents(t *testing.T) {
	body := "event: ping\ndata:\n\nevent: a\ndata:  one \n\ndata: two\n\ndata: three\n\n"
	var got []string
	err := ReadEvents(context.Background(), "p", nil, strings.NewReader(body), func(name, data []byte) (bool, error) {
		got = append(got, string(name)+"="+string(data))
		return string(data) == "two", nil
	})
	if err != nil || strings.Join(got, ",") != "a=one,=two" {
		t.Fatalf("events %q, err %v; want [a=one =two] and nil", got, err)
	}
	stop := errors.New("stop")
	err = ReadEvents(context.Background(), "p", nil, strings.NewReader(body), func(_, data []byte) (bool, error) { return false, stop })
	if err != stop {
		t.Fatalf("fn's error came back as %v", err)
	}
	cut := errors.New("connection reset")
	err = ReadEvents(context.Background(), "p", nil, io.MultiReader(strings.NewReader("data: x\n\n"), errReader{cut}), func(_, _ []byte) (bool, error) { return false, nil })
	var ae *APIError
	if !errors.As(err, &ae) || !ae.MidStream || !errors.Is(err, cut) {
		t.Fatalf("a failing body gave %v; want a MidStream APIError wrapping the read error", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestDecodeEvent checks the three outcomes of an event that does not
// decode: the wire's error for an "error" event, skipped when the wire does
// not read its kind, and a MidStream error quoting it otherwise.
func TestDecodeEvent(t *testing.T) {
	var v struct{ Type string }
	evErr := func(h http.Header, raw []byte) *APIError {
		return &APIError{Provider: "p", MidStream: true, Message: "event error: " + string(raw)}
	}
	yes := func(_, _ []byte) bool { return true }
	no := func(_, _ []byte) bool { return false }
	if skip, err := DecodeEvent("p", nil, []byte("delta"), []byte(`{"Type":"x"}`), &v, yes, evErr, "check"); skip || err != nil || v.Type != "x" {
		t.Fatalf("a good event: skip %v err %v type %q", skip, err, v.Type)
	}
	if _, err := DecodeEvent("p", nil, []byte("error"), []byte(`{bad`), &v, yes, evErr, "check"); err == nil || !strings.Contains(err.Error(), "event error") {
		t.Fatalf("an undecodable error event gave %v; want the wire's event error", err)
	}
	if skip, err := DecodeEvent("p", nil, []byte("other"), []byte(`{bad`), &v, no, evErr, "check"); !skip || err != nil {
		t.Fatalf("an undecodable event of an unread kind: skip %v err %v; want skipped", skip, err)
	}
	skip, err := DecodeEvent("p", nil, []byte("delta"), []byte(`{bad`), &v, yes, evErr, "check the format")
	var ae *APIError
	if skip || !errors.As(err, &ae) || !ae.MidStream || string(ae.Body) != "{bad" || !strings.HasSuffix(ae.Message, "check the format") {
		t.Fatalf("an undecodable event the wire reads: skip %v err %#v; want a MidStream error quoting it", skip, err)
	}
}
