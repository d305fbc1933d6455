// Package jobs runs durable background jobs (batch reports over 100 rows)
// on a worker pool over an appliance.JobQueue. It imports appliance only;
// appliance/cmd/linkplan gives it the bbolt queue (store.DB) and registers
// the handlers (batch.Service.Handler).
//
// # States
//
// Every transition of a job, as the queue (store/jobs.go) and this
// Service make it. "now" is the time of the call; every transition is
// one transaction.
//
//	State                     | Trigger                            | Condition                                   | Next state | Other effects
//	--------------------------+------------------------------------+---------------------------------------------+------------+-------------------------------------------------------------
//	(none)                    | Enqueue                            | id new, kind registered                     | queued     | Seq assigned; queue entry and the job.submit audit entry written in the same transaction
//	queued                    | Lease                              | chosen by the fairness rule, NotBefore<=now | running    | LeaseToken+1, LeaseOwner, LeaseExpires=now+TTL; Started once
//	queued, on probation      | Lease                              | another job on probation is running         | queued     | skipped: the tenant's next ready job may go first
//	running                   | Extend (heartbeat TTL/3)           | token current, lease not expired            | running    | LeaseExpires=now+TTL
//	running                   | Checkpoint                         | token current, lease not expired            | running    | items written by index (rewrite replaces), Done, Cursor
//	running                   | Ack (handler returned)             | token current                               | succeeded  | Result, Finished; Expires=now+ResultRetention
//	running                   | Fail, retryable                    | Attempts+1 < MaxAttempts                    | queued     | Attempts+1, Error; NotBefore=now+Backoff(Attempts)
//	running                   | Fail, retryable                    | Attempts+1 = MaxAttempts                    | failed     | Error "... (gave up after N attempts)"; items deleted
//	running                   | Fail, permanent (ErrInvalid,       | -                                           | failed     | Attempts+1, Error; items deleted
//	                          |   ErrUnitQuarantined)              |                                             |            |
//	running                   | lease expiry / orphan              | CancelRequested                             | canceled   | items deleted
//	running                   | orphan (process died, Start)       | Crashes+1 = JobCrashLimit (2)               | failed     | Crashes+1, Interruptions+1, Error "stopped the appliance twice; quarantined"; job.quarantine audit entry in the same transaction; never leased again
//	running                   | lease expiry / orphan              | Interruptions+1 < MaxInterruptions          | queued     | Interruptions+1, and Crashes+1 for an orphan (then on probation); queued at once
//	running                   | lease expiry / orphan              | Interruptions+1 = MaxInterruptions          | failed     | Error "interrupted N times (the worker stopped before finishing)"
//	running                   | Release (drain on Close)           | token current                               | queued     | nothing counted; resumes from the last checkpoint
//	queued                    | Cancel                             | tenant owns it                              | canceled   | queue entry removed, Finished; job.cancel audit entry in the same transaction
//	running                   | Cancel                             | tenant owns it                              | running    | CancelRequested; job.cancel audit entry in the same transaction
//	queued / running          | tenant soft-erased (privacy)       | -                                           | as Cancel  | as Cancel, no job.cancel entry (the erase audits itself; store.SoftEraseTenant, same transaction)
//	running                   | Extend/Checkpoint/Ack/Fail/Release | CancelRequested                             | canceled   | ErrJobCanceled to the worker; a checkpoint writes no items
//	terminal                  | Cancel                             | -                                           | terminal   | ErrConflict
//	any                       | any lease call                     | stale token or expired lease                | unchanged  | ErrLeaseLost; nothing written (fencing)
//	succeeded                 | Sweep                              | Expires < now                               | expired    | items deleted, result file removed
//	failed, canceled, expired | Sweep                              | Finished+RecordRetention < now              | (deleted)  | record, items and indexes deleted
//
// Another tenant's job reads as missing (appliance.ErrNotFound) to Get,
// Cancel and Open.
//
// The handler's verdict: nil error → Ack; an error matching
// appliance.ErrInvalid or appliance.ErrUnitQuarantined (a work unit of the
// job stopped its workers twice, store/jsq) → permanent Fail; a context error while draining →
// Release; ErrLeaseLost or ErrJobCanceled → nothing more (the queue has
// already decided); a panic → recovered, logged with its stack, and a
// retryable Fail with the reason "internal error (reference <job id>)"
// (appliance.Recoverer: the panic is logged once at ERROR with its stack
// under the job id and counted in
// linkplan_recovered_panics_total{component="jobs.<kind>"}); any other
// error → a retryable Fail. Backoff is deterministic: 5 s, 30 s, then
// 2 min. A handler that runs work on goroutines of its own recovers their
// panics itself (a recover catches only its own goroutine's panic). The
// requeue and sweep loops recover a panic per round (component
// "jobs.loop") and go on.
//
// Admission: with Options.Admission and Options.Cost, a leased job that
// Cost sizes (batch reports, repeater plans; a raytrace job to come) waits
// for its grant of the appliance's heavy-work budget (appliance/admission)
// before its handler runs, still running in the table above: its lease is
// renewed meanwhile, a cancel or a drain ends the wait as it ends a
// handler, and Get reports its place in that queue (Job.QueuePosition).
// Jobs are durable work: never refused by the scheduler, they wait. The
// handler's context carries the grant, and handlers run at most
// appliance.WorkersFrom(ctx, ...) goroutines.
//
// Orphans: the store's file lock admits one process, so when Start runs
// every running lease belongs to a dead process; Start requeues them all
// at once (RequeueOrphans: each counts an interruption and a crash)
// instead of waiting for their expiry. Later, the requeue loop runs every
// RequeueInterval (default the lease TTL, 30 s) for leases that expired in
// this process (an interruption, not a crash).
//
// # Crashes and quarantine
//
// A panic is recovered, but some failures end the process whatever the
// code does (running out of memory, a fatal runtime error, a kill). A job
// that was running when the process died is leased again once, on
// probation; if the process dies again while it runs, it is quarantined:
// failed with appliance.JobQuarantineReason ("stopped the appliance twice;
// quarantined"), audited as job.quarantine, logged at ERROR, and never
// started again automatically (the tenant may submit it again). Before,
// such a job was re-leased at every start up to MaxInterruptions (10)
// times, taking the appliance and every other tenant's running jobs down
// each time.
//
// Blame: a process death is counted against every job running at it.
// Jobs on probation (Crashes > 0) run one at a time (Lease skips them
// while one runs), so the second death lands on one suspect at most: a job
// that merely ran beside the culprit once is leased again, on probation,
// and finishes. Only a job that was running at two deaths, the second
// while it alone of the suspects ran, is quarantined. A graceful drain
// (Close, SIGTERM) releases its leases and is not a death; Release does
// not reset the count.
//
// # Lanes and fairness
//
// Enterprise and Ultra tenants use the priority lane, the rest the
// standard lane (appliance.LaneOf). Lease takes from the priority lane,
// except that after 3 priority leases in a row made while the standard
// lane had a ready job, the next lease takes from the standard lane: under
// contention priority gets at most 3/4 of leases and standard at least 1/4
// (P P P S P P P S ...). Within a lane, tenants are served round-robin: the
// tenant with a ready job that was served least recently in that lane goes
// first (a tenant never served before first of all, ties by the older
// job), and a tenant's ready jobs run FIFO by Seq. A queued job whose
// NotBefore is in the future (retry backoff) is skipped, and the tenant's
// next ready job may go ahead of it. Lease visits each tenant's queue
// entries of a lane only up to its first ready one; it never scans all
// jobs.
//
// # Retention
//
// A succeeded job's result file stays downloadable for ResultRetention
// (default 7 days); then the sweep (hourly) removes the file and the job
// becomes expired. Records of failed, canceled and expired jobs stay for
// RecordRetention (default 30 days, counted from Finished) so that a
// tenant can still see what happened to a job, then they are deleted.
//
// # Why the queue interface is small
//
// appliance.JobQueue holds only atomic, lease-fenced operations; the
// worker pool, heartbeats, backoff policy, result files and retention loop
// live here. A clustered backend (NATS JetStream, Postgres SKIP LOCKED)
// can replace the bbolt queue without touching this package or the
// handlers. What would change then is the orphan rule of Start, which
// relies on the single-node file lock.
package jobs
