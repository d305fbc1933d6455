package jobs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
)

// Defaults of Options.
const (
	DefaultLeaseTTL         = 30 * time.Second
	DefaultPollInterval     = time.Second
	DefaultSweepInterval    = time.Hour
	DefaultResultRetention  = 7 * 24 * time.Hour
	DefaultRecordRetention  = 30 * 24 * time.Hour
	DefaultMaxAttempts      = 3
	DefaultMaxInterruptions = 10
)

// Options configure a Service. Zero values take the defaults.
type Options struct {
	// Workers is how many jobs run at once. The default is
	// max(1, GOMAXPROCS/2): a handler parallelises inside a job (the batch
	// handler analyses rows on GOMAXPROCS goroutines), so a few jobs at
	// once already fill the cores, and half the cores stay free for the
	// interactive API.
	Workers int
	// LeaseTTL is how long a lease lasts without renewal (default 30 s);
	// a running job's lease is renewed every LeaseTTL/3.
	LeaseTTL time.Duration
	// PollInterval is how often an idle worker looks for a ready job
	// (default 1 s); Enqueue also wakes one at once.
	PollInterval time.Duration
	// RequeueInterval is how often expired leases are requeued (default
	// LeaseTTL).
	RequeueInterval time.Duration
	// SweepInterval is how often the retention sweep runs (default 1 h).
	SweepInterval time.Duration
	// ResultRetention is how long a succeeded job's result file stays
	// downloadable (default 7 days); then the job becomes expired.
	ResultRetention time.Duration
	// RecordRetention is how long a terminal job's record stays, counted
	// from when it finished (default 30 days); then it is deleted.
	RecordRetention time.Duration
	// MaxAttempts and MaxInterruptions are the defaults for jobs that set
	// none (3 and 10).
	MaxAttempts, MaxInterruptions int
	// Backoff returns the wait before retry number attempt (1 for the
	// first retry); nil is Backoff.
	Backoff func(attempt int) time.Duration
	// Metrics receives the job metrics; nil means none.
	Metrics *metrics.Set
	// Log receives job events; nil discards them.
	Log *slog.Logger
	// Recover recovers handler panics (logged at ERROR with the stack,
	// counted as component "jobs.<kind>"); nil logs them to slog.Default.
	Recover *appliance.Recoverer
	// Clock is the time source; nil is time.Now.
	Clock func() time.Time
	// InstanceID names this process in lease owners; empty is random.
	InstanceID string
	// Admission schedules the heavy jobs (appliance/admission): a leased
	// job that Cost sizes waits for its grant before its handler runs,
	// and the handler's context carries the grant (appliance.WorkersFrom).
	// nil: every job runs as soon as it is leased.
	Admission appliance.Admitter
	// Cost sizes a job for Admission (workers, memory estimate, tier);
	// false: a light job, run without admission.
	Cost func(j *appliance.Job) (appliance.HeavyWork, bool)
}

// Backoff is the default retry backoff: 5 s before the first retry, 30 s
// before the second, 2 min before every later one. It is deterministic
// (no jitter): one node runs the jobs, so there is no herd to spread.
func Backoff(attempt int) time.Duration {
	switch {
	case attempt <= 1:
		return 5 * time.Second
	case attempt == 2:
		return 30 * time.Second
	}
	return 2 * time.Minute
}

// counter is implemented by queues that can count their live jobs
// (store.DB): the jobs_queued gauge reads it.
type counter interface {
	JobCounts(ctx context.Context) (queued, running int, err error)
}

// Service runs queued jobs on a worker pool (package doc).
type Service struct {
	queue    appliance.JobQueue
	dir      string
	opts     Options
	log      *slog.Logger
	metrics  *jobMetrics
	handlers map[appliance.JobKind]appliance.JobHandler

	wake    chan struct{}
	running atomic.Int64

	mu       sync.Mutex
	started  bool
	stopping bool
	cancel   context.CancelFunc // ends the workers and handler contexts
	wg       sync.WaitGroup     // workers and background loops
}

// New returns a Service over queue that writes result files under dir.
func New(queue appliance.JobQueue, dir string, opts Options) *Service {
	if opts.Workers <= 0 {
		opts.Workers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.RequeueInterval <= 0 {
		opts.RequeueInterval = opts.LeaseTTL
	}
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = DefaultSweepInterval
	}
	if opts.ResultRetention <= 0 {
		opts.ResultRetention = DefaultResultRetention
	}
	if opts.RecordRetention <= 0 {
		opts.RecordRetention = DefaultRecordRetention
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.MaxInterruptions <= 0 {
		opts.MaxInterruptions = DefaultMaxInterruptions
	}
	if opts.Backoff == nil {
		opts.Backoff = Backoff
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.InstanceID == "" {
		id, err := NewID()
		if err != nil {
			id = fmt.Sprintf("pid%d", os.Getpid())
		}
		opts.InstanceID = strings.TrimPrefix(id, "job_")[:12]
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{queue: queue, dir: dir, opts: opts, log: log, handlers: map[appliance.JobKind]appliance.JobHandler{}, wake: make(chan struct{}, 1)}
	s.metrics = newJobMetrics()
	if m := opts.Metrics; m != nil {
		m.RegisterMetricsWriter(s.writeMetrics)
	}
	return s
}

// NewID returns a new unguessable job id: "job_" and 16 random bytes in
// lowercase base32 (26 characters). Ids appear in download URLs, so they
// must not be guessable.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new job id: %w", err)
	}
	return "job_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Register sets the handler of kind. Call it before Start.
func (s *Service) Register(kind appliance.JobKind, h appliance.JobHandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		panic("jobs: Register after Start")
	}
	s.handlers[kind] = h
}

func (s *Service) now() time.Time { return s.opts.Clock().UTC() }

// Start requeues the leases a previous process left behind, then starts
// the workers, the requeue loop and the retention sweep. ctx bounds the
// start-up calls only; Close stops the Service.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return fmt.Errorf("jobs: start: already started: %w", appliance.ErrConflict)
	}
	s.started = true
	s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("jobs: start: result dir: %w", err)
	}
	// Single node: a running job at start was leased by a dead process, so
	// it is requeued now instead of after its lease expires, and counts a
	// crash; at its second crash it is quarantined.
	n, quarantined, err := s.queue.RequeueOrphans(ctx, s.now())
	if err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	if n > 0 {
		s.log.Warn("jobs: requeued the jobs the previous process was running when it stopped", "jobs", n-len(quarantined))
	}
	for _, j := range quarantined {
		s.log.Error("jobs: quarantined: the appliance stopped twice while this job ran; it will not be started again",
			"job", j.ID, "kind", j.Kind, "tenant", j.TenantID, "crashes", j.Crashes)
		s.finished(j.Kind, appliance.JobFailed)
	}
	s.sweep(ctx)
	runCtx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	for i := range s.opts.Workers {
		s.wg.Add(1)
		go s.worker(runCtx, fmt.Sprintf("%s/%d", s.opts.InstanceID, i))
	}
	s.wg.Add(2)
	go s.every(runCtx, s.opts.RequeueInterval, func(ctx context.Context) {
		if n, err := s.queue.Requeue(ctx, s.now()); err != nil {
			s.log.Error("jobs: requeue", "err", err)
		} else if n > 0 {
			s.log.Warn("jobs: requeued expired leases", "jobs", n)
			s.poke()
		}
	})
	go s.every(runCtx, s.opts.SweepInterval, s.sweep)
	return nil
}

func (s *Service) every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	defer s.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.tick(ctx, fn)
		}
	}
}

// tick runs one round of a background loop (requeue, sweep); a panic is
// recovered (component "jobs.loop") and the loop goes on.
func (s *Service) tick(ctx context.Context, fn func(context.Context)) {
	defer s.opts.Recover.Recover(ctx, "jobs.loop", nil)
	fn(ctx)
}

// sweep applies the retention and removes the expired result files.
func (s *Service) sweep(ctx context.Context) {
	files, err := s.queue.Sweep(ctx, s.now(), s.opts.RecordRetention)
	if err != nil {
		s.log.Error("jobs: retention sweep", "err", err)
		return
	}
	for _, r := range files {
		if err := os.Remove(filepath.Join(s.dir, filepath.Base(r.Name))); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Error("jobs: remove expired result", "file", r.Name, "err", err)
		}
	}
}

// Close drains the Service: it stops leasing, cancels the running
// handlers' contexts, waits for them (bounded by ctx) and releases their
// leases without counting an attempt, so that the next start resumes each
// job from its last checkpoint. When ctx ends first, Close returns its
// error and the handlers still running release their leases when they
// return; close the queue only after Close returned nil, or the next
// Start requeues those jobs as orphans (an interruption each).
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jobs: close: handlers still running: %w", ctx.Err())
	}
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Enqueue queues j. It sets the defaults (lane standard, MaxAttempts,
// MaxInterruptions) and, when j.ID is empty, a new id (NewID).
func (s *Service) Enqueue(ctx context.Context, j *appliance.Job) error {
	s.mu.Lock()
	_, ok := s.handlers[j.Kind]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("jobs: enqueue: no handler for kind %q: %w", j.Kind, appliance.ErrInvalid)
	}
	if j.ID == "" {
		id, err := NewID()
		if err != nil {
			return fmt.Errorf("jobs: enqueue: %w", err)
		}
		j.ID = id
	}
	if j.Lane == "" {
		j.Lane = appliance.LaneStandard
	}
	if j.MaxAttempts <= 0 {
		j.MaxAttempts = s.opts.MaxAttempts
	}
	if j.MaxInterruptions <= 0 {
		j.MaxInterruptions = s.opts.MaxInterruptions
	}
	// The submission is audited in the enqueue's transaction, by the
	// request's actor (none for a background submission).
	a := appliance.ActorFrom(ctx)
	if a.KeyID == "" {
		a.KeyID = j.KeyID
	}
	j.Audit = append(j.Audit, a.Entry(appliance.ActionJobSubmit, j.TenantID, map[string]string{
		"job_id": j.ID, "kind": string(j.Kind), "lane": string(j.Lane), "total": strconv.FormatInt(j.Total, 10)}))
	if err := s.queue.Enqueue(ctx, j); err != nil {
		return fmt.Errorf("jobs: enqueue: %w", err)
	}
	s.countEnqueued(j)
	s.poke()
	return nil
}

// Get returns tenant's job; another tenant's job is appliance.ErrNotFound.
// Expires of a failed or canceled job is when its record is deleted.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*appliance.Job, error) {
	j, err := s.queue.Get(ctx, tenantID, id)
	if err != nil {
		return nil, fmt.Errorf("jobs: get: %w", err)
	}
	if j.State.Terminal() && j.Expires.IsZero() && !j.Finished.IsZero() {
		j.Expires = j.Finished.Add(s.opts.RecordRetention)
	}
	if j.State == appliance.JobRunning && s.opts.Admission != nil {
		j.QueuePosition = s.opts.Admission.Position(j.ID)
	}
	return j, nil
}

// Cancel cancels tenant's job: a queued job at once, a running one at its
// handler's next checkpoint or lease renewal. A finished job is
// appliance.ErrConflict; another tenant's job appliance.ErrNotFound.
func (s *Service) Cancel(ctx context.Context, tenantID, id string) (*appliance.Job, error) {
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionJobCancel, tenantID, map[string]string{"job_id": id})
	j, err := s.queue.Cancel(ctx, tenantID, id, s.now(), audit)
	if err != nil {
		return nil, fmt.Errorf("jobs: cancel: %w", err)
	}
	if j.State == appliance.JobCanceled {
		s.finished(j.Kind, appliance.JobCanceled)
	}
	return j, nil
}

// Open returns tenant's succeeded job and its result file, open for
// reading; the caller closes it. Another tenant's job is
// appliance.ErrNotFound; an unfinished, failed or canceled job
// appliance.ErrConflict; an expired one appliance.ErrConflict saying so.
func (s *Service) Open(ctx context.Context, tenantID, id string) (*appliance.Job, *os.File, error) {
	j, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, nil, fmt.Errorf("jobs: open: %w", err)
	}
	now := s.now()
	switch {
	case j.State == appliance.JobExpired || (j.State == appliance.JobSucceeded && !j.Expires.IsZero() && now.After(j.Expires)):
		return j, nil, fmt.Errorf("jobs: open: job %s expired: its result was kept for %v after it finished: %w", id, s.opts.ResultRetention, appliance.ErrConflict)
	case j.State != appliance.JobSucceeded || j.Result == nil:
		return j, nil, fmt.Errorf("jobs: open: job %s is %s, not finished: %w", id, j.State, appliance.ErrConflict)
	}
	f, err := os.Open(filepath.Join(s.dir, filepath.Base(j.Result.Name)))
	if errors.Is(err, os.ErrNotExist) {
		return j, nil, fmt.Errorf("jobs: open: job %s: result file missing: %w", id, appliance.ErrNotFound)
	}
	if err != nil {
		return j, nil, fmt.Errorf("jobs: open: %w", err)
	}
	return j, f, nil
}

func (s *Service) finished(kind appliance.JobKind, st appliance.JobState) {
	s.countFinished(kind, st)
}

func (s *Service) worker(ctx context.Context, id string) {
	defer s.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
		for ctx.Err() == nil {
			l, err := s.queue.Lease(ctx, id, s.opts.LeaseTTL, s.now())
			if errors.Is(err, appliance.ErrNoJob) {
				break
			}
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("jobs: lease", "worker", id, "err", err)
				}
				break
			}
			s.runJob(ctx, l)
		}
		t.Reset(s.opts.PollInterval)
	}
}

// runJob runs one leased job to a verdict.
func (s *Service) runJob(workerCtx context.Context, l *appliance.Lease) {
	s.running.Add(1)
	defer s.running.Add(-1)
	r := &run{s: s, lease: l, job: cloneJob(l.Job)}
	jobCtx, cancelJob := context.WithCancelCause(workerCtx)
	defer cancelJob(nil)
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		s.heartbeat(jobCtx, r, cancelJob)
	}()
	log := s.log.With("job", l.Job.ID, "kind", l.Job.Kind, "token", l.Token)
	var res appliance.JobResult
	runCtx, release, err := s.admit(jobCtx, r.job)
	if err == nil {
		res, err = s.call(runCtx, r)
		release()
	}
	cancelJob(nil)
	<-hbDone

	bg := context.Background() // verdicts are written even while draining
	now := s.now()
	lost := errors.Is(context.Cause(jobCtx), appliance.ErrLeaseLost) || errors.Is(context.Cause(jobCtx), appliance.ErrJobCanceled) ||
		errors.Is(err, appliance.ErrLeaseLost) || errors.Is(err, appliance.ErrJobCanceled)
	switch {
	case errors.Is(err, appliance.ErrJobCanceled) || errors.Is(context.Cause(jobCtx), appliance.ErrJobCanceled):
		log.Info("jobs: canceled")
		s.finished(l.Job.Kind, appliance.JobCanceled)
		s.removeResult(res)
	case lost:
		log.Warn("jobs: lease lost", "err", err)
	case err == nil:
		aerr := r.locked(func() error { return s.queue.Ack(bg, l, res, s.opts.ResultRetention, now) })
		switch {
		case aerr == nil:
			log.Info("jobs: succeeded", "bytes", res.Bytes)
			s.finished(l.Job.Kind, appliance.JobSucceeded)
		case errors.Is(aerr, appliance.ErrJobCanceled):
			s.finished(l.Job.Kind, appliance.JobCanceled)
			s.removeResult(res)
		default:
			log.Error("jobs: ack", "err", aerr)
		}
	case workerCtx.Err() != nil && errors.Is(err, workerCtx.Err()):
		// Drain: give the job back without a verdict.
		if rerr := r.locked(func() error { return s.queue.Release(bg, l, now) }); rerr != nil {
			log.Error("jobs: release", "err", rerr)
		} else {
			log.Info("jobs: released for drain", "done", r.lease.Job.Done)
		}
	default:
		// A quarantined unit stopped its workers twice: never retried
		// automatically (the one quarantine rule, docs WORK.md).
		permanent := errors.Is(err, appliance.ErrInvalid) || errors.Is(err, appliance.ErrUnitQuarantined)
		reason := err.Error()
		var pe *appliance.PanicError
		if errors.As(err, &pe) {
			// The panic and its stack are in the log under the job id.
			reason = pe.Error()
		}
		st, ferr := appliance.JobState(""), error(nil)
		ferr = r.locked(func() error {
			var e error
			st, e = s.queue.Fail(bg, l, reason, !permanent, s.opts.Backoff(l.Job.Attempts+1), now)
			return e
		})
		if ferr != nil && !errors.Is(ferr, appliance.ErrJobCanceled) {
			log.Error("jobs: fail", "err", ferr)
			return
		}
		if ferr != nil {
			st = appliance.JobCanceled
		}
		log.Warn("jobs: handler failed", "err", err, "permanent", permanent, "state", st)
		if st.Terminal() {
			s.finished(l.Job.Kind, st)
		}
	}
}

// admit waits, under the lease, for the job's grant of the heavy-work
// budget (Options.Admission); the returned context carries the grant and
// release gives it back. A light job, or no Admission, passes at once.
func (s *Service) admit(ctx context.Context, j *appliance.Job) (context.Context, func(), error) {
	if s.opts.Admission == nil || s.opts.Cost == nil {
		return ctx, func() {}, nil
	}
	w, ok := s.opts.Cost(j)
	if !ok {
		return ctx, func() {}, nil
	}
	w.ID, w.TenantID, w.Kind, w.Durable = j.ID, j.TenantID, string(j.Kind), true
	if w.Tier == "" && j.Lane == appliance.LanePriority {
		w.Tier = appliance.TierEnterprise // the lane's weight when Cost names no tier
	}
	a, err := s.opts.Admission.Submit(w)
	if err != nil {
		return nil, nil, fmt.Errorf("admission: %w", err)
	}
	g, err := a.Wait(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return appliance.WithGrant(ctx, g), a.Release, nil
}

// call runs the handler with the job id in its context
// (appliance.WithJobID), turning a panic into an *appliance.PanicError.
func (s *Service) call(ctx context.Context, r *run) (res appliance.JobResult, err error) {
	s.mu.Lock()
	h := s.handlers[r.job.Kind]
	s.mu.Unlock()
	if h == nil {
		return res, fmt.Errorf("no handler for job kind %q: %w", r.job.Kind, appliance.ErrInvalid)
	}
	ctx = appliance.WithJobID(ctx, r.job.ID)
	defer s.opts.Recover.Recover(ctx, "jobs."+string(r.job.Kind), &err)
	return h.Run(ctx, r)
}

// heartbeat renews the lease every LeaseTTL/3 until ctx ends; a lost or
// canceled lease cancels the job's context with that cause.
func (s *Service) heartbeat(ctx context.Context, r *run, cancel context.CancelCauseFunc) {
	t := time.NewTicker(s.opts.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := r.locked(func() error { return s.queue.Extend(context.Background(), r.lease, s.opts.LeaseTTL, s.now()) })
			if errors.Is(err, appliance.ErrLeaseLost) || errors.Is(err, appliance.ErrJobCanceled) {
				cancel(err)
				return
			}
			if err != nil {
				s.log.Error("jobs: renew lease", "job", r.job.ID, "err", err)
			}
		}
	}
}

func (s *Service) removeResult(r appliance.JobResult) {
	if r.Name != "" {
		_ = os.Remove(filepath.Join(s.dir, filepath.Base(r.Name)))
	}
}

func cloneJob(j *appliance.Job) *appliance.Job {
	c := *j
	c.Payload = append([]byte(nil), j.Payload...)
	c.Cursor = append([]byte(nil), j.Cursor...)
	return &c
}

// run is the appliance.JobRun of one lease. mu serialises the queue calls
// made under the lease (the heartbeat's Extend and the handler's
// Checkpoint), which update the lease.
type run struct {
	s     *Service
	lease *appliance.Lease
	job   *appliance.Job // the handler's snapshot, as leased
	mu    sync.Mutex
}

func (r *run) locked(fn func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn()
}

// Job returns the job as leased.
func (r *run) Job() *appliance.Job { return r.job }

// Checkpoint commits items and progress under the lease.
func (r *run) Checkpoint(ctx context.Context, p appliance.JobProgress, items []appliance.JobItem) error {
	return r.locked(func() error { return r.s.queue.Checkpoint(ctx, r.lease, p, items, r.s.now()) })
}

// Items reads the job's committed items from index from.
func (r *run) Items(ctx context.Context, from int64, fn func(appliance.JobItem) error) error {
	return r.s.queue.Items(ctx, r.job.ID, from, fn)
}

// WriteResult writes <dir>/<job id><ext> atomically: a temporary file,
// fsync, rename, fsync of the directory.
func (r *run) WriteResult(ext string, write func(w io.Writer) error) (appliance.JobResult, error) {
	if len(ext) < 2 || len(ext) > 16 || ext[0] != '.' || strings.ContainsAny(ext, `/\`+"\x00") {
		return appliance.JobResult{}, fmt.Errorf("jobs: write result: extension %q: %w", ext, appliance.ErrInvalid)
	}
	name := r.job.ID + ext
	path := filepath.Join(r.s.dir, name)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("jobs: write result: %w", err)
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	err = write(cw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(r.s.dir)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return appliance.JobResult{}, fmt.Errorf("jobs: write result %s: %w", name, err)
	}
	return appliance.JobResult{Name: name, Bytes: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
