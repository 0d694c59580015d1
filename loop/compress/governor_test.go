package compress

import (
	"testing"
	"time"
)

func TestGovernor(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var g Governor
	allow := func(now time.Time, manual bool) bool { ok, _ := g.Allow(now, manual); return ok }

	// At most 3 attempts per turn, reset by BeginTurn.
	for i := range 3 {
		if !allow(t0, false) {
			t.Fatalf("attempt %d refused", i+1)
		}
		g.Record(1000, 500, false, false, t0)
	}
	if ok, why := g.Allow(t0, false); ok || why == "" {
		t.Fatal("a fourth attempt in one turn must be refused, with a reason")
	}
	if ok, _ := g.AllowOverflow(); ok {
		t.Fatal("the overflow path obeys the per-turn cap too")
	}
	if !allow(t0, true) {
		t.Fatal("manual compression bypasses the cap")
	}
	g.BeginTurn()
	if !allow(t0, false) {
		t.Fatal("BeginTurn resets the cap")
	}

	// A failed summary: 600 s cooldown of automatic compression.
	g.Record(1000, 700, true, true, t0)
	if allow(t0.Add(599*time.Second), false) || !g.Cooling(t0.Add(599*time.Second)) {
		t.Fatal("cooldown not applied")
	}
	if !allow(t0.Add(599*time.Second), true) {
		t.Fatal("manual compression bypasses the cooldown")
	}
	if ok, _ := g.AllowOverflow(); !ok {
		t.Fatal("overflow compression is not stopped by the cooldown")
	}
	if !allow(t0.Add(600*time.Second), false) || g.Cooling(t0.Add(600*time.Second)) {
		t.Fatal("cooldown must end after 600 s")
	}
}

func TestGovernorThrash(t *testing.T) {
	t0 := time.Unix(0, 0)
	var g Governor
	g.Record(1000, 950, false, false, t0) // 5% saved: ineffective
	g.BeginTurn()
	if ok, _ := g.Allow(t0, false); !ok {
		t.Fatal("one ineffective compression is not enough to stop")
	}
	g.Record(1000, 1000, false, false, t0) // a no-op: ineffective
	g.BeginTurn()
	if ok, why := g.Allow(t0, false); ok || why == "" {
		t.Fatal("two ineffective compressions stop automatic compression")
	}
	if ok, _ := g.Allow(t0, true); !ok {
		t.Fatal("manual compression still runs")
	}
	g.Record(1000, 100, false, false, t0) // an effective manual one
	if ok, _ := g.Allow(t0, false); !ok {
		t.Fatal("an effective compression lifts the stop")
	}

	var f Governor
	f.Record(1000, 200, true, false, t0)
	f.Record(1000, 200, true, false, t0)
	f.BeginTurn()
	if ok, _ := f.Allow(t0, false); ok {
		t.Fatal("two fallback summaries stop automatic compression")
	}
	f.Record(1000, 200, false, false, t0)
	f.BeginTurn()
	if ok, _ := f.Allow(t0, false); !ok {
		t.Fatal("a real summary lifts the stop")
	}
	var e Governor
	e.Record(1000, 900, false, false, t0) // exactly 10%: effective
	e.Record(1000, 900, false, false, t0)
	if ok, _ := e.Allow(t0, false); !ok {
		t.Fatal("saving exactly 10% is effective")
	}
}
