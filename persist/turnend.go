package persist

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// SaveTurnEnd saves what a turn's epilogue has left: its unsaved messages
// (as AppendMessages does) and the turn's model calls, usage and cost (as
// AddUsageCost does), in one transaction: one commit, durable when it
// returns. Nothing to save is a no-op.
func (s *Store) SaveTurnEnd(id string, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error {
	return s.SaveTurnEndOf(id, 0, msgs, apiCalls, u, costUSD)
}

// SaveTurnEndOf is SaveTurnEnd with the messages numbered as turn's (0:
// no turn number), as AppendTurnMessages numbers them.
func (s *Store) SaveTurnEndOf(id string, turn int, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error {
	now := time.Now()
	preps := make([]prepared, len(msgs))
	for i := range msgs {
		p, err := prepare(Entry{Message: msgs[i], Turn: turn}, now)
		if err != nil {
			return fmt.Errorf("encode message %d for session %s: %w", i, id, err)
		}
		preps[i] = p
	}
	if len(preps) == 0 && apiCalls == 0 && u == (providers.Usage{}) && costUSD == 0 {
		return nil
	}
	return s.update(func(tx *bolt.Tx) error {
		if len(preps) > 0 {
			if err := s.appendTx(tx, id, preps, now); err != nil {
				return err
			}
		}
		return s.addUsageTx(tx, id, apiCalls, u, costUSD)
	})
}

// addUsageTx adds model calls' accounting to the session inside a write
// transaction.
func (s *Store) addUsageTx(tx *bolt.Tx, id string, apiCalls int, u providers.Usage, costUSD float64) error {
	sess, err := s.getSession(tx, id, false)
	if err != nil {
		return err
	}
	sess.APICallCount += apiCalls
	sess.InputTokens += u.InputTokens
	sess.OutputTokens += u.OutputTokens
	sess.CacheReadTokens += u.CacheReadTokens
	sess.CacheWriteTokens += u.CacheWriteTokens
	sess.ReasoningTokens += u.ReasoningTokens
	sess.EstimatedCostUSD += costUSD
	sess.UpdatedAt = time.Now().UTC().Round(0)
	return s.putSession(tx, sess, false)
}
