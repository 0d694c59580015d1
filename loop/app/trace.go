package app

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"talaria/loop"
	"talaria/loop/trace"
	"talaria/loop/trace/otlp"
	"talaria/persist"
	"talaria/providers"
	"talaria/tools"
)

// traceState is what a session records about its turns: the span log
// (saved with the session), the OpenTelemetry export and a --record file.
type traceState struct {
	exporter *otlp.Exporter
	recorder *trace.Recorder

	// mem keeps the span logs of a session without a store (the tour).
	mu  sync.Mutex
	mem map[int]*trace.Log
}

// keepTimelines records the span logs of a session that saves nothing
// (the offline tour) in memory, for /timeline.
func (s *Session) keepTimelines(sink loop.Sink) loop.Sink {
	st := &traceState{mem: map[int]*trace.Log{}}
	s.trace = st
	return trace.NewTimeline(s.Record.ID, func(l *trace.Log) {
		st.mu.Lock()
		st.mem[l.Turn] = l
		st.mu.Unlock()
	}).Wrap(sink)
}

// memTimeline looks up a span log kept in memory (turn 0: the last).
func (st *traceState) memTimeline(turn int) (*trace.Log, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if turn == 0 {
		for n := range st.mem {
			turn = max(turn, n)
		}
	}
	if l, ok := st.mem[turn]; ok {
		return l, nil
	}
	if len(st.mem) == 0 {
		return nil, errors.New("no timeline recorded for this session yet")
	}
	return nil, fmt.Errorf("no timeline for turn %d", turn)
}

// attachTrace builds the timeline and the exporter (s.trace): the
// timeline's event subscriber goes into the pipeline (it sees masked
// events). The recorder (--record) is a part of its own (openRecorder).
func (s *Session) attachTrace(f Flags) (loop.Sink, error) {
	st := &traceState{}
	tl := trace.NewTimeline(s.Record.ID, s.saveSpans)
	endpoint, err := s.Config.Telemetry.Endpoint(os.Getenv)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if endpoint != "" {
		exp, err := otlp.NewExporter(otlp.ExporterOptions{Endpoint: endpoint, LogContent: s.Config.Telemetry.LogContent, Version: f.Version})
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		st.exporter = exp
		tl.Listen(exp.Export)
	}
	s.trace = st
	return tl.Wrap(nil), nil
}

// close flushes the exporter (at most otlp.FlushTimeout) and closes the
// recording.
func (st *traceState) close() {
	if st == nil {
		return
	}
	if st.exporter != nil {
		_ = st.exporter.Shutdown()
	}
	if st.recorder != nil {
		_ = st.recorder.Close()
	}
}

// saveSpans keeps a finished turn's span log with the session; a failure
// is logged, never fatal.
func (s *Session) saveSpans(l *trace.Log) {
	raw, err := l.Marshal()
	if err == nil {
		err = s.Store.SaveSpans(s.Record.ID, l.Turn, raw)
	}
	if err != nil {
		s.log(fmt.Sprintf("WARN span log of turn %d not saved: %v session=%s", l.Turn, err, s.Record.ID))
	}
}

// Timeline returns the span log of one turn of the session (0: the last
// one recorded).
func (s *Session) Timeline(turn int) (*trace.Log, error) {
	if s.Store == nil {
		if s.trace == nil {
			return nil, errors.New("this session keeps no timeline")
		}
		return s.trace.memTimeline(turn)
	}
	return LoadTimeline(s.Store, s.Record.ID, turn)
}

// LoadTimeline reads a saved span log (turn 0: the latest turn still in
// the conversation, a turn a rewind took back never); a turn without one
// is an error that says which turns have one.
func LoadTimeline(st *persist.Store, sessionID string, turn int) (*trace.Log, error) {
	load := func() ([]byte, int, error) { return st.Spans(sessionID, turn) }
	if turn == 0 {
		load = func() ([]byte, int, error) { return latestLiveSpans(st, sessionID) }
	}
	raw, got, err := load()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		turns, _ := st.SpanTurns(sessionID)
		switch {
		case len(turns) == 0:
			return nil, errors.New("no timeline recorded for this session yet")
		case turn == 0:
			return nil, fmt.Errorf("no timeline for a turn still in the conversation (recorded turns: %s; --turn N shows one)", joinInts(turns))
		}
		return nil, fmt.Errorf("no timeline for turn %d (recorded turns: %s)", turn, joinInts(turns))
	}
	l, err := trace.ParseLog(raw)
	if err != nil {
		return nil, fmt.Errorf("the timeline of turn %d is unreadable: %w", got, err)
	}
	return l, nil
}

// latestLiveSpans returns the span log of the latest turn still in the
// conversation that has one, and its turn: without conversation rewinds
// the latest logged turn; after one, turns it took back are passed over
// (their logs stay, for --turn). nil when no live turn has a log.
func latestLiveSpans(st *persist.Store, sessionID string) ([]byte, int, error) {
	rws, err := st.Rewinds(sessionID)
	if err != nil {
		return nil, 0, err
	}
	if !slices.ContainsFunc(rws, func(r persist.Rewind) bool { return r.Conversation }) {
		return st.Spans(sessionID, 0)
	}
	turns, err := st.Turns(sessionID)
	if err != nil {
		return nil, 0, err
	}
	for i := len(turns) - 1; i >= 0; i-- {
		if !turns[i].Live {
			continue
		}
		raw, got, err := st.Spans(sessionID, turns[i].Turn)
		if err != nil || raw != nil {
			return raw, got, err
		}
	}
	return nil, 0, nil
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// secretValues are the values a recording must never hold: every API key
// of the chain and every credential-looking environment variable.
func secretValues(chain *providers.FallbackChain) []string {
	var out []string
	if chain != nil {
		for _, b := range chain.Backends() {
			out = append(out, b.APIKeys...)
		}
	}
	for _, kv := range os.Environ() {
		name, val, ok := strings.Cut(kv, "=")
		if ok && len(val) >= 8 && tools.LooksSecret(name) {
			out = append(out, val)
		}
	}
	return out
}

// LiveTools is the built-in tool set for `talaria replay --live-tools`,
// run in cwd; stop ends its background processes.
func LiveTools(cwd string) (*tools.Registry, tools.Env, func()) {
	env := tools.Env{Cwd: cwd, Processes: tools.NewProcessManager(), Todos: tools.NewTodoList()}
	return tools.NewRegistry(tools.AvailableBuiltins(&env)...), env, func() { _ = env.Processes.Close() }
}
