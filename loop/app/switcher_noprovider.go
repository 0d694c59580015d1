package app

import (
	"context"
	"errors"
	"slices"
	"strings"

	"talaria/loop/config"
	"talaria/persist"
)

// ErrNoStore is the offline tour, which saves nothing.
var ErrNoStore = errors.New("the offline tour saves no sessions")

// Store is the session store: the current session's, or, when no session
// could open (no provider configured yet), the home's own, so that the
// screen can still list and search past sessions.
func (w *Switcher) Store() (*persist.Store, error) {
	if s := w.Current(); s != nil {
		if s.Store == nil {
			return nil, ErrNoStore
		}
		return s.Store, nil
	}
	return OpenStore(Home(w.flags.Home))
}

// ChooseModel is /model: it moves the current session to spec, or, when
// no session is open yet (no provider was configured), opens one with
// spec's provider and model, so a provider can be picked from the screen.
func (w *Switcher) ChooseModel(ctx context.Context, spec string) (config.Backend, error) {
	if w.Current() != nil {
		return w.SetModel(ctx, spec)
	}
	f := w.flags
	f.Continue, f.Resume = false, ""
	f.Overrides.Model = spec
	if p, name, ok := strings.Cut(spec, "/"); ok && slices.Contains(config.Providers(), p) {
		f.Overrides.Provider, f.Overrides.Model = p, name
	} else if slices.Contains(config.Providers(), spec) {
		f.Overrides.Provider, f.Overrides.Model = spec, ""
	}
	s, err := w.Switch(f)
	if err != nil {
		return config.Backend{}, err
	}
	return s.Backend, nil
}
