// Package jsq is the NATS JetStream side of heavy work (issue 28): the
// embedded server, the job queue with its lease messages, and the
// dispatch of work units to workers with their results coming back.
// It is a leaf: it imports appliance and the NATS libraries only; the
// job ledger (store.DB) comes in as the Ledger interface.
//
// # What lives where
//
// The appliance stays the only writer of tenant data. bbolt (the ledger)
// keeps every job record, payload, checkpointed item, result description
// and audit entry, and every state transition of a job is one bbolt
// transaction that writes its audit entries with it. JetStream carries
// what moves between processes: the lease of a running job (its
// liveness), the work units waiting for a worker, their results on the
// way back, and the announcements (inputs, worker status).
//
// Why not the job records in JetStream too: an audit entry must commit
// with the transition it records, the fairness rule reads the queue
// heads of every tenant and lane in one snapshot, and a tenant's erasure
// (privacy) cancels its jobs in the transaction that erases it. JetStream
// has no transaction spanning a stream and the appliance's database, so
// any split of a transition between them would leave a window where one
// says done and the other not. The ledger makes each transition atomic;
// JetStream holds only messages whose loss or duplication the ledger
// absorbs (a lease message is checked against the ledger's fencing token;
// a result is merged once per unit key). Backups (issue 21) copy one
// file, and the server's files hold nothing that a restart cannot
// rebuild.
//
// # Job queue
//
// JobQueue implements appliance.JobQueue: the ledger decides (the state
// table of package appliance/jobs, the same contract tests,
// store/storetest), and each lease is also a message on
// <prefix>.jobs.lease.<job id> in stream <prefix>_JOBS (work-queue
// retention, file storage), held unacknowledged by the process that
// leased the job:
//
//	Call / event                     | Ledger (bbolt, one transaction)              | Lease message (JetStream)
//	---------------------------------+----------------------------------------------+------------------------------------------------
//	Enqueue                          | record, payload, queue entry, job.submit     | -
//	Lease                            | queued → running, token+1 (fairness rule)    | published (msg id job/token), fetched, held
//	Extend, Checkpoint               | lease renewed; items and progress            | InProgress: its ack wait starts again
//	Ack, Fail, Release               | the verdict                                  | acknowledged (double ack): removed
//	Extend/... after a cancel/loss   | ErrJobCanceled / ErrLeaseLost                | acknowledged
//	holder silent for LeaseTTL       | -                                            | delivered again to the live queue
//	redelivery, token still current  | RequeueOrphan: crash+1, interruption+1;      | acknowledged
//	  (the holder died)              |   at JobCrashLimit failed "quarantined" with |
//	                                 |   job.quarantine in the same transaction     |
//	redelivery, token stale          | -                                            | acknowledged (dropped)
//	redelivery of a lease it holds   | -                                            | the new delivery is held (renewal came late)
//	Requeue (expiry in this process) | running → queued / failed / canceled         | held messages of ended leases acknowledged
//	RequeueOrphans (start)           | every running job: crash+1 (file lock rule)  | the dead process's messages come back, stale
//	Cancel, Get, Items, Sweep        | as the bbolt queue                           | -
//
// Lease publishes and fetches under one mutex, so the fetched message is
// its own (or a redelivery, handled first). A failure to publish or fetch
// releases the ledger's lease and returns the error: a lease is never
// given without its message. A crash between the ledger's lease and the
// message leaves a running job without one, which the next start
// requeues (RequeueOrphans). With one appliance the ledger's file lock
// makes RequeueOrphans exact at start, so the redelivery path counts the
// death of a holder outside this process (a second queue over the same
// ledger: TestLeaseHolderDeathByRedelivery); it is the rule a standby
// that takes over (issue 21) needs, since its predecessor's leases die
// with it.
//
// # Units
//
// Heavy work is split into appliance.WorkUnit (coverage radials, batch
// rows) by its service. Executor publishes the units of a run on
// <prefix>.units.<kind> (stream <prefix>_UNITS, work-queue retention,
// message id job/run/index, so a publication retried within two minutes
// is stored once), at most a window (DefaultWindow, 32) out at once, the
// next one as each result is merged. Every worker, the appliance's own
// included, pulls from the one durable consumer "workers" (ack explicit,
// AckWait = Config.UnitAckWait, BackOff, MaxDeliver =
// appliance.JobCrashLimit), heartbeats a unit it computes (InProgress
// every AckWait/3), publishes its result on <prefix>.results.<job>
// (stream <prefix>_RESULTS, message id = the unit's key) and only then
// acknowledges the unit. The appliance's durable consumer "appliance"
// reads the results, merges each unit once (by index within its run) and
// acknowledges the result after the merge.
//
//	Unit state       | Trigger                                    | Next             | Effect
//	-----------------+--------------------------------------------+------------------+-----------------------------------------------------
//	(none)           | Execute, within the window                 | waiting          | published (retried while the server is away)
//	waiting          | a ready worker fetches it                  | computing        | delivery n
//	computing        | heartbeat                                  | computing        | ack wait starts again
//	computing        | result published, unit acknowledged        | done             | the result waits in the results stream
//	computing        | the worker dies or goes silent (AckWait)   | waiting          | delivered again after BackOff[n] (another worker)
//	computing        | inputs planned on differ from the worker's | waiting          | Nak with 1 s delay (counts a delivery)
//	computing, n = 2 | the second worker dies                     | quarantined      | max-deliveries advisory: message deleted, the run fails
//	                 |                                            |                  |   with appliance.ErrUnitQuarantined (never retried)
//	done             | result read by the appliance               | merged / dropped | merged once; a result of a merged unit (its worker died
//	                 |                                            |                  |   after publishing, before acknowledging) is dropped
//	waiting / comp.  | the run fails or its context ends          | deleted          | message deleted from the stream; a late result is stale
//	any              | the appliance starts                       | purged           | units and results of dead runs purged (their runs died)
//
// Exactly-once effect: delivery is at least once, merging is at most once
// per (job, run, index), and the merge is itself idempotent (a map's
// pixels, a batch's items keyed by row), so a result counted twice is
// impossible and a unit is never lost while its run waits: it is merged,
// or the run fails with the reason.
//
// Tenancy: a unit carries its tenant, tier, input digests, deadline and
// result bound, and only the data its computation reads (a radial's
// pixels, a chunk's rows and the tenant's own towers). The worker user of
// the embedded server (WorkerPermissions) may pull and acknowledge units,
// publish results and its status, and read the inputs announcement;
// nothing else: no results of others, no stream administration, no
// tenant record. Fairness between tenants is decided before: the
// admission scheduler grants runs (appliance/admission), and runs share
// the workers window by window.
//
// Inputs: the appliance announces the digests of its read-only inputs
// (terrain, public towers, engines) in the bucket <prefix>_INPUTS; a
// worker watches it and pulls nothing while its own differ, saying why in
// its status (bucket <prefix>_WORKERS, refreshed every 5 s, expiring
// after 30 s), which the appliance shows in /health/ready and
// /platform/maturity.
package jsq
