//go:build !unix

package checkpoint

import "context"

// openNoBlock and openDirectory have no equivalent here: a plain open.
const (
	openNoBlock   = 0
	openDirectory = 0
)

// lock is a no-op where flock(2) is missing: a prune there must not run
// beside another talaria.
func (s *Store) lock(context.Context, bool) (func(), error) { return func() {}, nil }
