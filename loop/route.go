package loop

import (
	"fmt"
	"sync"

	"talaria/providers"
)

// router picks the backend and credential for each attempt: the fallback
// chain's current backend and its pool's current key, with one transport
// built per (backend, key) and reused.
type router struct {
	chain   *providers.FallbackChain
	factory func(b providers.Backend, key string) (Transport, error)
	fixed   Transport // tests and the demo: one transport, no chain

	mu    sync.Mutex
	cache map[string]Transport
}

func newRouter(o Options) *router {
	r := &router{chain: o.Chain, factory: o.NewTransport, fixed: o.Transport, cache: map[string]Transport{}}
	if r.chain == nil {
		r.chain = providers.NewFallbackChain(providers.Backend{Provider: o.Provider, Model: o.Model}, nil)
	}
	return r
}

// transport returns the transport of the current backend and key.
func (r *router) transport() (Transport, string, error) {
	b := r.chain.Current()
	key, ok := r.chain.Pool().Current()
	if !ok {
		return nil, "", fmt.Errorf("every API key of %s is exhausted or invalid", b.Provider)
	}
	if r.fixed != nil && r.chain.Index() == 0 {
		return r.fixed, key, nil
	}
	if r.factory == nil {
		return nil, key, fmt.Errorf("no transport for %s/%s", b.Provider, b.Model)
	}
	id := fmt.Sprintf("%d/%s", r.chain.Index(), key)
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.cache[id]; ok {
		return t, key, nil
	}
	t, err := r.factory(b, key)
	if err != nil {
		return nil, key, err
	}
	r.cache[id] = t
	return t, key, nil
}

func (r *router) backend() providers.Backend { return r.chain.Current() }
