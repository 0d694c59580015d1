package app

import (
	"context"

	"talaria/loop/port"
)

// RewindPoints lists the current session's live turns, newest first, each
// with the files it changed ("created a.txt").
func (p *Screen) RewindPoints(ctx context.Context) ([]port.RewindPoint, error) {
	s, err := p.session()
	if err != nil {
		return nil, err
	}
	turns, err := SessionTurnFiles(ctx, s.Home, s.Store, s.Record.ID)
	if err != nil {
		return nil, err
	}
	var out []port.RewindPoint
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if !t.Live {
			continue
		}
		rp := port.RewindPoint{Turn: t.Turn, Input: t.Input}
		for _, ch := range t.Changes {
			rp.Files = append(rp.Files, ch.Kind+" "+ch.Path)
		}
		out = append(out, rp)
	}
	return out, nil
}

// Rewind takes the current session back to before req.Turn, in place:
// the files, the conversation or both.
func (p *Screen) Rewind(ctx context.Context, req port.RewindRequest) (port.RewindResult, error) {
	s, err := p.session()
	if err != nil {
		return port.RewindResult{}, err
	}
	rep, err := p.w.Rewind(ctx, RewindRequest{ToTurn: req.Turn, Code: req.Code, Conversation: req.Conversation, Force: req.Force})
	if err != nil {
		return port.RewindResult{}, err
	}
	res := port.RewindResult{Note: rep.Note}
	if f := rep.Files; f != nil {
		res.Restored, res.Untracked = len(f.Restored), f.Untracked
		for _, c := range f.Refused {
			res.Refused = append(res.Refused, c.Path)
		}
		for _, c := range f.Errors {
			res.Refused = append(res.Refused, c.Path+" ("+c.Reason+")")
		}
	}
	if req.Conversation {
		// The agent took the shortened history in place; the screen
		// shows it.
		v := s.View()
		res.Session = &v
	}
	return res, nil
}

// Diff is the current session's changes to the working tree so far.
func (p *Screen) Diff(ctx context.Context) (string, error) {
	s, err := p.session()
	if err != nil {
		return "", err
	}
	return SessionDiff(ctx, s.Home, s.Store, s.Record.ID)
}
