package compress

import (
	"time"

	"talaria/providers"
)

// Defaults of Options (hermes.md §8 compression config).
const (
	// DefaultProtectFirstN is how many messages open the head.
	DefaultProtectFirstN = 3
	// DefaultProtectLastN bounds the tail's message floor.
	DefaultProtectLastN = 20
	// DefaultTargetRatio is the tail budget as a fraction of the threshold.
	DefaultTargetRatio = 0.20
	// tailFloorCap bounds the message floor of the tail: the floor is
	// max(3, min(ProtectLastN, 8)).
	tailFloorMin = 3
	tailFloorCap = 8
	// tailOverrun is how far the tail budget may be exceeded to keep a
	// message or tool group whole.
	tailOverrun = 1.5
)

// Options parameterise a compression. Zero fields take the defaults noted.
type Options struct {
	// ContextLength of the model (0: DefaultContext) and MaxTokens, its
	// output cap (0: none reserved); they give Window and Threshold.
	ContextLength, MaxTokens int
	// Threshold is compression.threshold, a fraction (0: 0.50).
	Threshold float64
	// ProtectFirstN messages open the head (0: 3; negative: none).
	ProtectFirstN int
	// ProtectLastN bounds the tail's message floor (0: 20).
	ProtectLastN int
	// TargetRatio of the threshold is the tail's token budget (0: 0.20).
	TargetRatio float64
	// Now anchors dates in the summary prompt (zero: time.Now()).
	Now time.Time
	// Focus is an optional topic the summary should favour (/compress
	// FOCUS); when empty, Compress derives one from the last user turns.
	Focus string
	// SkipSummary makes Compress use FallbackSummary without a model call
	// (for example while the Governor's failure cooldown runs).
	SkipSummary bool
	// FitTokens, when positive, is the size the compressed history must
	// fit (a window the provider stated in an overflow error, less the
	// system prompt and tools): every tool output but the current
	// iteration's is pruned, the head keeps only the first message, the
	// kept tail shrinks when head and tail alone leave no room for the
	// summary, the summary is clipped to the room left, and the largest
	// tool results are cut with a marker as a last resort. Result.Fits
	// says whether the outcome fits.
	FitTokens int
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.ContextLength <= 0 {
		o.ContextLength = DefaultContext
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	switch {
	case o.ProtectFirstN == 0:
		o.ProtectFirstN = DefaultProtectFirstN
	case o.ProtectFirstN < 0:
		o.ProtectFirstN = 0
	}
	if o.ProtectLastN <= 0 {
		o.ProtectLastN = DefaultProtectLastN
	}
	if o.TargetRatio <= 0 || o.TargetRatio >= 1 {
		o.TargetRatio = DefaultTargetRatio
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return o
}

// TailBudget is the token budget of the protected tail: the threshold
// times the target ratio.
func (o Options) TailBudget() int {
	o = o.withDefaults()
	return int(float64(Threshold(o.ContextLength, o.MaxTokens, o.Threshold)) * o.TargetRatio)
}

// Plan splits a history into the head and tail kept verbatim and the
// middle to summarize, as indices into the planned slice, in order.
type Plan struct {
	Head, Middle, Tail []int
	// Pruned is how many messages the pruning step changed (set by
	// Compress; PlanCompression leaves it 0).
	Pruned int
	// TokensBefore is the estimate of the planned history.
	TokensBefore int
	// Noop is true when nothing lies between head and tail.
	Noop bool
}

// PlanCompression chooses head, middle and tail (hermes.md §8 steps 2–3).
// The head is the first ProtectFirstN messages (leading system messages
// are kept in it and not counted), extended forward so that a tool group is
// never split. The tail is chosen walking backward by whole groups within
// the token budget TailBudget; it keeps at least max(3, min(ProtectLastN, 8))
// messages, may exceed the budget up to 1.5× to keep a group whole, and
// always holds the latest user message (compaction summaries aside). An assistant tool call and its
// results always land in the same part. Nothing in the middle gives Noop.
func PlanCompression(msgs []providers.Message, opts Options) Plan {
	o := opts.withDefaults()
	toks := make([]int, len(msgs))
	before := 0
	for i := range msgs {
		toks[i] = MessageTokens(&msgs[i])
		before += toks[i]
	}
	if len(msgs) > 0 {
		before += ReplyPriming
	}
	sp := spans(msgs)
	headEnd := headEnd(msgs, sp, o.ProtectFirstN)
	tailStart := tailStart(msgs, sp, toks, headEnd, o, true)
	p := Plan{TokensBefore: before, Noop: tailStart <= headEnd}
	p.Head = indices(0, headEnd)
	if p.Noop {
		p.Tail = indices(headEnd, len(msgs))
		return p
	}
	p.Middle = indices(headEnd, tailStart)
	p.Tail = indices(tailStart, len(msgs))
	return p
}

// PruneBoundary is the index from which PruneToolOutputs must protect
// messages: the start of the token-budget tail, without extending it back
// to the latest user message, so that a long single turn still gets its
// older tool outputs pruned.
func PruneBoundary(msgs []providers.Message, opts Options) int {
	o := opts.withDefaults()
	toks := make([]int, len(msgs))
	for i := range msgs {
		toks[i] = MessageTokens(&msgs[i])
	}
	sp := spans(msgs)
	return tailStart(msgs, sp, toks, headEnd(msgs, sp, o.ProtectFirstN), o, false)
}

// headEnd returns the end of the head: n non-system messages, aligned
// forward to the end of the group the n-th one belongs to.
func headEnd(msgs []providers.Message, sp []span, n int) int {
	end, count := 0, 0
	for _, s := range sp {
		if msgs[s.start].Role == providers.RoleSystem {
			end = s.end
			continue
		}
		if count >= n {
			break
		}
		end = s.end
		count += s.end - s.start
	}
	return end
}

// tailStart walks whole groups backward from the end, never past headEnd.
func tailStart(msgs []providers.Message, sp []span, toks []int, headEnd int, o Options, anchorUser bool) int {
	budget := int(float64(Threshold(o.ContextLength, o.MaxTokens, o.Threshold)) * o.TargetRatio)
	soft := int(float64(budget) * tailOverrun)
	floor := max(tailFloorMin, min(o.ProtectLastN, tailFloorCap))
	start, acc, count := len(msgs), 0, 0
	for k := len(sp) - 1; k >= 0 && sp[k].start >= headEnd; k-- {
		s := sp[k]
		gt := 0
		for i := s.start; i < s.end; i++ {
			gt += toks[i]
		}
		if count >= floor && (acc >= budget || acc+gt > soft) {
			break
		}
		acc += gt
		count += s.end - s.start
		start = s.start
	}
	if anchorUser {
		for i := len(msgs) - 1; i >= headEnd; i-- {
			if msgs[i].Role == providers.RoleUser && !onlySummary(&msgs[i]) {
				start = min(start, i)
				break
			}
		}
	}
	return start
}

func indices(from, to int) []int {
	if to <= from {
		return nil
	}
	out := make([]int, to-from)
	for i := range out {
		out[i] = from + i
	}
	return out
}
