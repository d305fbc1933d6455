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
package jsq
