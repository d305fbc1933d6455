package appliance

import (
	"context"
	"errors"
	"io"
	"time"
)

// JobState is the state of a queued job. The transitions are the state
// table of package appliance/jobs.
type JobState string

// Job states. Succeeded, failed, canceled and expired are terminal.
const (
	// JobQueued waits in its lane for a worker: a new job, a job whose
	// handler failed and waits out its backoff (NotBefore), or a job whose
	// lease was lost (worker died) or released (drain on SIGTERM).
	JobQueued JobState = "queued"
	// JobRunning is leased by a worker until LeaseExpires.
	JobRunning JobState = "running"
	// JobSucceeded finished; its result (the bundle) is downloadable until
	// Expires.
	JobSucceeded JobState = "succeeded"
	// JobFailed gave up: retries exhausted or a permanent error; Error says
	// why.
	JobFailed JobState = "failed"
	// JobCanceled was canceled by its tenant.
	JobCanceled JobState = "canceled"
	// JobExpired finished and its result was removed by the retention
	// sweep; the record stays (without a result) until the record
	// retention ends.
	JobExpired JobState = "expired"
)

// Terminal reports whether no transition leaves s except the retention
// sweep.
func (s JobState) Terminal() bool {
	switch s {
	case JobSucceeded, JobFailed, JobCanceled, JobExpired:
		return true
	}
	return false
}

// JobKind names what a job does; each kind has one handler.
type JobKind string

// Job kinds.
const (
	JobKindBatchReport  JobKind = "batch_report"  // POST /batch_reports with more than 100 rows
	JobKindRepeaterPlan JobKind = "repeater_plan" // POST /plan_repeater with max_hops of 4 or more
	// JobKindDSARHardDelete is the daily privacy hard-delete run
	// (appliance/privacy), owned by SystemTenantID.
	JobKindDSARHardDelete JobKind = "dsar_hard_delete"
	// JobKindModelRetrain retrains the learned coverage models
	// (appliance/training), owned by SystemTenantID.
	JobKindModelRetrain JobKind = "model_retrain"
	// JobKindRaytraceLink traces links over a tenant's building layer on
	// the raytrace worker: engine "raytrace" on POST /analyze,
	// /analyze_link and /coverage/engines/predict (appliance/raytracing).
	JobKindRaytraceLink JobKind = "raytrace_link"
	// JobKindObservationResiduals is a measured-versus-predicted report of
	// a tenant's consented observations (appliance/calibration).
	JobKindObservationResiduals JobKind = "observation_residuals"
	// JobKindCalibrationFit fits a tenant's calibration
	// (appliance/calibration): when it opts in, on demand and when new
	// consented observations arrive.
	JobKindCalibrationFit JobKind = "calibration_fit"
)

// SystemTenantID owns the appliance's own jobs (the daily hard delete).
// Tenant ids are "t_" and hex digits, so no tenant can be it.
const SystemTenantID = "_system"

// Lane is the queue lane of a job (SPEC §4.6: Enterprise and Ultra use a
// separate priority queue).
type Lane string

// Lanes.
const (
	LanePriority Lane = "priority"
	LaneStandard Lane = "standard"
)

// LaneOf returns the lane of a tenant tier: priority for Enterprise and
// Ultra, standard for the rest.
func LaneOf(t Tier) Lane {
	if t == TierEnterprise || t == TierUltra {
		return LanePriority
	}
	return LaneStandard
}

// Job is the record of a queued job. The queue owns the state, lease and
// timestamps; the handler owns Payload (its input, opaque to the queue),
// Cursor (its checkpoint, opaque) and the items it writes at checkpoints.
type Job struct {
	ID       string
	TenantID string // owner; only this tenant sees the job
	KeyID    string // id of the API key that submitted it
	Kind     JobKind
	Lane     Lane
	State    JobState
	// Seq is the enqueue order, unique and increasing; FIFO within a tenant
	// and lane follows it.
	Seq uint64
	// Payload is the kind-specific input, written once at enqueue.
	Payload []byte
	// Total is the number of work units (batch rows); Done how many are
	// committed by checkpoints. 0 <= Done <= Total.
	Total, Done int64
	// Cursor is the handler's checkpoint: where a re-leased job resumes.
	Cursor []byte
	// Attempts counts handler failures (Fail with a retryable error);
	// MaxAttempts bounds them (then the job fails).
	Attempts, MaxAttempts int
	// Interruptions counts leases lost without a handler verdict (the
	// worker's process died or the lease expired); a job interrupted
	// MaxInterruptions times fails, so that a job that kills its worker
	// cannot loop forever.
	Interruptions, MaxInterruptions int
	// Crashes counts the process deaths the job was running at (the
	// orphaned leases RequeueOrphans found). A job with a crash is on
	// probation: it runs while no other job on probation runs, and at
	// JobCrashLimit crashes it is quarantined (failed with
	// JobQuarantineReason, never leased again). A graceful drain (Release)
	// is not a crash.
	Crashes int
	// Error is the last failure reason, user-facing; the terminal reason in
	// state failed.
	Error string
	// CancelRequested is set by a cancel of a running job; the worker sees
	// it at its next Extend or Checkpoint and stops.
	CancelRequested bool
	// Audit holds the entries Enqueue writes in the transaction that
	// stores the job (job.submit); never stored in the job record.
	Audit []AuditEntry

	// LeaseToken fences a lease: each lease increments it, and a call with
	// an older token fails with ErrLeaseLost.
	LeaseToken   uint64
	LeaseOwner   string    // worker id of the current lease
	LeaseExpires time.Time // zero unless running

	Created   time.Time
	Started   time.Time // first lease; zero until then
	Updated   time.Time // last change
	Finished  time.Time // entered a terminal state; zero until then
	NotBefore time.Time // queued: not leased before this time (retry backoff)

	// Result describes the finished job's output (succeeded only).
	Result *JobResult
	// Expires is when the result is removed by the retention sweep
	// (succeeded) or the record itself (failed, canceled, expired).
	Expires time.Time

	// QueuePosition is, while a running job waits for the heavy-work
	// budget (appliance/admission), its 1-based place in that queue; 0
	// otherwise. Filled in when the job is read, never stored.
	QueuePosition int
}

// JobResult is the output of a succeeded job: a file the handler wrote
// under the jobs directory.
type JobResult struct {
	Name   string // file name inside the jobs directory, e.g. "<id>.zip"
	Bytes  int64  // size, bytes
	SHA256 string // hex SHA-256 of the file
	// Summary is a short kind-specific JSON summary (e.g. counts by status).
	Summary []byte
}

// JobItem is one unit of handler output committed at a checkpoint (a batch
// result row). Items are keyed by Index: writing the same index twice
// replaces it, so a re-run of a range never duplicates a row.
type JobItem struct {
	Index int64
	Data  []byte
}

// Lease is a worker's claim on a running job.
type Lease struct {
	Job   *Job // the job as leased (state running)
	Token uint64
}

// JobProgress is what a checkpoint commits besides its items.
type JobProgress struct {
	Done   int64  // units committed, including this checkpoint's
	Cursor []byte // where to resume
}

// JobCrashLimit is the number of process deaths a job may be running at
// before it is quarantined: a job running when the process died is leased
// again once; if the process dies again while it runs, the job fails with
// JobQuarantineReason and is never started again automatically.
const JobCrashLimit = 2

// JobQuarantineReason is the Error of a job quarantined because the
// appliance's process died twice while it ran.
const JobQuarantineReason = "stopped the appliance twice; quarantined"

// QuarantineReason is the Error of a job quarantined because executor (the
// appliance, "the raytrace worker") died twice while it ran the job:
// QuarantineReason("appliance") is JobQuarantineReason.
func QuarantineReason(executor string) string {
	return "stopped the " + executor + " twice; quarantined"
}

// ExecutorCrashError reports that the process executing a unit of work
// outside the appliance (the raytrace worker, a remote worker) died while
// it ran the unit: the unit has no answer, and the death counts as a crash
// of the job under the JobCrashLimit rule (JobQueue.Crash), the same rule
// as a death of the appliance itself. A handler returns it (wrapped or
// not); package appliance/jobs records the crash.
type ExecutorCrashError struct {
	// Executor names the process for users, e.g. "raytrace worker".
	Executor string
	// Detail says what was seen (an exit status, "connection reset"),
	// user-facing.
	Detail string
}

func (e *ExecutorCrashError) Error() string {
	if e.Detail == "" {
		return "the " + e.Executor + " stopped while it ran this work"
	}
	return "the " + e.Executor + " stopped while it ran this work (" + e.Detail + ")"
}

// Job errors.
var (
	// ErrNoJob means no job is ready to lease now.
	ErrNoJob = errors.New("no job ready")
	// ErrLeaseLost means the caller's lease expired or was superseded: it
	// must stop without writing.
	ErrLeaseLost = errors.New("job lease lost")
	// ErrJobCanceled means the job was canceled: the worker must stop.
	ErrJobCanceled = errors.New("job canceled")
)

// JobQueue is the durable queue jobs run on. The bbolt store implements it
// for one machine; a clustered backend (for example NATS JetStream) can
// replace it. Every method is atomic: a crash leaves each call either done
// or not done.
type JobQueue interface {
	// Enqueue stores a new job (ID, TenantID, Kind, Lane, Payload, Total,
	// MaxAttempts, MaxInterruptions set by the caller) in state queued; the
	// record, its queue entry and j.Audit are written in one transaction.
	// It sets Seq, State, Created and Updated on j.
	Enqueue(ctx context.Context, j *Job) error
	// Lease gives the next ready job to worker for ttl, by the fairness
	// rule of package appliance/jobs, or ErrNoJob. A job on probation
	// (Crashes > 0) is not leased while another job on probation runs.
	Lease(ctx context.Context, worker string, ttl time.Duration, now time.Time) (*Lease, error)
	// Extend renews a lease to now+ttl. It fails with ErrLeaseLost or, when
	// a cancel was requested, ErrJobCanceled.
	Extend(ctx context.Context, l *Lease, ttl time.Duration, now time.Time) error
	// Checkpoint writes items and progress in one transaction under the
	// lease (ErrLeaseLost, ErrJobCanceled as Extend).
	Checkpoint(ctx context.Context, l *Lease, p JobProgress, items []JobItem, now time.Time) error
	// Ack marks the leased job succeeded with its result; the result
	// expires at now+retention.
	Ack(ctx context.Context, l *Lease, r JobResult, retention time.Duration, now time.Time) error
	// Fail records a handler failure. A retryable failure with attempts
	// left re-queues the job after backoff; otherwise it fails for good.
	Fail(ctx context.Context, l *Lease, reason string, retryable bool, backoff time.Duration, now time.Time) (JobState, error)
	// Release gives a lease back without a verdict (graceful drain): the
	// job is queued again at once and no attempt is counted.
	Release(ctx context.Context, l *Lease, now time.Time) error
	// Requeue moves every running job whose lease expired before now back
	// to queued (counting an interruption) or to failed when interruptions
	// are exhausted; canceled when a cancel was requested. It returns the
	// number of jobs moved. The leases it sees expired in a live process:
	// no crash is counted.
	Requeue(ctx context.Context, now time.Time) (int, error)
	// Crash records that the executor running the leased job outside the
	// appliance (ExecutorCrashError) died while it ran: the job counts a
	// crash and an interruption and is queued again at once, on
	// probation, with reason as its Error; at its JobCrashLimit-th crash
	// it is failed with QuarantineReason(executor) (audited as
	// ActionJobQuarantine in the same transaction), and it is failed when
	// interruptions are exhausted. It fails with ErrLeaseLost or
	// ErrJobCanceled as Extend.
	Crash(ctx context.Context, l *Lease, executor, reason string, now time.Time) (JobState, error)
	// RequeueOrphans handles every running job at the start of a process:
	// the process that leased it died while it ran. Each counts a crash
	// and an interruption and is queued again at once, or, at its
	// JobCrashLimit-th crash, failed with JobQuarantineReason (audited as
	// ActionJobQuarantine in the same transaction); canceled when a cancel
	// was requested; failed when interruptions are exhausted. It returns
	// the number of jobs moved and the jobs it quarantined.
	RequeueOrphans(ctx context.Context, now time.Time) (moved int, quarantined []*Job, err error)
	// Cancel cancels tenant's job: a queued job becomes canceled at once; a
	// running one gets CancelRequested. A terminal job is ErrConflict;
	// another tenant's job is ErrNotFound.
	// The audit entries commit in the same transaction as the cancel.
	Cancel(ctx context.Context, tenantID, id string, now time.Time, audit ...AuditEntry) (*Job, error)
	// Get returns tenant's job; another tenant's job is ErrNotFound.
	Get(ctx context.Context, tenantID, id string) (*Job, error)
	// Items calls fn for the job's items in index order from index from.
	Items(ctx context.Context, id string, from int64, fn func(JobItem) error) error
	// Sweep applies retention at now: a succeeded job past Expires becomes
	// expired (its items deleted, its Result returned so the caller removes
	// the file); a terminal record past Expires is deleted. It returns the
	// results whose files should be removed.
	Sweep(ctx context.Context, now time.Time, recordRetention time.Duration) ([]JobResult, error)
}

// JobRun is what a handler gets for one lease of a job.
type JobRun interface {
	// Job is the job as leased: Payload, Total, Done and Cursor say where
	// to resume.
	Job() *Job
	// Checkpoint commits items and progress in one transaction (see
	// JobQueue.Checkpoint); ErrLeaseLost or ErrJobCanceled mean stop now.
	Checkpoint(ctx context.Context, p JobProgress, items []JobItem) error
	// Items reads the items committed so far, in index order from from.
	Items(ctx context.Context, from int64, fn func(JobItem) error) error
	// WriteResult writes the job's result file atomically (a temporary
	// file, fsync, rename) through write and returns its name, size and
	// SHA-256. ext is the file extension, e.g. ".zip".
	WriteResult(ext string, write func(w io.Writer) error) (JobResult, error)
}

// JobHandler runs the jobs of one kind. Run must be idempotent from the
// job's last checkpoint: it may be called again for the same job after a
// crash, and must then resume from Job().Cursor without writing a unit
// twice. An error matching ErrInvalid fails the job for good; a context
// error after the run's context ended releases the job (drain); any other
// error is retried with backoff until MaxAttempts.
type JobHandler interface {
	Run(ctx context.Context, run JobRun) (JobResult, error)
}
