package backup_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/store"
)

// The tests run on a real bbolt file (store) and its real structural check
// (store.CheckFile, in process: the files here never fault the checker).

func check(_ context.Context, path string) (appliance.DBCheck, error) { return store.CheckFile(path) }

func openStore(t *testing.T) (*store.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db, dir
}

// addAudit commits n audit rows, one transaction each.
func addAudit(t *testing.T, db *store.DB, n int) {
	t.Helper()
	for i := range n {
		_, err := db.AppendAudit(appliance.AuditEntry{Action: "test.write", TenantID: "t1", Params: map[string]string{"i": fmt.Sprint(i)}})
		must(t, err)
	}
}

func writer(db *store.DB) *backup.Writer {
	return &backup.Writer{DB: db, Check: check, Version: "v-test",
		Inputs: func(context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return []appliance.DataFile{{Name: "rio.lpk", SHA256: strings.Repeat("a", 64), Bytes: 10}},
				[]appliance.DataFile{{Name: "anatel.csv", SHA256: strings.Repeat("b", 64), Bytes: 20}}, nil
		}}
}

func TestWriteVerifyRestore(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	addAudit(t, db, 50)
	out := filepath.Join(t.TempDir(), "b.lpbackup")
	m, err := writer(db).Write(ctx, out, appliance.BackupTriggerCLI)
	must(t, err)
	if m.Format != appliance.BackupFormat || m.FormatVersion != 1 || m.Version != "v-test" || m.Schema != store.SchemaVersion() ||
		m.Trigger != "cli" || m.DB.Buckets["audit"] != 50 || len(m.DB.SHA256) != 64 || m.CreatedAt.IsZero() ||
		len(m.TerrainPacks) != 1 || len(m.TowerSources) != 1 {
		t.Fatalf("manifest %+v", m)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("scratch files left beside the backup: %v", ents)
	}
	if names := members(t, out); !slices.Equal(names, []string{"manifest.json", "linkplan.db"}) {
		t.Errorf("members %v", names)
	}
	got, err := backup.ReadManifest(out)
	must(t, err)
	if got.DB.SHA256 != m.DB.SHA256 || !got.CreatedAt.Equal(m.CreatedAt) {
		t.Errorf("ReadManifest %+v, Write returned %+v", got, m)
	}
	v, err := backup.Verify(ctx, out, t.TempDir(), check, store.SchemaVersion())
	must(t, err)
	if v.DB.SHA256 != m.DB.SHA256 {
		t.Errorf("Verify %+v", v)
	}
	// Restore into a directory with a database: the old one is kept.
	_, dir2 := openStoreClosed(t, 3)
	r, err := backup.Restore(ctx, out, filepath.Join(dir2, store.FileName), check, store.SchemaVersion(), time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	must(t, err)
	if r.Kept != filepath.Join(dir2, store.FileName+".before-restore-20300102T030405Z") {
		t.Errorf("kept %q", r.Kept)
	}
	if rep, err := store.CheckFile(r.Kept); err != nil || rep.Buckets["audit"] != 3 {
		t.Errorf("the kept file: %+v %v", rep, err)
	}
	db2, err := store.Open(dir2, store.Options{LockTimeout: 200 * time.Millisecond})
	must(t, err)
	defer db2.Close()
	rows, err := db2.Audit("t1", 1000)
	must(t, err)
	if len(rows) != 50 {
		t.Errorf("restored audit rows %d, want 50", len(rows))
	}
	if _, err := os.Stat(filepath.Join(dir2, store.FileName+backup.RestoreSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore copy left: %v", err)
	}
}

// openStoreClosed returns a closed data directory with n audit rows.
func openStoreClosed(t *testing.T, n int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	must(t, err)
	addAudit(t, db, n)
	must(t, db.Close())
	return filepath.Join(dir, store.FileName), dir
}

func members(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	tr := tar.NewReader(f)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		must(t, err)
		names = append(names, h.Name)
	}
}

// rewrite builds a backup file from a manifest and database bytes, with
// optional extra members.
func rewrite(t *testing.T, path string, m appliance.BackupManifest, db []byte, extra ...string) {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	man, _ := json.Marshal(m)
	put := func(name string, data []byte) {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(data)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(data)
		must(t, err)
	}
	put("manifest.json", man)
	put("linkplan.db", db)
	for _, e := range extra {
		put(e, []byte("x"))
	}
	must(t, tw.Close())
	must(t, os.WriteFile(path, b.Bytes(), 0o600))
}

// TestVerifyRefuses: every kind of bad file is refused with a reason, and
// a refused restore leaves the data directory as it was.
func TestVerifyRefuses(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	addAudit(t, db, 200)
	good := filepath.Join(t.TempDir(), "good.lpbackup")
	m, err := writer(db).Write(ctx, good, appliance.BackupTriggerCLI)
	must(t, err)
	var dbBytes []byte
	{
		d := t.TempDir()
		_, err := backup.Extract(ctx, good, filepath.Join(d, "x.db"), check, store.SchemaVersion())
		must(t, err)
		dbBytes, err = os.ReadFile(filepath.Join(d, "x.db"))
		must(t, err)
	}
	raw, err := os.ReadFile(good)
	must(t, err)
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	cases := []struct {
		name  string
		make  func(t *testing.T, path string)
		is    error
		wants []string
	}{
		{"a byte flipped in the database", func(t *testing.T, path string) {
			b := slices.Clone(raw)
			b[len(b)-3000] ^= 0x40 // inside the database member
			must(t, os.WriteFile(path, b, 0o600))
		}, appliance.ErrCorrupt, []string{"SHA-256", "damaged"}},
		{"cut short", func(t *testing.T, path string) {
			must(t, os.WriteFile(path, raw[:len(raw)/2], 0o600))
		}, appliance.ErrCorrupt, []string{"cut short"}},
		{"not a backup", func(t *testing.T, path string) {
			must(t, os.WriteFile(path, []byte("hello, this is not a tar file at all"), 0o600))
		}, appliance.ErrCorrupt, []string{"not a linkplan backup"}},
		{"a bare database file", func(t *testing.T, path string) {
			must(t, os.WriteFile(path, dbBytes, 0o600))
		}, appliance.ErrCorrupt, []string{"not a linkplan backup"}},
		{"newer schema", func(t *testing.T, path string) {
			m2 := m
			m2.Schema = store.SchemaVersion() + 2
			m2.Version = "v99.0.0"
			rewrite(t, path, m2, dbBytes)
		}, appliance.ErrNewerSchema, []string{fmt.Sprintf("schema version %d", store.SchemaVersion()+2), fmt.Sprintf("schema version %d", store.SchemaVersion()), "v99.0.0"}},
		{"newer backup format", func(t *testing.T, path string) {
			m2 := m
			m2.FormatVersion = 2
			rewrite(t, path, m2, dbBytes)
		}, appliance.ErrNewerSchema, []string{"format version 2"}},
		{"another format", func(t *testing.T, path string) {
			m2 := m
			m2.Format = "something-else"
			rewrite(t, path, m2, dbBytes)
		}, appliance.ErrCorrupt, []string{`format "something-else"`}},
		{"a member after the database", func(t *testing.T, path string) {
			rewrite(t, path, m, dbBytes, "evil.sh")
		}, appliance.ErrCorrupt, []string{"after the database"}},
		{"a structurally broken database with a matching hash", func(t *testing.T, path string) {
			b := slices.Clone(dbBytes)
			ps := 4096
			// zero the root page each meta page names (one of them is the
			// current root, always in use; a page from the middle of the
			// file was sometimes a free page, whose bytes no check reads)
			for _, meta := range []int{0, ps} {
				root := int(binary.LittleEndian.Uint64(b[meta+32:]))
				copy(b[root*ps:], make([]byte, ps))
			}
			m2 := m
			m2.DB.SHA256 = sum(b)
			rewrite(t, path, m2, b)
		}, appliance.ErrCorrupt, []string{"structural check"}},
		{"bucket counts differ from the manifest", func(t *testing.T, path string) {
			m2 := m
			m2.DB.Buckets = map[string]int{}
			for k, v := range m.DB.Buckets {
				m2.DB.Buckets[k] = v
			}
			m2.DB.Buckets["audit"] = 999
			rewrite(t, path, m2, dbBytes)
		}, appliance.ErrCorrupt, []string{"bucket audit holds 200 keys, the manifest says 999"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.lpbackup")
			c.make(t, path)
			_, err := backup.Verify(ctx, path, t.TempDir(), check, store.SchemaVersion())
			if !errors.Is(err, c.is) {
				t.Fatalf("Verify: %v, want %v", err, c.is)
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			// Restore refuses it and leaves the directory as it was.
			dbPath, dir := openStoreClosed(t, 7)
			before, err := os.ReadFile(dbPath)
			must(t, err)
			if _, err := backup.Restore(ctx, path, dbPath, check, store.SchemaVersion(), time.Now()); !errors.Is(err, c.is) {
				t.Fatalf("Restore: %v, want %v", err, c.is)
			}
			after, err := os.ReadFile(dbPath)
			must(t, err)
			if !bytes.Equal(before, after) {
				t.Error("a refused restore changed the database")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("a refused restore left files: %v", ents)
			}
		})
	}
}

// A backup interrupted by the stop (its context ends) leaves no file.
func TestWriteInterrupted(t *testing.T) {
	db, _ := openStore(t)
	addAudit(t, db, 10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := writer(db).Write(ctx, filepath.Join(dir, "b.lpbackup"), "cli"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}

// The schedule: files named by time, rotated to Keep, the status and
// metrics follow, and a new Service resumes from the newest file.
func TestScheduleRotationStatusMetrics(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	dir := filepath.Join(t.TempDir(), "backups")
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	clock := func() time.Time { return now }
	set := metrics.NewSet()
	w := writer(db)
	w.Now = clock
	s, err := backup.New(w, backup.Options{Dir: dir, Every: time.Hour, Keep: 2, Metrics: set, Now: clock})
	must(t, err)
	if st, why := s.Status().Freshness(now); st != appliance.BackupPending {
		t.Errorf("fresh service: %s %s", st, why)
	}
	// A stray file of another kind and a partial file of a crash.
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep me"), 0o600))
	for i := range 4 {
		addAudit(t, db, 1)
		m, err := s.RunScheduled(ctx)
		must(t, err)
		if m.DB.Buckets["audit"] != i+1 {
			t.Errorf("backup %d holds %d audit rows", i, m.DB.Buckets["audit"])
		}
		now = now.Add(time.Hour)
	}
	ents, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"linkplan-20300506T090809.000Z.lpbackup", "linkplan-20300506T100809.000Z.lpbackup", "notes.txt"}
	if !slices.Equal(names, want) {
		t.Errorf("after 4 backups with keep 2: %v, want %v", names, want)
	}
	st := s.Status()
	if st.LastSuccess != time.Date(2030, 5, 6, 10, 8, 9, 0, time.UTC) || st.LastError != "" || st.LastBytes == 0 {
		t.Errorf("status %+v", st)
	}
	if f, why := st.Freshness(now); f != appliance.BackupFresh {
		t.Errorf("freshness %s %s", f, why)
	}
	var b bytes.Buffer
	set.WritePrometheus(&b)
	for _, line := range []string{
		`linkplan_backups_total{trigger="scheduled",result="ok"} 4`,
		`linkplan_backups_total{trigger="route",result="failed"} 0`,
		`linkplan_backup_age_seconds 3600.000`,
		`linkplan_backup_last_ok 1`,
		`linkplan_backup_last_success_timestamp_seconds 1904292489.000`,
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("metrics lack %q:\n%s", line, b.String())
		}
	}
	// A failure is reported: a directory stands where the scratch copy
	// of the next backup goes.
	blocker := filepath.Join(dir, ".linkplan-"+now.UTC().Format("20060102T150405.000Z")+".lpbackup.db.partial")
	must(t, os.Mkdir(blocker, 0o700))
	if _, err := s.RunScheduled(ctx); err == nil {
		t.Fatal("a backup whose scratch file cannot be created succeeded")
	}
	if f, why := s.Status().Freshness(now); f != appliance.BackupFailed || !strings.Contains(why, "file exists") {
		t.Errorf("after a failure: %s %s", f, why)
	}
	b.Reset()
	set.WritePrometheus(&b)
	for _, line := range []string{`linkplan_backups_total{trigger="scheduled",result="failed"} 1`, `linkplan_backup_last_ok 0`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}
	must(t, os.Remove(blocker))
	// A new service resumes from the newest file.
	later := now.Add(90 * time.Minute)
	s2, err := backup.New(w, backup.Options{Dir: dir, Every: time.Hour, Keep: 2, Now: func() time.Time { return later }})
	must(t, err)
	if got := s2.Status().LastSuccess; got != time.Date(2030, 5, 6, 10, 8, 9, 0, time.UTC) {
		t.Errorf("resumed last success %v", got)
	}
	if f, _ := s2.Status().Freshness(later.Add(time.Hour)); f != appliance.BackupStale {
		t.Errorf("3.5 h after the newest with every 1 h: %s, want stale", f)
	}
}

// Take returns a verified backup whose file has no name left.
func TestTake(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	addAudit(t, db, 5)
	scratch := t.TempDir()
	s, err := backup.New(writer(db), backup.Options{Scratch: scratch, Audit: db.AppendAudit})
	must(t, err)
	f, err := s.Take(ctx, appliance.BackupTriggerRoute, &appliance.AuditEntry{Action: "admin.backup", TenantID: "admin", Params: map[string]string{"justification": "monthly"}})
	must(t, err)
	if ents, _ := os.ReadDir(scratch); len(ents) != 0 {
		t.Errorf("Take left %v", ents)
	}
	out := filepath.Join(t.TempDir(), "x.lpbackup")
	o, err := os.Create(out)
	must(t, err)
	n, err := io.Copy(o, f.Body)
	must(t, errors.Join(err, o.Close(), f.Body.Close()))
	if n != f.Bytes || f.Manifest.Trigger != "route" {
		t.Errorf("%d bytes of %d; manifest %+v", n, f.Bytes, f.Manifest)
	}
	if _, err := backup.Verify(ctx, out, "", check, store.SchemaVersion()); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Audit("admin", 10)
	must(t, err)
	if len(rows) != 1 || rows[0].Action != "admin.backup" || rows[0].Params["db_sha256"] != f.Manifest.DB.SHA256 ||
		rows[0].Params["justification"] != "monthly" || rows[0].Params["trigger"] != "route" {
		t.Errorf("audit %+v", rows)
	}
}

func TestFreshness(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	base := appliance.BackupStatus{Scheduled: true, Every: time.Hour, Keep: 3, Since: t0}
	cases := []struct {
		name string
		mod  func(*appliance.BackupStatus)
		at   time.Duration
		want string
	}{
		{"none yet, just started", func(*appliance.BackupStatus) {}, time.Minute, appliance.BackupPending},
		{"none after two intervals", func(*appliance.BackupStatus) {}, 2*time.Hour + time.Second, appliance.BackupStale},
		{"fresh", func(s *appliance.BackupStatus) { s.LastSuccess = t0 }, 90 * time.Minute, appliance.BackupFresh},
		{"stale", func(s *appliance.BackupStatus) { s.LastSuccess = t0 }, 121 * time.Minute, appliance.BackupStale},
		{"failed", func(s *appliance.BackupStatus) { s.LastSuccess = t0; s.LastError = "disk full" }, time.Minute, appliance.BackupFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.mod(&s)
			if got, why := s.Freshness(t0.Add(c.at)); got != c.want || (got != appliance.BackupFresh && why == "") {
				t.Errorf("%s (%q), want %s", got, why, c.want)
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
