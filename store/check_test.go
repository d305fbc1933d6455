package store_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/store"
)

// fillObservations stores n observations of one tenant in batches of 1,000
// (one transaction each, as POST /coverage/observations/batch does).
func fillObservations(tb testing.TB, db *store.DB, tenant string, n int, seed uint64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 21))
	for done := 0; done < n; {
		m := min(1000, n-done)
		rows := make([]appliance.Observation, m)
		keys := make([]string, m)
		for i := range rows {
			rows[i] = appliance.Observation{ID: fmt.Sprintf("obs_%016x", rng.Uint64()), TenantID: tenant, SubmittedBy: "k1",
				TxLat: -22.9 + rng.Float64()/10, TxLon: -43.2 + rng.Float64()/10, TxHeightM: 30, TxPowerDBm: 43, TxGainDBi: 15,
				RxLat: -22.9 + rng.Float64()/10, RxLon: -43.2 + rng.Float64()/10, RxHeightM: 1.5, FreqHz: 1.8e9,
				ObservedDBm: -60 - 40*rng.Float64(), Source: "api", TsUnix: 1.7e9 + float64(done+i), Weight: 1, IngestedAt: 1.7e9, Metric: "received_power"}
			keys[i] = rows[i].ID
		}
		if _, err := db.PutObservations(tenant, appliance.KindLinkObservation, rows, keys, nil,
			appliance.AuditEntry{Action: "observations.batch", TenantID: tenant, ActorKey: "k1"}); err != nil {
			tb.Fatal(err)
		}
		done += m
	}
}

// filledStore returns a closed data directory holding n observations.
func filledStore(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	fillObservations(tb, db, "t1", n, 1)
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func TestCheckFileSound(t *testing.T) {
	dir := filledStore(t, 3000)
	rep, err := store.CheckFile(filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("problems in a sound file: %v", rep.Problems)
	}
	if rep.Schema != store.SchemaVersion() {
		t.Errorf("schema %d, want %d", rep.Schema, store.SchemaVersion())
	}
	if rep.Buckets["link_observations"] != 3000 {
		t.Errorf("link_observations holds %d keys, want 3000 (buckets %v)", rep.Buckets["link_observations"], rep.Buckets)
	}
	if rep.Pages < 4 || rep.PageSize == 0 || rep.Bytes < rep.Pages*int64(rep.PageSize) {
		t.Errorf("geometry %+v", rep)
	}
}

// corruptions damage a database file in the ways of issue 21's acceptance
// (truncated, a damaged page, a wrong magic), each of which the in-process
// check survives; random garbage in a branch page can make bbolt's checker
// fault on a wild page address, which only the child-process check of
// appliance/cmd/linkplan survives (TestIssue21_CorruptDatabaseRefusedAtStart).
var corruptions = []struct {
	name string
	fn   func(t *testing.T, path string, pageSize int64, pages int64)
	want string // in the error or one of the problems
}{
	{"truncated to half", func(t *testing.T, path string, ps, pages int64) {
		must(t, os.Truncate(path, (pages/2)*ps))
	}, "truncated"},
	{"truncated inside the meta pages", func(t *testing.T, path string, ps, _ int64) {
		must(t, os.Truncate(path, ps+100))
	}, "shorter than its two meta pages"},
	{"empty file", func(t *testing.T, path string, _, _ int64) {
		must(t, os.Truncate(path, 0))
	}, "too short to hold a database"},
	{"wrong magic in meta page 0", func(t *testing.T, path string, _, _ int64) {
		writeAt(t, path, 16, []byte{0xde, 0xad, 0xbe, 0xef})
	}, "meta page 0: wrong magic"},
	{"wrong magic in meta page 1", func(t *testing.T, path string, ps, _ int64) {
		writeAt(t, path, ps+16, []byte{0xde, 0xad, 0xbe, 0xef})
	}, "meta page 1: wrong magic"},
	{"flipped bit in meta page 1", func(t *testing.T, path string, ps, _ int64) {
		b := readAt(t, path, ps+60, 1)
		writeAt(t, path, ps+60, []byte{b[0] ^ 0x10})
	}, "meta page 1: checksum mismatch"},
	{"zeroed leaf page", func(t *testing.T, path string, ps, _ int64) {
		writeAt(t, path, inUse(t, path, "leaf")*ps, make([]byte, ps))
	}, ""},
	{"page from elsewhere in the file", func(t *testing.T, path string, ps, _ int64) {
		// A torn copy: a branch page holds a leaf page's bytes.
		writeAt(t, path, inUse(t, path, "branch")*ps, readAt(t, path, inUse(t, path, "leaf")*ps, int(ps)))
	}, ""},
	{"text over the file's start", func(t *testing.T, path string, _, _ int64) {
		writeAt(t, path, 0, bytes.Repeat([]byte("not a database "), 20))
	}, "wrong magic"},
}

// TestCheckFileCorrupt: a damaged file is never reported sound.
func TestCheckFileCorrupt(t *testing.T) {
	src := filledStore(t, 6000)
	good := filepath.Join(src, store.FileName)
	rep, err := store.CheckFile(good)
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("the source is not sound: %v %v", err, rep.Problems)
	}
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "linkplan.db")
			copyFile(t, good, path)
			c.fn(t, path, int64(rep.PageSize), rep.Pages)
			got, err := store.CheckFile(path)
			if err == nil && len(got.Problems) == 0 {
				t.Fatalf("a damaged file is reported sound: %+v", got)
			}
			if err != nil && !errors.Is(err, appliance.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			all := fmt.Sprint(err, got.Problems)
			if !strings.Contains(all, c.want) {
				t.Errorf("report %q does not say %q", all, c.want)
			}
			t.Logf("%s: %s", c.name, all)
		})
	}
}

// A snapshot taken while writers commit is a sound database that holds
// every transaction committed before it began, and its bucket counts are
// those of the file it was taken in.
func TestSnapshotWhileWriting(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fillObservations(t, db, "t1", 2000, 2)
	var (
		wg        sync.WaitGroup
		stop      atomic.Bool
		committed atomic.Int64 // audit rows committed so far
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if _, err := db.AppendAudit(appliance.AuditEntry{Action: "test.write", TenantID: "t1", Params: map[string]string{"i": fmt.Sprint(i)}}); err != nil {
				t.Error(err)
				return
			}
			committed.Add(1)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	for i := range 5 {
		before := committed.Load()
		path := filepath.Join(t.TempDir(), fmt.Sprintf("snap%d.db", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		snap, err := db.Snapshot(io.MultiWriter(f, h))
		must(t, errors.Join(err, f.Close()))
		rep, err := store.CheckFile(path)
		if err != nil || len(rep.Problems) != 0 {
			t.Fatalf("snapshot %d: %v %v", i, err, rep.Problems)
		}
		st, _ := os.Stat(path)
		if st.Size() != snap.Bytes || snap.Schema != store.SchemaVersion() || snap.TxID != rep.TxID {
			t.Errorf("snapshot %d: %+v; file %d bytes, check %+v", i, snap, st.Size(), rep)
		}
		for name, n := range snap.Buckets {
			if rep.Buckets[name] != n {
				t.Errorf("snapshot %d: bucket %s: %d keys in the snapshot, %d in the file", i, name, n, rep.Buckets[name])
			}
		}
		// 2,000 observation batches wrote 2 audit rows; every write
		// acknowledged before the snapshot began is in it.
		if got := int64(snap.Buckets["audit"]); got < before+2 {
			t.Errorf("snapshot %d holds %d audit rows; %d were committed before it began", i, got, before+2)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Opening a file of a newer schema names both versions and matches
// appliance.ErrNewerSchema; the file is left as it was.
func TestOpenNewerSchemaNamesBothVersions(t *testing.T) {
	dir := filledStore(t, 10)
	newer := store.SchemaVersion() + 3
	setSchema(t, dir, newer)
	before := readAt(t, filepath.Join(dir, store.FileName), 0, 4096*4)
	_, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	if !errors.Is(err, appliance.ErrNewerSchema) {
		t.Fatalf("err %v, want ErrNewerSchema", err)
	}
	for _, want := range []string{fmt.Sprintf("schema version %d", newer), fmt.Sprintf("schema version %d", store.SchemaVersion())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if after := readAt(t, filepath.Join(dir, store.FileName), 0, 4096*4); !bytes.Equal(before, after) {
		t.Error("the refused file was changed")
	}
}

// BeforeMigrate runs once, with both versions, before an older file is
// migrated; its error stops Open with the file unmigrated; a new file and
// a current one do not call it.
func TestBeforeMigrate(t *testing.T) {
	dir := filledStore(t, 10)
	setSchema(t, dir, 8)
	var calls [][2]int
	hook := func(db *store.DB, from, to int) error {
		calls = append(calls, [2]int{from, to})
		if v, err := db.Version(); err != nil || v != from {
			t.Errorf("the hook sees version %d, %v; want %d", v, err, from)
		}
		return errors.New("disk full")
	}
	if _, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, BeforeMigrate: hook}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("open: %v", err)
	}
	db, err := store.Open(dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := db.Version(); v != 8 {
		t.Errorf("version %d after a refused migration, want 8", v)
	}
	must(t, db.Close())
	hook = func(_ *store.DB, from, to int) error { calls = append(calls, [2]int{from, to}); return nil }
	db, err = store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, BeforeMigrate: hook})
	must(t, err)
	must(t, db.Close())
	db, err = store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, BeforeMigrate: hook})
	must(t, err)
	must(t, db.Close())
	db, err = store.Open(t.TempDir(), store.Options{LockTimeout: 200 * time.Millisecond, BeforeMigrate: hook})
	must(t, err)
	must(t, db.Close())
	want := [][2]int{{8, store.SchemaVersion()}, {8, store.SchemaVersion()}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// A read-only open shares the file with other readers, fails fast against
// a writer, and does not migrate.
func TestOpenReadOnly(t *testing.T) {
	dir := filledStore(t, 10)
	setSchema(t, dir, store.SchemaVersion()+1)
	ro, err := store.Open(dir, store.Options{ReadOnly: true, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ro.Version(); v != store.SchemaVersion()+1 {
		t.Errorf("version %d", v)
	}
	var buf bytes.Buffer
	if _, err := ro.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	must(t, ro.Close())
	setSchema(t, dir, store.SchemaVersion())
	rw, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	must(t, err)
	defer rw.Close()
	if _, err := store.Open(dir, store.Options{ReadOnly: true, LockTimeout: 100 * time.Millisecond}); !errors.Is(err, store.ErrLocked) {
		t.Errorf("read-only open beside a writer: %v, want ErrLocked", err)
	}
	if _, err := store.CheckFile(filepath.Join(dir, store.FileName)); !errors.Is(err, store.ErrLocked) {
		t.Errorf("check beside a writer: %v, want ErrLocked", err)
	}
}

// A restore renames a new file over the database while an opener waits
// for the old file's lock: the opener must end up on the new file.
func TestOpenFollowsARenamedFile(t *testing.T) {
	dir := filledStore(t, 10)
	path := filepath.Join(dir, store.FileName)
	// Hold the old file's lock as linkplan restore does.
	old, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	must(t, err)
	repl := filepath.Join(t.TempDir(), "new")
	fresh := filledStore(t, 25)
	copyFile(t, filepath.Join(fresh, store.FileName), repl)
	type res struct {
		db  *store.DB
		err error
	}
	done := make(chan res, 1)
	go func() {
		db, err := store.Open(dir, store.Options{LockTimeout: 5 * time.Second})
		done <- res{db, err}
	}()
	time.Sleep(200 * time.Millisecond) // the opener waits for the lock
	copyFile(t, repl, path+".restore")
	must(t, os.Rename(path+".restore", path))
	must(t, old.Close())
	r := <-done
	must(t, r.err)
	defer r.db.Close()
	n, err := r.db.ObservationCounts("t1")
	must(t, err)
	if n.LinkObservations != 25 {
		t.Errorf("the opener sees %d observations: it opened the replaced file (want the new one's 25)", n.LinkObservations)
	}
}

func setSchema(t *testing.T, dir string, v int) {
	t.Helper()
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second})
	must(t, err)
	err = b.Update(func(tx *bolt.Tx) error {
		var raw [8]byte
		binary.BigEndian.PutUint64(raw[:], uint64(v))
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), raw[:])
	})
	must(t, errors.Join(err, b.Close()))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, b, 0o600))
}

func writeAt(t testing.TB, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	_, err = f.WriteAt(b, off)
	must(t, errors.Join(err, f.Close()))
}

func readAt(t testing.TB, path string, off int64, n int) []byte {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	b := make([]byte, n)
	k, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return b[:k]
}

// BenchmarkCheckFile measures the start-up check on a realistic database:
// 1,000,000 link observations (1,000 batches of 1,000 with their dedup
// keys, counts and audit rows), about half a gigabyte. The file is built
// once per run (about a minute). Run:
//
//	go test ./store -run '^$' -bench CheckFile -benchtime 3x
func BenchmarkCheckFile(b *testing.B) {
	dir := filledStore(b, benchObservations)
	path := filepath.Join(dir, store.FileName)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rep, err := store.CheckFile(path)
		if err != nil || len(rep.Problems) != 0 {
			b.Fatal(err, rep.Problems)
		}
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
}

// benchObservations is the size of BenchmarkCheckFile's database.
const benchObservations = 1_000_000

// inUse returns the middle page of kind (branch, leaf) among the pages in
// use of the database at path: damaging a free page damages nothing.
func inUse(t *testing.T, path, kind string) int64 {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	must(t, err)
	defer b.Close()
	var ids []int64
	err = b.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if err != nil || p == nil {
				return err
			}
			if p.Type == kind {
				ids = append(ids, int64(id))
			}
			if p.Type != "free" {
				id += p.OverflowCount
			}
		}
	})
	must(t, err)
	if len(ids) == 0 {
		t.Fatalf("no %s page in %s", kind, path)
	}
	return ids[len(ids)/2]
}
