package providers

import (
	"context"
	"errors"
	"io"
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
