package persist

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// bboltVerified lists the bbolt releases whose meta page layout readMeta
// was checked against. Upgrading bbolt fails this test until the layout
// (bbolt's internal/common/meta.go) is checked again and the version added.
var bboltVerified = []string{"v1.5.0"}

// precheck parses bbolt's private meta page; this pins that parse to what
// bbolt itself reports, for the bbolt version the module builds with.
func TestPrecheckMetaLayoutMatchesBbolt(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	version := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "go.etcd.io/bbolt" {
			version = f[1]
		}
	}
	if !slices.Contains(bboltVerified, version) {
		t.Fatalf("bbolt %q: readMeta is verified for %v only; check the meta layout and add the version", version, bboltVerified)
	}
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // a few commits, so both meta pages are written
		if err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte{byte(i)}, make([]byte, 3000))
		}); err != nil {
			t.Fatal(err)
		}
	}
	var txid int
	var size int64
	if err := db.View(func(tx *bolt.Tx) error { txid, size = tx.ID(), tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	pageSize := db.Info().PageSize
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, ok := readMeta(f)
	if !ok {
		t.Fatal("readMeta found no valid meta page in a fresh bbolt file")
	}
	if int(m.pageSize) != pageSize || int(m.txid) != txid || int64(m.pgid)*int64(m.pageSize) != size {
		t.Fatalf("readMeta = %+v; bbolt says page size %d, txid %d, size %d", m, pageSize, txid, size)
	}
}
