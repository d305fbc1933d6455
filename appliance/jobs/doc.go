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
//	running                   | Extend (heartbeat TTL/3)           | token current, lease not expired            | running    | LeaseExpires=now+TTL
//	running                   | Checkpoint                         | token current, lease not expired            | running    | items written by index (rewrite replaces), Done, Cursor
//	running                   | Ack (handler returned)             | token current                               | succeeded  | Result, Finished; Expires=now+ResultRetention
//	running                   | Fail, retryable                    | Attempts+1 < MaxAttempts                    | queued     | Attempts+1, Error; NotBefore=now+Backoff(Attempts)
//	running                   | Fail, retryable                    | Attempts+1 = MaxAttempts                    | failed     | Error "... (gave up after N attempts)"; items deleted
//	running                   | Fail, permanent (ErrInvalid)       | -                                           | failed     | Attempts+1, Error; items deleted
//	running                   | lease expiry / orphan              | CancelRequested                             | canceled   | items deleted
//	running                   | lease expiry / orphan              | Interruptions+1 < MaxInterruptions          | queued     | Interruptions+1; queued at once
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
// appliance.ErrInvalid → permanent Fail; a context error while draining →
// Release; ErrLeaseLost or ErrJobCanceled → nothing more (the queue has
// already decided); a panic → recovered, logged with its stack, and a
// retryable Fail with the reason "internal error"; any other error → a
// retryable Fail. Backoff is deterministic: 5 s, 30 s, then 2 min.
//
// Orphans: the store's file lock admits one process, so when Start runs
// every running lease belongs to a dead process; Start requeues them all
// at once (each counts an interruption) instead of waiting for their
// expiry. Later, the requeue loop runs every RequeueInterval (default the
// lease TTL, 30 s) for leases that expired in this process.
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
