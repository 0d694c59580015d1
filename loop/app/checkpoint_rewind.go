package app

import (
	"context"
	"errors"
	"fmt"

	"talaria/persist"
	"talaria/persist/checkpoint"
)

// RewindRequest says what to take back: the session as it was before turn
// ToTurn began, its files (Code), its conversation, or both.
type RewindRequest struct {
	ToTurn       int
	Code         bool
	Conversation bool
	// Force overwrites files changed outside talaria since it last
	// recorded them (otherwise they are refused and listed).
	Force bool
}

// RewindReport is what a rewind did.
type RewindReport struct {
	// Files is the code rewind's report (nil when code was not rewound
	// or there was nothing to restore).
	Files *checkpoint.Report `json:"files,omitempty"`
	// Record is the rewind as stored with the session.
	Record persist.Rewind `json:"record"`
	// Note explains a code rewind with nothing to do.
	Note string `json:"note,omitempty"`
}

// OK reports whether everything tracked was restored.
func (r *RewindReport) OK() bool { return r.Files == nil || r.Files.OK() }

// TurnFiles is one turn with the files it created, changed or deleted.
type TurnFiles struct {
	persist.TurnInfo
	Changes []checkpoint.Change `json:"changes"`
	// Pruned is set when the turn's checkpoints are no longer in the
	// store (`talaria checkpoints prune`, or the limits at session open):
	// its changes are unknown and its files cannot be rewound.
	Pruned bool `json:"pruned,omitempty"`
}

// errPruned explains a code rewind to a checkpoint no longer stored.
func errPruned(id string, err error) error {
	if errors.Is(err, checkpoint.ErrNoCheckpoint) {
		return fmt.Errorf("the checkpoints of session %s were pruned (checkpoints.keep_sessions, checkpoints.max_bytes, `talaria checkpoints prune`): its files cannot be rewound; --conversation still can be: %w", id, err)
	}
	return err
}

// Rewind takes session id back to before turn req.ToTurn, as `talaria
// rewind` and the TUI's /rewind and /undo do. The session must not be
// running a turn (the caller checks). Turns keep their numbers: the next
// turn after a conversation rewind is ToTurn again.
func Rewind(ctx context.Context, home string, st *persist.Store, id string, req RewindRequest) (*RewindReport, error) {
	turns, err := st.Turns(id)
	if err != nil {
		return nil, err
	}
	last := 0
	for _, t := range turns {
		if t.Live {
			last = max(last, t.Turn)
		}
	}
	if req.ToTurn < 1 || req.ToTurn > last {
		if last == 0 {
			return nil, fmt.Errorf("session %s has no turns to rewind", id)
		}
		return nil, fmt.Errorf("turn %d: session %s has turns 1 to %d", req.ToTurn, id, last)
	}
	rep := &RewindReport{}
	rec := persist.Rewind{ToTurn: req.ToTurn, Code: req.Code, Conversation: req.Conversation}
	if req.Code {
		files, note, err := restoreCode(ctx, home, st, id, turns, req)
		if err != nil {
			return nil, err
		}
		rep.Files, rep.Note = files, note
		if files != nil {
			rec.Restored, rec.Untracked, rec.Saved = files.Restored, files.Untracked, files.Saved
			for _, c := range files.Refused {
				rec.Refused = append(rec.Refused, c.Path)
			}
		}
	}
	if rep.Record, err = st.RecordRewind(id, rec); err != nil {
		return rep, err
	}
	return rep, nil
}

// restoreCode restores the tree to the first checkpoint taken in turn
// ToTurn or later, undoing what happened up to the newest state talaria
// recorded, and records the tree it leaves.
func restoreCode(ctx context.Context, home string, st *persist.Store, id string, turns []persist.TurnInfo, req RewindRequest) (*checkpoint.Report, string, error) {
	var target *persist.CheckpointRecord
	for i := range turns {
		if !turns[i].Live || turns[i].Turn < req.ToTurn {
			continue
		}
		for j := range turns[i].Checkpoints {
			if c := &turns[i].Checkpoints[j]; c.Kind == persist.CheckpointBefore && (target == nil || c.Seq < target.Seq) {
				target = c
			}
		}
	}
	if target == nil {
		return nil, fmt.Sprintf("no files were changed since turn %d began: nothing to restore", req.ToTurn), nil
	}
	all, err := st.Checkpoints(id)
	if err != nil {
		return nil, "", err
	}
	cps := checkpoint.Open(home)
	// Held while restoring and recording: a prune cannot come between.
	release, err := cps.Hold(ctx)
	if err != nil {
		return nil, "", err
	}
	defer release()
	want, err := cps.Load(target.ID)
	if err != nil {
		return nil, "", errPruned(id, err)
	}
	// The newest state recorded of the same directory (a session resumed
	// elsewhere checkpoints another tree).
	var latest *checkpoint.Manifest
	for i := len(all) - 1; i >= 0 && latest == nil; i-- {
		m, err := cps.Load(all[i].ID)
		if errors.Is(err, checkpoint.ErrNoCheckpoint) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if m.Root == want.Root {
			latest = m
		}
	}
	files, err := cps.Restore(ctx, want, latest, req.Force)
	if err != nil {
		return nil, "", err
	}
	// What the tree is now is talaria's doing: the next rewind starts here.
	now, err := cps.Take(ctx, want.Root)
	if err == nil {
		err = st.AddCheckpoint(id, persist.CheckpointRecord{Kind: persist.CheckpointRestored, ID: now.ID})
	}
	if err != nil {
		return files, "", fmt.Errorf("recording the restored tree: %w", err)
	}
	return files, "", nil
}

// SessionTurnFiles lists the session's turns with the files each created,
// changed or deleted: from the turn's first checkpoint to the next state
// recorded after it (its closing checkpoint), or the tree as it is now.
func SessionTurnFiles(ctx context.Context, home string, st *persist.Store, id string) ([]TurnFiles, error) {
	turns, err := st.Turns(id)
	if err != nil {
		return nil, err
	}
	all, err := st.Checkpoints(id)
	if err != nil {
		return nil, err
	}
	cps := checkpoint.Open(home)
	// Consecutive turns share checkpoints (one's closing is the next's
	// first when nothing happened between): load each once.
	loaded := map[string]*checkpoint.Manifest{}
	load := func(id string) (*checkpoint.Manifest, error) {
		if m, ok := loaded[id]; ok {
			return m, nil
		}
		m, err := cps.Load(id)
		if err == nil {
			loaded[id] = m
		}
		return m, err
	}
	var now *checkpoint.Manifest
	out := make([]TurnFiles, 0, len(turns))
	for _, t := range turns {
		tf := TurnFiles{TurnInfo: t, Changes: []checkpoint.Change{}}
		if len(t.Checkpoints) > 0 {
			first, lastSeq := t.Checkpoints[0], t.Checkpoints[len(t.Checkpoints)-1].Seq
			afterID := ""
			if t.Checkpoints[len(t.Checkpoints)-1].Kind == persist.CheckpointAfter {
				afterID = t.Checkpoints[len(t.Checkpoints)-1].ID
			} else {
				for _, c := range all {
					if c.Seq > lastSeq {
						afterID = c.ID
						break
					}
				}
			}
			a, err := load(first.ID)
			if errors.Is(err, checkpoint.ErrNoCheckpoint) {
				tf.Pruned = true
				out = append(out, tf)
				continue
			}
			if err != nil {
				return nil, err
			}
			var b *checkpoint.Manifest
			if afterID != "" {
				if b, err = load(afterID); errors.Is(err, checkpoint.ErrNoCheckpoint) {
					tf.Pruned = true
					out = append(out, tf)
					continue
				}
			} else {
				if now == nil {
					now, err = cps.Take(ctx, a.Root)
				}
				b = now
			}
			if err != nil {
				return nil, err
			}
			tf.Changes = checkpoint.Changes(a, b)
		}
		out = append(out, tf)
	}
	return out, nil
}

// SessionDiff is the unified diff of what the session did to the working
// tree so far: from its first checkpoint to the tree as it is now ("" when
// it took none).
func SessionDiff(ctx context.Context, home string, st *persist.Store, id string) (string, error) {
	all, err := st.Checkpoints(id)
	if err != nil || len(all) == 0 {
		return "", err
	}
	cps := checkpoint.Open(home)
	first, err := cps.Load(all[0].ID)
	if err != nil {
		return "", errPruned(id, err)
	}
	now, err := cps.Take(ctx, first.Root)
	if err != nil {
		return "", err
	}
	return cps.Diff(first, now)
}
