package app

import "talaria/providers"

// StoredUsage is the tokens the session's model calls used so far, as the
// store counts them (every settled turn, rewound ones included: their
// calls were paid for): what the screen of a resumed, rewound or
// switched-to session counts on from. Zero for a session without a store
// (the tour); the record read at open when the store cannot be read.
func (s *Session) StoredUsage() providers.Usage {
	if s == nil || s.Record == nil {
		return providers.Usage{}
	}
	rec := s.Record
	if s.Store != nil {
		if fresh, err := s.Store.GetSession(rec.ID); err == nil {
			rec = fresh
		}
	}
	return providers.Usage{InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
		CacheReadTokens: rec.CacheReadTokens, CacheWriteTokens: rec.CacheWriteTokens, ReasoningTokens: rec.ReasoningTokens}
}
