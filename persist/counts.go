package persist

import "math"

// LiveMessages is the number of the session's messages still in its
// conversation: MessageCount (every message logged) less those that
// conversation rewinds took back. This is what a listing shows, and what
// resuming the session loads (before a compaction summary stands in for
// part of it).
func (s *Session) LiveMessages() int {
	return max(s.MessageCount-s.RewoundMessages, 0)
}

// rewoundAfter counts the entries a conversation rewind to turn toTurn,
// made after the earlier rewinds prev with every entry already logged,
// leaves taken back (those of prev included).
func rewoundAfter(entries []Entry, prev []Rewind, toTurn int) int {
	all := append(prev[:len(prev):len(prev)], Rewind{ToTurn: toTurn, Conversation: true, LogSeq: math.MaxUint64})
	_, live := assignTurns(entries, all)
	n := 0
	for _, l := range live {
		if !l {
			n++
		}
	}
	return n
}
