package compress

import (
	"fmt"
	"sync"
	"time"
)

// Anti-thrash rules (hermes.md §8).
const (
	// MaxAttemptsPerTurn caps compressions within one turn.
	MaxAttemptsPerTurn = 3
	// FailureCooldown pauses automatic compression after a failed summary.
	FailureCooldown = 600 * time.Second
	// ineffectiveSaving: a compression saving less than this fraction is
	// ineffective.
	ineffectiveSaving = 0.10
	// thrashWindow recent outcomes are kept; automatic compression stops
	// when thrashLimit of them were ineffective, or used the fallback.
	thrashWindow = 2
	thrashLimit  = 2
)

// outcome is what one recorded compression achieved.
type outcome struct{ ineffective, fallback bool }

// Governor keeps compression from thrashing: at most 3 attempts per turn,
// no automatic compression after the last 2 saved under 10% each or both
// used the fallback summary, and a 600 s pause of automatic compression
// after a failed summary. Manual /compress bypasses all of it. The zero
// value is ready to use; it is safe for concurrent use. Time is passed in,
// so tests inject the clock.
type Governor struct {
	mu            sync.Mutex
	attempts      int
	recent        []outcome
	cooldownUntil time.Time
}

// BeginTurn resets the per-turn attempt count.
func (g *Governor) BeginTurn() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attempts = 0
}

// Allow says whether a compression may run now, and why not. Manual
// compressions (/compress) are always allowed; automatic ones (preflight,
// post-response) obey the per-turn cap, the failure cooldown and the
// anti-thrash rules.
func (g *Governor) Allow(now time.Time, manual bool) (bool, string) {
	if manual {
		return true, ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.attempts >= MaxAttemptsPerTurn {
		return false, fmt.Sprintf("compression already ran %d times this turn", g.attempts)
	}
	if now.Before(g.cooldownUntil) {
		return false, fmt.Sprintf("a summary failed recently; automatic compression resumes in %s", g.cooldownUntil.Sub(now).Round(time.Second))
	}
	ineffective, fallback := 0, 0
	for _, o := range g.recent {
		if o.ineffective {
			ineffective++
		}
		if o.fallback {
			fallback++
		}
	}
	switch {
	case ineffective >= thrashLimit:
		return false, fmt.Sprintf("the last %d compressions saved under 10%% each; use /compress or /new", ineffective)
	case fallback >= thrashLimit:
		return false, fmt.Sprintf("the last %d compressions used the fallback summary; use /compress or /new", fallback)
	}
	return true, ""
}

// AllowOverflow says whether a compression may run after a
// context_overflow or payload_too_large error. Only the per-turn cap
// applies: without compression the request cannot succeed. While Cooling,
// run it with Options.SkipSummary.
func (g *Governor) AllowOverflow() (bool, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.attempts >= MaxAttemptsPerTurn {
		return false, fmt.Sprintf("compression already ran %d times this turn", g.attempts)
	}
	return true, ""
}

// Cooling reports whether the failure cooldown runs at now.
func (g *Governor) Cooling(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return now.Before(g.cooldownUntil)
}

// Record notes one compression: the token estimates before and after,
// whether the fallback summary was used, and whether the summary call
// failed (which starts the cooldown). A no-op counts as ineffective.
func (g *Governor) Record(before, after int, usedFallback, failed bool, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attempts++
	if failed {
		g.cooldownUntil = now.Add(FailureCooldown)
	}
	saved := float64(before - after)
	g.recent = append(g.recent, outcome{
		ineffective: before <= 0 || saved < ineffectiveSaving*float64(before),
		fallback:    usedFallback,
	})
	if len(g.recent) > thrashWindow {
		g.recent = g.recent[len(g.recent)-thrashWindow:]
	}
}
