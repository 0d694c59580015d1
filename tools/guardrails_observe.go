package tools

import (
	"fmt"
	"strings"
)

// Observation kinds.
const (
	StallStreak = "streak"
	StallCycle  = "cycle"
)

// Observation is what the stall guard says about a call that ran.
type Observation struct {
	// Kind is StallStreak, StallCycle or "" when nothing stalls.
	Kind string
	// Count is the streak length, or the number of repeated laps of a
	// cycle.
	Count int
	// Period is the number of calls in one lap of a cycle.
	Period int
	// Notice is text for the model, to append to the result (""
	// when none).
	Notice string
	// Stub, when not empty, replaces the stored result: the call repeats
	// an earlier identical call whose long result the model already has.
	Stub string
	// Decision is a halt (identical_call_streak_halt or
	// identical_cycle_halt) when hard stops are on and the stall went on
	// too long, else an allow.
	Decision GuardrailDecision
}

// stallEntry is one observed call of the turn.
type stallEntry struct {
	key        string // signature + result hash
	name       string
	repeatable bool
}

// stallState is the stall guard's memory for one turn.
type stallState struct {
	streakKey  string
	streak     int
	streakID   string // tool_call_id of the first call of the streak
	streakName string
	history    []stallEntry // the last guardHistoryLen calls
	halted     bool         // a halt was already issued this turn
}

// Observe feeds the stall guard with a call that ran (id is its
// tool_call_id). Calls must be observed in call order, after the batch, for
// cycles to be found. It reports:
//
//   - a streak: the 3rd and later consecutive call with the same signature
//     and the same result (pollers such as process are exempt) gets a
//     notice, and from the 5th one, with hard stops on, a halt;
//   - a cycle: the last 2–4 calls repeated as a lap at least 3 times gets a
//     notice, and 5 laps, with hard stops on, a halt (cycles made only of
//     pollers are exempt);
//   - a stub: a successful result of at least 512 characters that repeats a
//     streak a 3rd time or more may be stored as a short reference to the
//     first call instead.
func (g *Guardrails) Observe(id, name, args, output string, failed bool) Observation {
	g.mu.Lock()
	defer g.mu.Unlock()
	sig := CallSignature(name, args)
	key := sig + "#" + ResultHash(output)
	st := &g.stall
	obs := Observation{Decision: GuardrailDecision{Action: GuardAllow, Tool: name, Signature: sig}}

	if key == st.streakKey {
		st.streak++
	} else {
		st.streakKey, st.streak, st.streakID, st.streakName = key, 1, id, name
	}
	repeatable := g.traitsOf(name).Poller
	st.history = append(st.history, stallEntry{key: key, name: name, repeatable: repeatable})
	if len(st.history) > guardHistoryLen {
		st.history = st.history[len(st.history)-guardHistoryLen:]
	}

	if st.streak >= 3 && !repeatable {
		obs.Kind, obs.Count = StallStreak, st.streak
		obs.Notice = fmt.Sprintf("[Stall notice: this is call %d in a row to %s with the same arguments and the same result. "+
			"Repeating it will not change anything: change the arguments, use a different tool, or continue with what you already have.]", st.streak, name)
		if !failed && len(output) >= guardStubMinChars {
			obs.Stub = fmt.Sprintf("[Same result as tool call %s (%s with arguments %s): %d characters, unchanged; see that result above.]",
				st.streakID, name, clipArgs(args), len(output))
		}
		if g.cfg.HardStopEnabled && st.streak >= 5 && !st.halted {
			st.halted = true
			obs.Decision = g.halt(obs.Decision, CodeIdenticalStreakHalt, st.streak, fmt.Sprintf(
				"Stopped: %s was called %d times in a row with the same arguments and got the same result each time.", name, st.streak))
		}
		return obs
	}
	if period, laps := trailingCycle(st.history); laps >= 3 {
		lap := st.history[len(st.history)-period:]
		names := make([]string, period)
		for i, e := range lap {
			names[i] = e.name
		}
		obs.Kind, obs.Count, obs.Period = StallCycle, laps, period
		obs.Notice = fmt.Sprintf("[Stall notice: the last %d rounds repeated the same cycle of %d tool calls (%s) with the same results each time. "+
			"Break the loop: change the arguments, use a different tool, or continue with what you already have.]", laps, period, strings.Join(names, " → "))
		if g.cfg.HardStopEnabled && laps >= 5 && !st.halted {
			st.halted = true
			obs.Decision = g.halt(obs.Decision, CodeIdenticalCycleHalt, laps, fmt.Sprintf(
				"Stopped: the last %d rounds repeated the same cycle of %d tool calls (%s) with the same results.", laps, period, strings.Join(names, " → ")))
		}
	}
	return obs
}

// halt fills d as a halt decision.
func (g *Guardrails) halt(d GuardrailDecision, code string, count int, msg string) GuardrailDecision {
	d.Action, d.Code, d.Count, d.Message = GuardHalt, code, count, msg
	return d
}

// trailingCycle finds the period p in 2..4 whose last lap of calls (not
// made only of pollers, and not itself a repetition of a shorter lap)
// repeats most often in a row at the end of h, and returns p and that
// number of laps (the shorter period on a tie); 0, 0 when no lap repeats.
func trailingCycle(h []stallEntry) (period, laps int) {
	n := len(h)
	for p := 2; p <= 4 && 2*p <= n; p++ {
		lap := h[n-p:]
		if !primitiveLap(lap) || allRepeatable(lap) {
			continue
		}
		k := 1
		for start := n - 2*p; start >= 0 && sameLap(h[start:start+p], lap); start -= p {
			k++
		}
		if k >= 2 && k > laps {
			period, laps = p, k
		}
	}
	return period, laps
}

// sameLap reports whether a and b hold the same calls with the same
// results, in the same order.
func sameLap(a, b []stallEntry) bool {
	for i := range a {
		if a[i].key != b[i].key {
			return false
		}
	}
	return true
}

// primitiveLap reports whether lap is not a repetition of a shorter lap
// (a lap of one call repeated is a streak, not a cycle).
func primitiveLap(lap []stallEntry) bool {
	p := len(lap)
	for d := 1; d < p; d++ {
		if p%d != 0 {
			continue
		}
		rep := true
		for i := d; i < p && rep; i++ {
			rep = lap[i].key == lap[i-d].key
		}
		if rep {
			return false
		}
	}
	return true
}

// allRepeatable reports whether every call of lap is a poller.
func allRepeatable(lap []stallEntry) bool {
	for _, e := range lap {
		if !e.repeatable {
			return false
		}
	}
	return true
}

// clipArgs previews raw arguments in at most guardStubArgsPreviewChars
// characters.
func clipArgs(args string) string {
	s := strings.Join(strings.Fields(args), " ")
	if r := []rune(s); len(r) > guardStubArgsPreviewChars {
		return string(r[:guardStubArgsPreviewChars]) + "…"
	}
	if s == "" {
		return "{}"
	}
	return s
}
