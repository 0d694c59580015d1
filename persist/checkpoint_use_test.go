package persist

import (
	"reflect"
	"testing"
	"time"
)

func TestCheckpointUsesNamesRecordsAndSavedTrees(t *testing.T) {
	s := tempStore(t)
	a := mustCreate(t, s, &Session{Cwd: "/p"})
	b := mustCreate(t, s, &Session{Cwd: "/p"})
	mustCreate(t, s, &Session{Cwd: "/p"}) // no checkpoints: not listed
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []string{"c1", "c2", "c1"} {
		if err := s.AddCheckpoint(a.ID, CheckpointRecord{Turn: 1, Kind: CheckpointBefore, ID: id, At: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordRewind(a.ID, Rewind{ToTurn: 1, Code: true, Saved: "c3", At: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCheckpoint(b.ID, CheckpointRecord{Turn: 1, Kind: CheckpointBefore, ID: "c9", At: at}); err != nil {
		t.Fatal(err)
	}
	uses, err := s.CheckpointUses()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]CheckpointUse{}
	for _, u := range uses {
		got[u.SessionID] = u
	}
	if len(got) != 2 || !reflect.DeepEqual(got[a.ID].IDs, []string{"c1", "c2", "c3"}) || !got[a.ID].Last.Equal(at.Add(time.Hour)) ||
		!reflect.DeepEqual(got[b.ID].IDs, []string{"c9"}) {
		t.Fatalf("uses: %+v", uses)
	}
}
