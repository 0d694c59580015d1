package loop

import (
	"errors"
	"strings"
	"testing"
)

// TestSteerTextIsCappedLikeAPrompt: steers queue while their joined text
// fits MaxPromptBytes; the one that would not fit is refused whole, with a
// SteerTooLargeError and a steer.refused event, and the pending ones stay.
func TestSteerTextIsCappedLikeAPrompt(t *testing.T) {
	rec := newRecorder()
	a := New(Options{SessionID: "s", Sink: rec.sink})
	piece := strings.Repeat("x", 1<<20-1)
	for i := 1; i <= 4; i++ { // 4 × (1 MiB − 1) + 3 newlines = 4 MiB − 1
		if id, err := a.TrySteer(piece); err != nil || id != i {
			t.Fatalf("steer %d: id %d, %v", i, id, err)
		}
	}
	id, err := a.TrySteer("one more")
	var big *SteerTooLargeError
	if id != 0 || !errors.As(err, &big) || big.Pending != MaxPromptBytes-1 || !strings.Contains(err.Error(), "not queued") {
		t.Fatalf("the steer over the cap: id %d, %v", id, err)
	}
	if a.Steer("and another") != 0 {
		t.Fatal("Steer queued past the cap")
	}
	ev, ok := rec.waitFor(t, TypeSteerRefused).(*SteerRefused)
	if !ok || ev.Bytes != len("one more") || ev.LimitBytes != MaxPromptBytes || ev.Message != err.Error() {
		t.Fatalf("steer.refused %+v", ev)
	}
	a.mu.Lock()
	text, ids := a.drainSteers()
	a.mu.Unlock()
	if len(text) != MaxPromptBytes-1 || len(ids) != 4 {
		t.Fatalf("pending %d bytes in %d steers", len(text), len(ids))
	}
	if id, err := a.TrySteer("fits again"); err != nil || id != 5 {
		t.Fatalf("after delivery: id %d, %v", id, err)
	}
}
