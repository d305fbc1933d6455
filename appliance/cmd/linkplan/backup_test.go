//go:build systemtools

package main_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	be "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/store"
)

// The tests of issue 21's backup, restore, start-up check, upgrade and
// clean-stop slices, on the real binary.

// storeDir returns a closed data directory whose database holds n link
// observations (batches of 500, one transaction each, as the batch route
// writes them): a file of many branch, leaf and free pages.
func storeDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 21))
	for done := 0; done < n; done += 500 {
		rows := make([]appliance.Observation, 500)
		keys := make([]string, 500)
		for i := range rows {
			rows[i] = appliance.Observation{ID: fmt.Sprintf("obs_%016x", rng.Uint64()), TenantID: "t_drill", SubmittedBy: "k",
				TxLat: -22.95, TxLon: -43.23, TxHeightM: 40, TxPowerDBm: 43, RxLat: -22.9 - rng.Float64()/10, RxLon: -43.2,
				FreqHz: 7e8, ObservedDBm: -80, Source: "api", TsUnix: 1.77e9 + float64(done+i), Weight: 1, Metric: "received_power"}
			keys[i] = rows[i].ID
		}
		if _, err := db.PutObservations("t_drill", appliance.KindLinkObservation, rows, keys, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pagesInUse lists the pages of the database at path that hold data
// (branch, leaf and freelist pages; not free ones, and not the overflow
// continuations of a page), by type.
func pagesInUse(t *testing.T, path string) map[string][]int {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string][]int{}
	err = b.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if err != nil {
				return err
			}
			if p == nil {
				return nil
			}
			if p.Type != "free" {
				out[p.Type] = append(out[p.Type], id)
				id += p.OverflowCount
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func patch(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestIssue21_CorruptDatabaseRefusedAtStart: a truncated file, a damaged
// page (zeroed, or random bytes over a branch, leaf or freelist page) and a
// wrong magic are each refused at start with a clear log line and exit
// status 3: never a Go panic, never "database checked" or serving.
func TestIssue21_CorruptDatabaseRefusedAtStart(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	src := filepath.Join(storeDir(t, 20000), store.FileName)
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	const ps = 4096
	pages := pagesInUse(t, src)
	seed := uint64(time.Now().UnixNano())
	t.Logf("database %d bytes; pages in use: %d branch, %d leaf, %d freelist; random pages seed %d",
		st.Size(), len(pages["branch"]), len(pages["leaf"]), len(pages["freelist"]), seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	garbage := func() []byte {
		b := make([]byte, ps)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	pick := func(kind string) int64 {
		ids := pages[kind]
		if len(ids) == 0 {
			t.Fatalf("no %s page in the test database", kind)
		}
		return int64(ids[rng.IntN(len(ids))])
	}
	cases := []struct {
		name   string
		damage func(path string)
		want   string // in the log
	}{
		{"truncated to half", func(p string) { noErr(t, os.Truncate(p, st.Size()/2)) }, "truncated"},
		{"truncated inside the meta pages", func(p string) { noErr(t, os.Truncate(p, ps+17)) }, "truncated"},
		{"wrong magic in meta page 0", func(p string) { patch(t, p, 16, []byte{1, 2, 3, 4}) }, "meta page 0: wrong magic"},
		{"wrong magic in both meta pages", func(p string) { patch(t, p, 16, []byte{1, 2, 3, 4}); patch(t, p, ps+16, []byte{1, 2, 3, 4}) }, "wrong magic"},
		{"zeroed leaf page", func(p string) { patch(t, p, pick("leaf")*ps, make([]byte, ps)) }, "corrupt"},
		{"random bytes over a branch page", func(p string) { patch(t, p, pick("branch")*ps, garbage()) }, "corrupt"},
		{"random bytes over another branch page", func(p string) { patch(t, p, pick("branch")*ps, garbage()) }, "corrupt"},
		{"random bytes over a leaf page", func(p string) { patch(t, p, pick("leaf")*ps, garbage()) }, "corrupt"},
		// The page header stays, so bbolt follows the random child page ids
		// of the elements: its checker faults far outside the file, which
		// only the child process of the check survives.
		{"random bytes over a branch page's elements", func(p string) { patch(t, p, pick("branch")*ps+16, garbage()[16:]) }, "corrupt"},
		{"random bytes over a leaf page's elements", func(p string) { patch(t, p, pick("leaf")*ps+16, garbage()[16:]) }, "corrupt"},
		// One flipped high bit in a branch element's child page id: an
		// address inside bbolt's map range but far past the file, where its
		// checker faults (a fatal signal, not a panic).
		{"a child page id with a flipped high bit", func(p string) {
			off := pick("branch")*ps + 16 + 8 // the first element's pgid
			f, err := os.Open(p)
			noErr(t, err)
			var b [8]byte
			_, err = f.ReadAt(b[:], off)
			noErr(t, errors.Join(err, f.Close()))
			be.LittleEndian.PutUint64(b[:], be.LittleEndian.Uint64(b[:])|1<<30)
			patch(t, p, off, b[:])
		}, "crashed"},
		{"random bytes over the freelist page", func(p string) { patch(t, p, pick("freelist")*ps, garbage()) }, "corrupt"},
		{"a page copied over another (a torn copy)", func(p string) {
			b := make([]byte, ps)
			f, err := os.Open(p)
			noErr(t, err)
			_, err = f.ReadAt(b, pick("leaf")*ps)
			noErr(t, errors.Join(err, f.Close()))
			patch(t, p, pick("branch")*ps, b)
		}, "corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, store.FileName)
			copyTo(t, src, db)
			c.damage(db)
			_, stderr, code := runFor(t, 60*time.Second, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir)
			if code != 3 {
				t.Errorf("exit status %d, want 3", code)
			}
			for _, bad := range []string{"goroutine ", "linkplan serving", "database checked", "panic: runtime error"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("output holds %q", bad)
				}
			}
			if !strings.Contains(stderr, `level=ERROR msg="the database file is corrupt: refusing to start`) || !strings.Contains(stderr, c.want) ||
				!strings.Contains(stderr, "linkplan restore --from FILE --data-dir") {
				t.Errorf("no clear refusal naming %q", c.want)
			}
			if t.Failed() {
				t.Logf("serve output:\n%s", stderr)
			}
		})
	}
	// The sound file starts, checked (the control of the cases above).
	dir := t.TempDir()
	copyTo(t, src, filepath.Join(dir, store.FileName))
	s := startServe(t, bin, dir)
	if !strings.Contains(s.stderr.String(), `msg="database checked"`) {
		t.Errorf("no database check logged:\n%s", s.stderr.String())
	}
	if err := s.stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// setSchema writes a schema version into the database of dir, as another
// release would have left it; drop names buckets to remove (those its
// migrations had not created yet).
func setSchema(t *testing.T, dir string, v int, drop ...string) {
	t.Helper()
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, d := range drop {
			if err := tx.DeleteBucket([]byte(d)); err != nil {
				return err
			}
		}
		var raw [8]byte
		be.BigEndian.PutUint64(raw[:], uint64(v))
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), raw[:])
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestIssue21_NewerSchemaRefused: a data directory of a newer schema is
// refused at start, naming both versions, and left as it was; its backup
// is refused by restore for the same reason.
func TestIssue21_NewerSchemaRefused(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := storeDir(t, 500)
	newer := store.SchemaVersion() + 2
	setSchema(t, dir, newer)
	db := filepath.Join(dir, store.FileName)
	before := fileSHA(t, db)
	_, stderr, code := runFor(t, 60*time.Second, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir)
	if code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	for _, want := range []string{fmt.Sprintf("schema version %d", newer), fmt.Sprintf("this linkplan's schema version %d", store.SchemaVersion())} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "linkplan serving") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("output:\n%s", stderr)
	}
	if fileSHA(t, db) != before {
		t.Error("the refused database was changed")
	}
	// A backup of it (the offline path reads it without migrating) is
	// refused by restore with the reason, and the target is untouched.
	out := filepath.Join(t.TempDir(), "newer.lpbackup")
	if o, e, code := runFor(t, 60*time.Second, bin, "backup", "--data-dir", dir, "--out", out); code != 0 {
		t.Fatalf("offline backup of a newer schema: %d\n%s%s", code, o, e)
	}
	target := storeDir(t, 10)
	tsum := fileSHA(t, filepath.Join(target, store.FileName))
	_, e, code := runFor(t, 60*time.Second, bin, "restore", "--from", out, "--data-dir", target)
	if code != 3 || !strings.Contains(e, fmt.Sprintf("schema version %d, newer than this linkplan's schema version %d", newer, store.SchemaVersion())) {
		t.Errorf("restore of a newer schema: exit %d\n%s", code, e)
	}
	if fileSHA(t, filepath.Join(target, store.FileName)) != tsum {
		t.Error("a refused restore changed the database")
	}
}

// TestIssue21_MigrationTakesBackupFirst: a data directory of an older
// schema is backed up (verified) before it is migrated, into
// DATA/backups or --backup-dir.
func TestIssue21_MigrationTakesBackupFirst(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	old := store.SchemaVersion() - 1
	for _, withDir := range []bool{false, true} {
		dir := storeDir(t, 500)
		// The file as the previous release left it, up to its buckets: the
		// newest migration creates its buckets if absent, so it runs again
		// over them (the store's own tests check each migration's effect).
		setSchema(t, dir, old)
		backups := filepath.Join(dir, "backups")
		var extra []string
		if withDir {
			backups = filepath.Join(t.TempDir(), "elsewhere")
			extra = []string{"--backup-dir", backups, "--backup-every", "1h"}
		}
		s := startServe(t, bin, dir, extra...)
		log := s.stderr.String()
		if err := s.stop(t); err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`msg="database backed up before its schema migration" from_schema=(\d+) to_schema=(\d+) file=(\S+)`)
		m := re.FindStringSubmatch(log)
		if m == nil || m[1] != fmt.Sprint(old) || m[2] != fmt.Sprint(store.SchemaVersion()) || filepath.Dir(m[3]) != backups {
			t.Fatalf("no pre-migration backup into %s logged:\n%s", backups, log)
		}
		o, e, code := runFor(t, 60*time.Second, bin, "verify", "--json", m[3])
		var man appliance.BackupManifest
		if code != 0 || json.Unmarshal([]byte(o), &man) != nil || man.Schema != old || man.Trigger != "pre-migration" || man.DB.Buckets["link_observations"] != 500 {
			t.Fatalf("the pre-migration backup: exit %d %+v\n%s", code, man, e)
		}
		o, _, code = runFor(t, 60*time.Second, bin, "db", "check", "--json", "--data-dir", dir)
		if code != 0 || !strings.Contains(o, fmt.Sprintf(`"schema_version":%d`, store.SchemaVersion())) {
			t.Errorf("the migrated database: exit %d %s", code, o)
		}
	}
}

// TestIssue21_SignalDuringStartupIsCleanStop: SIGTERM at each point of the
// start-up (before the database check, after it, after the credentials,
// while a 140,000-row tower file loads, after the assembly, once serving)
// exits 0 with a log line, never an error about a cancelled context.
func TestIssue21_SignalDuringStartupIsCleanStop(t *testing.T) {
	bin := binary(t)
	towers := filepath.Join(t.TempDir(), "erbs_national_synthetic.csv")
	f, err := os.Create(towers)
	noErr(t, err)
	noErr(t, catalog.WriteERBs(f, catalog.SyntheticNational(140000, 1), false))
	noErr(t, f.Close())
	seeded := storeDir(t, 10)
	points := []struct {
		name, line string
		// during: a log line that must not appear: the signal interrupts
		// the step (a 140,000-row file takes seconds to load, and its
		// parse stops at the signal).
		during string
	}{
		{"before the database check", `msg="linkplan starting"`, ""},
		{"after the database check", `msg="database checked"`, ""},
		{"after the admin credentials", `admin credentials`, ""},
		{"while the towers load", `msg="loading tower sources"`, `msg="appliance assembled"`},
		{"after the assembly", `msg="appliance assembled"`, ""},
		{"serving", `msg="linkplan serving"`, ""},
	}
	for _, p := range points {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTo(t, filepath.Join(seeded, store.FileName), filepath.Join(dir, store.FileName))
			cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--towers", towers)
			pr, pw := io.Pipe()
			cmd.Stderr, cmd.Stdout = pw, io.Discard
			noErr(t, cmd.Start())
			var (
				out       bytes.Buffer
				sentAt    time.Time
				signalled = make(chan struct{})
			)
			go func() {
				sc := bufio.NewScanner(pr)
				sent := false
				for sc.Scan() {
					out.WriteString(sc.Text() + "\n")
					if !sent && strings.Contains(sc.Text(), p.line) {
						sentAt = time.Now()
						_ = cmd.Process.Signal(syscall.SIGTERM)
						sent = true
						close(signalled)
					}
				}
			}()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait(); _ = pw.Close() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(90 * time.Second):
				_ = cmd.Process.Signal(syscall.SIGQUIT) // the goroutine dump says where it hangs
				time.Sleep(time.Second)
				_ = cmd.Process.Kill()
				t.Fatalf("no exit within 90 s:\n%s", out.String())
			}
			time.Sleep(50 * time.Millisecond) // the reader takes the last lines
			log := out.String()
			select {
			case <-signalled:
			default:
				t.Fatalf("the process exited before %s was logged (%v):\n%s", p.line, werr, log)
			}
			if werr != nil {
				t.Errorf("exit: %v, want status 0", werr)
			}
			if !regexp.MustCompile(`msg="linkplan stopped( by a signal during start-up)?"`).MatchString(log) {
				t.Errorf("no stop line")
			}
			for _, bad := range []string{"context canceled", "level=ERROR", "goroutine "} {
				if strings.Contains(log, bad) {
					t.Errorf("output holds %q", bad)
				}
			}
			if p.during != "" && strings.Contains(log, p.during) {
				t.Errorf("the step went on to %s after the signal", p.during)
			}
			t.Logf("SIGTERM %s: exit 0 %v after the signal; %s", p.name, time.Since(sentAt).Round(time.Millisecond),
				regexp.MustCompile(`msg="linkplan stopped[^\n]*`).FindString(log))
			if t.Failed() {
				t.Logf("output:\n%s", log)
			}
		})
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestIssue21_BackupCommandPaths: without an appliance the command reads
// the file; with one it goes through the admin socket (mode 0600); a
// served directory whose socket is gone is a clear error, not a hang or a
// second opener; another user cannot reach the socket.
func TestIssue21_BackupCommandPaths(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := storeDir(t, 1000)
	out := filepath.Join(t.TempDir(), "offline.lpbackup")
	o, e, code := runFor(t, 60*time.Second, bin, "backup", "--data-dir", dir, "--out", out, "--json")
	var res struct {
		Via      string                   `json:"via"`
		Manifest appliance.BackupManifest `json:"manifest"`
	}
	if code != 0 || json.Unmarshal([]byte(o), &res) != nil || !strings.HasPrefix(res.Via, "the database file") || res.Manifest.DB.Buckets["link_observations"] != 1000 {
		t.Fatalf("offline backup: %d %s %s", code, o, e)
	}
	s := startServe(t, bin, dir)
	sock := filepath.Join(dir, "admin.sock")
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket: %v %v", fi, err)
	}
	if os.Geteuid() == 0 {
		// nobody (uid 65534) can neither traverse the data directory nor
		// connect; the command says it cannot reach the appliance.
		pub := t.TempDir() // a binary and an output directory nobody can use
		noErr(t, os.Chmod(pub, 0o777))
		noErr(t, os.Chmod(filepath.Dir(pub), 0o755))
		nbin := filepath.Join(pub, "linkplan")
		copyTo(t, bin, nbin)
		noErr(t, os.Chmod(nbin, 0o755))
		cmd := exec.Command(nbin, "backup", "--data-dir", dir, "--out", filepath.Join(pub, "nobody.lpbackup"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(b), "not reachable by this user") || strings.Contains(string(b), "backup written") {
			t.Errorf("another user: %v %s", err, b)
		}
		t.Logf("as uid 65534: %s", strings.TrimSpace(string(b)))
		// with the socket opened to everyone by mistake, the appliance's
		// peer check still closes nobody's connection, and the command
		// says so (it printed Go's `Post "http://linkplan/backup": EOF`)
		dfi, err := os.Stat(dir)
		noErr(t, err)
		noErr(t, os.Chmod(dir, 0o711))
		noErr(t, os.Chmod(sock, 0o666))
		cmd = exec.Command(nbin, "backup", "--data-dir", dir, "--out", filepath.Join(pub, "nobody2.lpbackup"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err = cmd.CombinedOutput()
		if !errors.As(err, &ee) || !strings.Contains(string(b), "answers its own user and root only") || strings.Contains(string(b), "EOF") {
			t.Errorf("another user on an open socket: %v %s", err, b)
		}
		t.Logf("as uid 65534, socket open to all: %s", strings.TrimSpace(string(b)))
		noErr(t, os.Chmod(sock, 0o600))
		noErr(t, os.Chmod(dir, dfi.Mode().Perm()))
	}
	noErr(t, os.Remove(sock))
	_, e, code = runFor(t, 60*time.Second, bin, "backup", "--data-dir", dir, "--out", filepath.Join(t.TempDir(), "x.lpbackup"))
	if code == 0 || !strings.Contains(e, "does not answer on its admin socket") {
		t.Errorf("served directory without its socket: exit %d %s", code, e)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file after the stop: %v", err)
	}
	// A backup taken while serving restores over the offline one's source.
	if _, e, code := runFor(t, 60*time.Second, bin, "restore", "--from", out, "--data-dir", dir); code != 0 {
		t.Errorf("restore after the stop: %d %s", code, e)
	}
}
