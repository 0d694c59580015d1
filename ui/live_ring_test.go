package ui

import (
	"testing"
	"unsafe"
)

// TestUnwrittenLineRingIsSmall: a stored session's tool calls never get
// live output, so their rings must not carry the 64-line array (1 KiB a
// call, 3.4 MiB on a 10,000-message session before issue 31).
func TestUnwrittenLineRingIsSmall(t *testing.T) {
	var r lineRing
	if size := unsafe.Sizeof(r); size > 128 {
		t.Fatalf("an unwritten lineRing is %d bytes", size)
	}
	if r.total() != 0 || len(r.last(5)) != 0 {
		t.Fatalf("empty ring: total %d last %q", r.total(), r.last(5))
	}
	r.write("partial")
	if got := r.last(5); len(got) != 1 || got[0] != "partial" || r.lines != nil {
		t.Fatalf("partial only: %q (lines allocated: %v)", got, r.lines != nil)
	}
	r.write("\nnext\n")
	if got := r.last(5); len(got) != 2 || got[0] != "partial" || got[1] != "next" {
		t.Fatalf("after lines: %q", got)
	}
	if size := unsafe.Sizeof(toolCall{}); size > 512 {
		t.Fatalf("a toolCall is %d bytes", size)
	}
}
