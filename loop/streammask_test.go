package loop

import (
	"strings"
	"testing"
)

// plantedKey is a provider key as a session knows it (from its env).
const plantedKey = "sk-proj-Q7vX2mLp9RtY4wZk8HbN3cJd6FgS1aEu"

// streamed runs pieces through one MaskStream and returns everything it
// let out.
func streamed(k *Masking, pieces ...string) string {
	s := k.Stream()
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(s.Write(p))
	}
	b.WriteString(s.Flush())
	return b.String()
}

// TestMaskStreamKeySplitAtEveryOffset: a secret split anywhere across two
// pieces never comes out, in whole or as either half, and the text around
// it comes out unchanged: the stream equals the masking of the whole.
func TestMaskStreamKeySplitAtEveryOffset(t *testing.T) {
	k := NewMasking(plantedKey)
	texts := []string{
		"Here is the key: " + plantedKey + " and the rest.\n",
		plantedKey,
		"key=" + plantedKey + "\nnext line",
		"connect to postgres://admin:S3cretPass@db/x now",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123 ok",
		"unknown shape sk-ant-api03-ZZZZYYYYXXXXWWWWVVVV tail",
	}
	for _, text := range texts {
		want := k.Mask(text)
		for _, secret := range []string{plantedKey, "S3cretPass", "abcdefghijklmnopqrstuvwxyz0123", "ZZZZYYYYXXXXWWWWVVVV"} {
			if strings.Contains(want, secret) {
				t.Fatalf("the whole-text masking keeps %q in %q", secret, want)
			}
		}
		for i := 0; i <= len(text); i++ {
			got := streamed(k, text[:i], text[i:])
			if got != want {
				t.Fatalf("split at %d of %q:\n got %q\nwant %q", i, text, got, want)
			}
		}
	}
	// The halves of the key, at every split, are gone too.
	text := "the key is " + plantedKey + " ok"
	for i := 8; i <= len(plantedKey)-8; i++ {
		got := streamed(k, "the key is "+plantedKey[:i], plantedKey[i:]+" ok")
		if strings.Contains(got, plantedKey[:i]) || strings.Contains(got, plantedKey[i:]) {
			t.Fatalf("split at %d: a half of the key is in %q", i, got)
		}
		if !strings.HasPrefix(got, "the key is ") || !strings.HasSuffix(got, " ok") {
			t.Fatalf("split at %d: the text around the key was changed: %q (from %q)", i, got, text)
		}
	}
}

// TestMaskStreamLetsOrdinaryTextThrough: prose is held back by at most
// its last word, never more.
func TestMaskStreamLetsOrdinaryTextThrough(t *testing.T) {
	s := NewMasking(plantedKey).Stream()
	if got := s.Write("Hello there, "); got != "Hello there, " {
		t.Fatalf("a piece ending in a space: %q", got)
	}
	if got := s.Write("wor"); got != "" || s.Held() != 3 {
		t.Fatalf("an unfinished word: out %q, held %d", got, s.Held())
	}
	if got := s.Write("ld.\nNext"); got != "world.\n" {
		t.Fatalf("the word finished: %q", got)
	}
	if got := s.Flush(); got != "Next" {
		t.Fatalf("flush: %q", got)
	}
}

// TestMaskStreamHoldIsBounded: a whitespace-free run longer than
// MaxMaskHold is let out in pieces; what stays held is bounded.
func TestMaskStreamHoldIsBounded(t *testing.T) {
	s := NewMasking(plantedKey).Stream()
	out := 0
	for range 100 {
		out += len(s.Write(strings.Repeat("x", 1000)))
		if s.Held() > MaxMaskHold {
			t.Fatalf("holds %d bytes", s.Held())
		}
	}
	if out+len(s.Flush()) != 100*1000 {
		t.Fatal("bytes lost")
	}
}

// TestMaskStageEvents: through the stage, a key split across two
// message.delta events and across two tool.output events comes out masked,
// the held rest goes out before the event that ends its stream, and whole
// events have every string masked.
func TestMaskStageEvents(t *testing.T) {
	st := NewMasking(plantedKey).NewStage()
	var got []Event
	emit := func(e Event) { got = append(got, e) }
	h := func(typ string) Header { return Header{Type: typ, SessionID: "s1", Turn: 1} }
	half := len(plantedKey) / 2
	st.Push(&MessageDelta{Header: h(TypeMessageDelta), Text: "the key " + plantedKey[:half]}, emit)
	st.Push(&ToolOutput{Header: h(TypeToolOutput), ID: "c1", Text: "postgres://admin:S3c"}, emit)
	st.Push(&MessageDelta{Header: h(TypeMessageDelta), Text: plantedKey[half:]}, emit)
	st.Push(&ToolOutput{Header: h(TypeToolOutput), ID: "c1", Text: "retPass@db/x\n"}, emit)
	st.Push(&MessageCompleted{Header: h(TypeMessageCompleted), Content: "the key " + plantedKey}, emit)
	st.Push(&ToolCompleted{Header: h(TypeToolCompleted), ID: "c1", Output: "postgres://admin:S3cretPass@db/x\n"}, emit)
	var answer, output strings.Builder
	var types []string
	for _, e := range got {
		types = append(types, e.Meta().Type)
		switch e := e.(type) {
		case *MessageDelta:
			answer.WriteString(e.Text)
		case *ToolOutput:
			output.WriteString(e.Text)
		case *MessageCompleted:
			if strings.Contains(e.Content, plantedKey) {
				t.Fatalf("message.completed: %q", e.Content)
			}
		case *ToolCompleted:
			if strings.Contains(e.Output, "S3cretPass") {
				t.Fatalf("tool.completed: %q", e.Output)
			}
		}
	}
	want := "message.delta tool.output message.delta message.completed tool.completed"
	if strings.Join(types, " ") != want {
		t.Fatalf("events %v, want %s", types, want)
	}
	k := NewMasking(plantedKey)
	if answer.String() != k.Mask("the key "+plantedKey) || output.String() != k.Mask("postgres://admin:S3cretPass@db/x\n") {
		t.Fatalf("streams: %q / %q", answer.String(), output.String())
	}
}

// FuzzMaskStream: whatever the model streams and wherever the pieces are
// cut, the stream lets out exactly the masking of the whole text (so a
// planted key never comes out, and nothing else is changed).
func FuzzMaskStream(f *testing.F) {
	f.Add("before ", " after", uint16(3), uint16(9))
	f.Add("postgres://admin:", "@db/x", uint16(0), uint16(40))
	f.Add("Bearer ", "", uint16(1), uint16(2))
	f.Add("x-Bearer\n\n", " tail", uint16(12), uint16(13))
	f.Add("sk-AAAAAAAAAAAAAAA-", " zzzzzzzzzzzzzzzzzz", uint16(5), uint16(30))
	f.Add("?key=", "&x=1", uint16(2), uint16(7))
	f.Add("https://user:", "@host/?token=abcdef0123456789 Bearer zzzzzzzzzzzzzzzzzzzzz", uint16(4), uint16(60))
	k := NewMasking(plantedKey)
	f.Fuzz(func(t *testing.T, pre, post string, a, b uint16) {
		text := pre + plantedKey + post
		if len(text) > MaxMaskHold {
			return // over-long tokens are cut by design
		}
		i, j := int(a)%(len(text)+1), int(b)%(len(text)+1)
		if i > j {
			i, j = j, i
		}
		got := streamed(k, text[:i], text[i:j], text[j:])
		if want := k.Mask(text); got != want {
			t.Fatalf("cuts %d,%d of %q:\n got %q\nwant %q", i, j, text, got, want)
		}
		if strings.Contains(got, plantedKey) {
			t.Fatalf("the key came out: %q", got)
		}
		// Masking twice changes nothing (a recording masks text the
		// pipeline masked, and a replay compares the two).
		if again := k.Mask(got); again != got {
			t.Fatalf("masking %q again gives %q", got, again)
		}
	})
}
