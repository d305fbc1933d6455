package backup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/periodic"
)

// Defaults of the schedule.
const (
	DefaultEvery = 24 * time.Hour
	DefaultKeep  = 7
	// MinEvery is the shortest schedule (drills and tests use seconds; a
	// production schedule is hours).
	MinEvery = time.Second
	// maxTick bounds how long a due backup waits for the schedule to
	// notice it.
	maxTick = 10 * time.Second
	// retryAfter is the wait before a failed scheduled backup is tried
	// again (or the schedule's interval when shorter).
	retryAfter = 5 * time.Minute
)

// scheduledName matches the files of the schedule (the rotation touches
// nothing else): linkplan-<UTC time to the millisecond>.lpbackup.
var scheduledName = regexp.MustCompile(`^linkplan-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z\.lpbackup$`)

// Ext is the extension of backup files.
const Ext = ".lpbackup"

// Options configure a Service.
type Options struct {
	// Dir holds the scheduled backups; "" means no schedule (backups on
	// demand only).
	Dir   string
	Every time.Duration // 0: DefaultEvery
	Keep  int           // scheduled backups kept by the rotation; 0: DefaultKeep
	// Scratch is where an on-demand backup (Take) is written before it is
	// streamed; it must exist. "": Dir.
	Scratch string
	Log     *slog.Logger
	Metrics *metrics.Set // nil: none
	Now     func() time.Time
	// Audit appends an audit entry (store.DB.AppendAudit); nil: Take
	// writes none.
	Audit func(appliance.AuditEntry) (uint64, error)
	// Recover recovers a panic of a scheduled backup (component
	// periodic.backup; the schedule goes on).
	Recover *appliance.Recoverer
}

// Service takes backups: on a schedule into Options.Dir with rotation, and
// on demand (Take) for the admin route and the admin socket. One backup
// runs at a time.
type Service struct {
	w    *Writer
	opts Options
	log  *slog.Logger
	now  func() time.Time

	run  sync.Mutex // one backup at a time
	mu   sync.Mutex // guards st and counts
	st   appliance.BackupStatus
	next time.Time // when the schedule takes the next backup
	// counts counts the backups taken, by trigger and result.
	counts map[[2]string]uint64
	loop   periodic.Loop
}

// New returns the service. With a schedule it creates Dir (mode 0700),
// removes the partial files a crash left there, and reads the newest
// scheduled backup's manifest so that the schedule and /health/ready go
// on from it after a restart.
func New(w *Writer, opts Options) (*Service, error) {
	if opts.Every == 0 {
		opts.Every = DefaultEvery
	}
	if opts.Keep == 0 {
		opts.Keep = DefaultKeep
	}
	if opts.Every < MinEvery || opts.Keep < 1 {
		return nil, fmt.Errorf("backup: every %v (at least %v) and keep %d (at least 1): %w", opts.Every, MinEvery, opts.Keep, appliance.ErrInvalid)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Scratch == "" {
		opts.Scratch = opts.Dir
	}
	s := &Service{w: w, opts: opts, log: opts.Log.With("component", "backup"), now: opts.Now, counts: map[[2]string]uint64{}}
	if opts.Dir != "" {
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("backup: --backup-dir: %w", err)
		}
		s.st = appliance.BackupStatus{Scheduled: true, Every: opts.Every, Keep: opts.Keep, Since: s.now()}
		if err := s.resume(); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{opts.Dir, opts.Scratch} {
		if d != "" {
			removePartials(d, s.log)
		}
	}
	if m := opts.Metrics; m != nil {
		m.RegisterMetricsWriter(s.writeMetrics)
	}
	return s, nil
}

// resume reads the newest scheduled backup of Dir.
func (s *Service) resume() error {
	names, err := scheduled(s.opts.Dir)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	for _, name := range slices.Backward(names) {
		path := filepath.Join(s.opts.Dir, name)
		m, err := ReadManifest(path)
		if err != nil {
			s.log.Warn("a scheduled backup's manifest is unreadable; skipped", "file", path, "err", err)
			continue
		}
		fi, err := os.Stat(path)
		if err != nil {
			continue
		}
		s.st.LastSuccess, s.st.LastAttempt, s.st.LastBytes = m.CreatedAt, m.CreatedAt, fi.Size()
		s.next = m.CreatedAt.Add(s.opts.Every)
		s.log.Info("scheduled backups resume", "newest", path, "taken", m.CreatedAt.Format(time.RFC3339), "next", s.next.Format(time.RFC3339))
		return nil
	}
	return nil
}

// removePartials removes what an interrupted Write left in dir.
func removePartials(dir string, log *slog.Logger) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".partial") && strings.Contains(n, Ext) {
			if err := os.Remove(filepath.Join(dir, n)); err == nil {
				log.Info("removed the partial file of an interrupted backup", "file", filepath.Join(dir, n))
			}
		}
	}
}

// scheduled lists the scheduled backups of dir, oldest first.
func scheduled(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && scheduledName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // the names sort by time
	return names, nil
}

// Start runs the schedule (nothing without one): a backup is taken when
// one is due, checked every Every or 10 s, whichever is shorter; the first
// is due at once when Dir holds none, else Every after the newest.
func (s *Service) Start(_ context.Context) error {
	if s.opts.Dir == "" {
		return nil
	}
	s.loop.Recover = s.opts.Recover
	return s.loop.Start("backup", min(s.opts.Every, maxTick), func(ctx context.Context) {
		s.mu.Lock()
		due := !s.now().Before(s.next)
		s.mu.Unlock()
		if due {
			_, _ = s.RunScheduled(ctx)
		}
	})
}

// Close stops the schedule, waiting for a backup in progress (its context
// ends, so it stops at its next step and removes its partial files).
func (s *Service) Close(ctx context.Context) error { return s.loop.Close(ctx) }

// RunScheduled takes one scheduled backup now, records its result for
// Status and the metrics, and rotates Dir to the newest Keep.
func (s *Service) RunScheduled(ctx context.Context) (appliance.BackupManifest, error) {
	if s.opts.Dir == "" {
		return appliance.BackupManifest{}, fmt.Errorf("backup: no --backup-dir: %w", appliance.ErrInvalid)
	}
	s.run.Lock()
	defer s.run.Unlock()
	start := s.now()
	path := filepath.Join(s.opts.Dir, "linkplan-"+start.UTC().Format("20060102T150405.000Z")+Ext)
	m, err := s.w.Write(ctx, path, appliance.BackupTriggerScheduled)
	took := s.now().Sub(start)
	s.count(appliance.BackupTriggerScheduled, err)
	s.mu.Lock()
	s.st.LastAttempt, s.st.LastDuration = start, took
	if err != nil {
		s.st.LastError = err.Error()
		s.next = start.Add(min(s.opts.Every, retryAfter))
	} else {
		s.st.LastError = ""
		s.st.LastSuccess = m.CreatedAt
		if fi, serr := os.Stat(path); serr == nil {
			s.st.LastBytes = fi.Size()
		}
		s.next = start.Add(s.opts.Every)
	}
	s.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			s.log.Info("scheduled backup interrupted by the stop", "err", err)
		} else {
			s.log.Error("scheduled backup failed", "err", err, "retry_in", min(s.opts.Every, retryAfter).String())
		}
		return m, err
	}
	s.log.Info("scheduled backup written and verified", "file", path, "bytes", m.DB.Bytes, "sha256", m.DB.SHA256, "took", took.Round(time.Millisecond).String())
	s.rotate()
	return m, nil
}

// rotate removes the scheduled backups beyond the newest Keep.
func (s *Service) rotate() {
	names, err := scheduled(s.opts.Dir)
	if err != nil {
		s.log.Warn("backup rotation skipped", "err", err)
		return
	}
	removed := 0
	for _, name := range names[:max(0, len(names)-s.opts.Keep)] {
		if err := os.Remove(filepath.Join(s.opts.Dir, name)); err != nil {
			s.log.Warn("old backup not removed", "file", name, "err", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		if err := syncDir(s.opts.Dir); err != nil {
			s.log.Warn("backup rotation: directory not synced", "err", err)
		}
		s.log.Info("old backups removed by the rotation", "removed", removed, "kept", min(len(names), s.opts.Keep))
	}
}

// Take writes a verified backup for trigger into the scratch directory and
// returns it open for reading: the file is unlinked at once, so a crash
// or an abandoned download leaves nothing behind; Close releases it. When
// audit is set, it is appended (Options.Audit) once the backup is
// verified, its params completed with the trigger, the database's SHA-256
// and the file's length; a failed audit write fails the backup (an admin
// action is never served unrecorded).
func (s *Service) Take(ctx context.Context, trigger string, audit *appliance.AuditEntry) (*appliance.BackupFile, error) {
	if s.opts.Scratch == "" {
		return nil, fmt.Errorf("backup: no scratch directory: %w", appliance.ErrUnavailable)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	path := filepath.Join(s.opts.Scratch, ".linkplan-"+trigger+"-"+hex.EncodeToString(r[:])+Ext)
	s.run.Lock()
	m, err := s.w.Write(ctx, path, trigger)
	s.run.Unlock()
	s.count(trigger, err)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	_ = os.Remove(path)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("backup: %w", err)
	}
	if audit != nil && s.opts.Audit != nil {
		e := *audit
		e.Params = maps.Clone(e.Params)
		if e.Params == nil {
			e.Params = map[string]string{}
		}
		e.Params["trigger"], e.Params["db_sha256"], e.Params["bytes"] = trigger, m.DB.SHA256, strconv.FormatInt(fi.Size(), 10)
		if _, err := s.opts.Audit(e); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("backup: audit: %w", err)
		}
	}
	s.log.Info("backup written and verified", "trigger", trigger, "bytes", fi.Size(), "sha256", m.DB.SHA256)
	return &appliance.BackupFile{Manifest: m, Bytes: fi.Size(), Body: f}, nil
}

func (s *Service) count(trigger string, err error) {
	res := "ok"
	if err != nil {
		res = "failed"
	}
	s.mu.Lock()
	s.counts[[2]string{trigger, res}]++
	s.mu.Unlock()
}

// Status returns the state of the schedule.
func (s *Service) Status() appliance.BackupStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// WritePreMigration writes the backup a schema migration takes first,
// into dir as linkplan-pre-migration-schema<from>-to-<to>-<UTC time>.lpbackup
// (the rotation keeps away from these), and returns its path.
func WritePreMigration(ctx context.Context, w *Writer, dir string, from, to int) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("pre-migration backup: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("linkplan-pre-migration-schema%d-to-%d-%s%s", from, to, w.now().UTC().Format("20060102T150405.000Z"), Ext))
	if _, err := w.Write(ctx, path, appliance.BackupTriggerPreMigration); err != nil {
		return "", fmt.Errorf("pre-migration backup: %w", err)
	}
	return path, nil
}
