package app

import (
	"os"
	"path/filepath"

	"talaria/loop/config"
	"talaria/persist"
	"talaria/providers"
	"talaria/tools"
	"talaria/tools/sandbox"
)

// Approvals is the session's approval policy: its mode can be read and
// changed while the session runs (Shift+Tab, /approvals in the TUI).
func (s *Session) Approvals() *tools.Approver {
	if s == nil || s.tools == nil {
		return nil
	}
	return s.tools.approver
}

// commandPolicy is how the session's commands start: an environment
// without the provider keys and other secrets (terminal.env_passthrough
// lets named ones through), and the configured sandbox.
func commandPolicy(cfg config.Config, home, cwd string) (tools.CommandPolicy, error) {
	pol := tools.CommandPolicy{Environ: tools.FilterEnviron(os.Environ(), cfg.KeyEnvNames(), cfg.Terminal.EnvPassthrough)}
	mode := sandbox.Mode(cfg.Sandbox.Mode)
	if mode == "" || mode == sandbox.Off {
		return pol, nil
	}
	// The sandbox takes absolute paths only: a relative one would be
	// resolved against each command's directory ($TALARIA_HOME=rel would
	// protect nothing); a relative TMPDIR is refused by sandbox.New.
	var err error
	if home, err = filepath.Abs(home); err != nil {
		return pol, usage("TALARIA_HOME: %v", err)
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return pol, usage("working directory: %v", err)
	}
	roots := make([]string, 0, len(cfg.Sandbox.WritableRoots))
	for _, r := range cfg.Sandbox.WritableRoots {
		abs, err := tools.ResolvePath(cwd, r)
		if err != nil {
			return pol, usage("sandbox.writable_roots: %v", err)
		}
		roots = append(roots, abs)
	}
	sb, err := sandbox.New(sandbox.Config{Mode: mode, Cwd: cwd, WritableRoots: roots, Protected: []string{home},
		Network: cfg.Sandbox.Network, AllowUnixSockets: cfg.Sandbox.AllowUnixSockets})
	if err != nil {
		return pol, usage("sandbox.mode %s: %v", mode, err)
	}
	pol.Sandbox = sb
	return pol, nil
}

// sessionStore is the store the session's agent writes through: it masks
// key values in messages before they are stored, and stores each with the
// turn number the loop gives it (for rewind). It embeds the store itself,
// so that the optional interfaces the loop looks for (snapshots, usage
// with cost) stay visible.
type sessionStore struct {
	*persist.Store
	m *providers.Masker
}

// masked returns msgs with key values masked, in a copy.
func (s *sessionStore) masked(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, len(msgs))
	for i, msg := range msgs {
		out[i] = msg
		s.m.MaskStrings(&out[i])
	}
	return out
}

// AppendMessages implements loop.Store.
func (s *sessionStore) AppendMessages(id string, turn int, msgs ...providers.Message) error {
	return s.Store.AppendTurnMessages(id, turn, s.masked(msgs)...)
}

// SaveTurnEnd is the loop's one-commit turn end, masked and numbered like
// AppendMessages.
func (s *sessionStore) SaveTurnEnd(id string, turn int, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error {
	return s.Store.SaveTurnEndOf(id, turn, s.masked(msgs), apiCalls, u, costUSD)
}

// SaveSnapshot stores the compacted history masked like AppendMessages:
// it holds the user's kept messages again, and resume reads it.
func (s *sessionStore) SaveSnapshot(id string, msgs []providers.Message) error {
	return s.Store.SaveSnapshot(id, s.masked(msgs))
}
