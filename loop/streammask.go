package loop

import (
	"strings"
	"unicode/utf8"

	"talaria/providers"
)

// MaxMaskHold bounds the text one stream holds back while it cannot yet be
// judged (4 KiB). A whitespace-free run longer than that is judged in
// pieces: all but its last maskHoldKeep bytes go out masked as they stand,
// so a secret straddling that cut (inside a token over 4 KiB long) can be
// missed; a known secret value straddling it is still held whole.
const MaxMaskHold = 4 << 10

// maskHoldKeep is what a stream keeps of an over-long token when it is cut.
const maskHoldKeep = 1 << 10

// Masking is a session's one set of masking rules: providers.Masker over
// the session's secret values (URL userinfo, key parameters, bearer tokens
// and key shapes come with it), and the values themselves, which the
// stream stage needs to hold back a split one. It is safe for concurrent
// use; the streams it makes are not.
type Masking struct {
	m       *providers.Masker
	secrets []string
}

// NewMasking returns the masking rules for the given secret values (blank
// ones are ignored).
func NewMasking(secrets ...string) *Masking {
	k := &Masking{m: providers.NewMasker(secrets...)}
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			k.secrets = append(k.secrets, s)
		}
	}
	return k
}

// Masker returns the rules as a providers.Masker, for whole values (a
// stored message, a log line, a final answer). Nil-safe.
func (k *Masking) Masker() *providers.Masker {
	if k == nil {
		return nil
	}
	return k.m
}

// Mask masks one whole text.
func (k *Masking) Mask(s string) string { return k.Masker().Mask(s) }

// Stream returns a MaskStream for one text that arrives in pieces.
func (k *Masking) Stream() *MaskStream {
	s := &MaskStream{}
	if k != nil {
		s.m, s.secrets = k.m, k.secrets
	}
	return s
}

// MaskStream masks a text that arrives in pieces (a streamed answer, a
// tool's live output), so that a secret split across pieces is masked as
// if the text had come whole: each Write returns the part of what came so
// far that can be judged, masked, and holds back the rest, a tail that may
// still turn into a secret: the last whitespace-free token (every masking
// rule but the bearer one stops at whitespace), a "Bearer" before it, and
// any tail that begins a known secret value. Flush masks and returns what
// is held. The concatenation of everything returned equals the masking of
// the whole text as long as no token exceeds MaxMaskHold.
type MaskStream struct {
	m       *providers.Masker
	secrets []string
	held    string
}

// Write adds one piece and returns what can be let out, masked (often "").
func (s *MaskStream) Write(piece string) string {
	buf := s.held + piece
	cut := holdFrom(buf, s.secrets)
	s.held = buf[cut:]
	return s.m.Mask(buf[:cut])
}

// Flush returns what is held, masked, and empties the stream: the text has
// ended.
func (s *MaskStream) Flush() string {
	out := s.m.Mask(s.held)
	s.held = ""
	return out
}

// Held is how many bytes the stream holds back.
func (s *MaskStream) Held() int { return len(s.held) }

// isMaskSpace is the whitespace of the masking rules (RE2's \s).
func isMaskSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// holdFrom is where the undecided tail of buf begins.
func holdFrom(buf string, secrets []string) int {
	h := len(buf)
	for h > 0 && !isMaskSpace(buf[h-1]) {
		h--
	}
	// "Bearer TOKEN" is judged as one: keep the word with the token.
	j := h
	for j > 0 && isMaskSpace(buf[j-1]) {
		j--
	}
	if n := len("bearer"); j >= n && strings.EqualFold(buf[j-n:j], "bearer") && (j == n || !isWordByte(buf[j-n-1])) {
		// From the start of the token the word ends: a key shape may run
		// into it ("sk-…-Bearer").
		for h = j - n; h > 0 && !isMaskSpace(buf[h-1]); h-- {
		}
	}
	if len(buf)-h > MaxMaskHold {
		h = len(buf) - maskHoldKeep
		for h > 0 && !utf8.RuneStart(buf[h]) {
			h--
		}
	}
	// A known value that reaches past the cut, or that the text may still
	// complete, is held from its start. Moving the cut back can put it
	// inside another one: repeat until it stays.
	for moved := true; moved; {
		moved = false
		for _, k := range secrets {
			if p := secretAcross(buf, k, h); p < h {
				h, moved = p, true
			}
		}
	}
	return h
}

// secretAcross returns the start of the first occurrence of k, whole or as
// a tail of buf that begins it, that starts before h and ends after it; h
// when there is none.
func secretAcross(buf, k string, h int) int {
	for off := 0; off < h; {
		i := strings.Index(buf[off:], k)
		if i < 0 {
			break
		}
		if s := off + i; s < h && s+len(k) > h {
			return s
		} else if s >= h {
			break
		}
		off += i + 1
	}
	for p := max(0, len(buf)-len(k)+1); p < h; p++ {
		if strings.HasPrefix(k, buf[p:]) {
			return p
		}
	}
	return h
}

// streamKey names one masked stream of a session: the answer, the
// reasoning, or one tool call's live output.
type streamKey struct {
	session string
	kind    string // an event type
	id      string // the tool call, for tool.output
}

// openStream is a stream with text held back and the header of its last
// piece (the flushed rest goes out under it).
type openStream struct {
	ms   *MaskStream
	last Header
}

// MaskStage is the first stage of a session's event pipeline: every event
// leaves it masked. The answer (message.delta), the reasoning
// (reasoning.delta) and each call's live output (tool.output) are masked
// as streams: a tail that may be the start of a secret is held back until
// the next piece of the same stream, or the stream's end, decides it (the
// answer and reasoning end at any event other than those three; a call's
// output at its tool.completed; all at turn.finished). What is held is
// bounded by MaxMaskHold per stream. Every other event has all its strings
// masked whole. A MaskStage is not safe for concurrent use: the pipeline
// calls it under its lock.
type MaskStage struct {
	k       *Masking
	streams map[streamKey]*openStream
}

// NewStage returns a masking stage over these rules.
func (k *Masking) NewStage() *MaskStage {
	return &MaskStage{k: k, streams: map[streamKey]*openStream{}}
}

// Push masks e and passes on what can go: nothing (a piece held whole),
// the held rest of streams e ends, then e itself.
func (st *MaskStage) Push(e Event, emit func(Event)) {
	h := e.Meta()
	switch ev := e.(type) {
	case *MessageDelta:
		if ev.Text = st.piece(streamKey{h.SessionID, TypeMessageDelta, ""}, *h, ev.Text); ev.Text != "" {
			emit(ev)
		}
		return
	case *ReasoningDelta:
		if ev.Text = st.piece(streamKey{h.SessionID, TypeReasoningDelta, ""}, *h, ev.Text); ev.Text != "" {
			emit(ev)
		}
		return
	case *ToolOutput:
		if ev.Text = st.piece(streamKey{h.SessionID, TypeToolOutput, ev.ID}, *h, ev.Text); ev.Text != "" {
			emit(ev)
		}
		return
	case *ToolCompleted:
		st.flush(streamKey{h.SessionID, TypeToolOutput, ev.ID}, emit)
	}
	st.flush(streamKey{h.SessionID, TypeMessageDelta, ""}, emit)
	st.flush(streamKey{h.SessionID, TypeReasoningDelta, ""}, emit)
	if _, ok := e.(*TurnFinished); ok {
		for key := range st.streams {
			if key.session == h.SessionID {
				st.flush(key, emit)
			}
		}
	}
	st.k.Masker().MaskStrings(e)
	emit(e)
}

// piece runs one piece of a stream through it.
func (st *MaskStage) piece(key streamKey, h Header, text string) string {
	s := st.streams[key]
	if s == nil {
		s = &openStream{ms: st.k.Stream()}
		st.streams[key] = s
	}
	s.last = h
	return s.ms.Write(text)
}

// flush ends a stream: its held rest goes out as one more piece.
func (st *MaskStage) flush(key streamKey, emit func(Event)) {
	s := st.streams[key]
	if s == nil {
		return
	}
	delete(st.streams, key)
	rest := s.ms.Flush()
	if rest == "" {
		return
	}
	switch key.kind {
	case TypeMessageDelta:
		emit(&MessageDelta{Header: s.last, Text: rest})
	case TypeReasoningDelta:
		emit(&ReasoningDelta{Header: s.last, Text: rest})
	case TypeToolOutput:
		emit(&ToolOutput{Header: s.last, ID: key.id, Text: rest})
	}
}
