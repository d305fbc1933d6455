// Package privacy answers data-subject requests (LGPD art. 18; SPEC §2.12,
// §3, §4.10, §4.11, §8.5): a tenant's own export and erasure ("forget"),
// the admin's export and erasure by key prefix, the overdue list, and the
// daily hard delete on the durable job queue. It imports appliance only;
// appliance/cmd/linkplan gives it the store, the job queue and the
// tenancy step-up check.
//
// # States of a request (dsar_requests)
//
// Times are epoch seconds; "now" is the time of the call. Every
// transition is one transaction together with its audit rows.
//
//	Type   | State     | Trigger                                   | Condition                                        | Next state | Other effects                                                        | Audit action(s)
//	-------+-----------+-------------------------------------------+--------------------------------------------------+------------+----------------------------------------------------------------------+-------------------------------------------------
//	export | (none)    | GET /tenant/me/data/export                | tenant-admin key of the tenant (admin key: 403)   | completed  | bundle returned; answered = now; due_by = now + 15 d                 | tenant.dsar.export
//	export | (none)    | POST /admin/dsar/{prefix}/export          | admin key, fresh TOTP, justification, prefix of   | completed  | bundle returned; answered = now; due_by = now + 15 d                 | admin.dsar.export (subject's tenant),
//	       |           |                                           | one key, confirm_subject_email = its e-mail       |            |                                                                      | admin.dsar.export.served (admin's)
//	erase  | (none)    | POST /tenant/me/data/forget               | tenant-admin key; confirmation "DELETE MY DATA"   | received   | soft erase (below); answered = now; due_by = now + 15 d;             | tenant.dsar.forget.soft
//	       |           |                                           |                                                  |            | erase_scheduled_at = now + 30 d                                      |
//	erase  | (none)    | POST /admin/dsar/{prefix}/erase           | as the admin export; tenant not yet erased        | received   | as forget                                                            | admin.dsar.erase.soft (subject's tenant),
//	       |           |                                           |                                                  |            |                                                                      | admin.dsar.erase.served (admin's)
//	erase  | received  | daily hard-delete job                     | erase_executed_at unset, erase_scheduled_at <=    | completed  | every row of the tenant in every per-tenant bucket and its keys       | dsar.hard_delete (params: dsar_request_id,
//	       |           |                                           | now                                              |            | deleted in one transaction; erase_executed_at = now; tenant id, key  | subject, rows.<bucket>, rows_total)
//	       |           |                                           |                                                  |            | id and prefix cleared from the request (the pseudonym stays)        |
//	erase  | completed | daily hard-delete job                     | erase_executed_at set                             | completed  | nothing (idempotent)                                                 | -
//	any    | any       | a request for an erased tenant's erase    | -                                                | unchanged  | ErrConflict (409)                                                    | -
//
// processing is a state of SPEC §2.12 that these transitions do not use:
// each answer is given in the transaction that records the request.
//
// # Soft erase
//
// In one transaction (store.SoftEraseTenant): every key of the tenant gets
// tier erased, its owner and e-mail replaced by Pseudonym(tenant id) (a
// deterministic pseudonym) and its payment references cleared; every audit
// row of the tenant or of its keys loses actor e-mail, IP address and user
// agent; the e-mail of its data dividend events and billing account and
// the support contact of its branding become the pseudonym; its queued
// jobs are canceled, its running ones stop at their next checkpoint; the
// erase request keeps ErasedRefs, one-way hashes (store.ErasedRef) of the
// tenant id and of its payment customer ids, which the hard delete leaves
// in place, so that a payment event naming them is ignored then and
// later (appliance/billing, issue 20).
// From then on Authenticate answers every key of the tenant with
// appliance.ErrErased: 401 "API key has been erased" on every route.
//
// # Overdue
//
// GET /admin/dsar/overdue lists the open requests (status not completed)
// past a deadline: no answer by due_by (reason answer_due), or an erase
// whose hard delete has not run within 24 h of erase_scheduled_at
// (reason hard_delete_due; SPEC §8.5: at most 31 days in all). As every
// request above is answered in the transaction that records it, an
// overdue answer_due only appears for a request written otherwise (a
// future asynchronous export); hard_delete_due appears when the job queue
// did not run.
//
// # The daily hard delete
//
// Schedule (at Start, then hourly) queues the job of today and of tomorrow
// (ids job_dsar_hard_delete_YYYYMMDD, tenant appliance.SystemTenantID),
// each not before its day's 00:00 UTC; a job already there is left alone.
// So the job of each day runs at 00:00 UTC (or at start-up, when the
// appliance was down then), and a request due at time T is deleted by the
// first midnight after T: within 24 h of the 30-day mark while the
// appliance runs. The job runs HardDeleteDue: one store transaction per
// due request (tenant), which deletes every row of every bucket that the
// store classifies as per-tenant (store.TenantBucketNames; a bucket in
// neither that list nor the global one fails a store test), sets
// erase_executed_at and appends dsar.hard_delete. A crashed or repeated
// run repeats only the requests not yet executed.
//
// # Caveats
//
//   - Tomorrow's hard-delete job waits in the queue all day, so the queue
//     always holds one queued job of kind dsar_hard_delete (tenant
//     _system); its result is a small JSON summary (run time and the
//     executed request ids), removed with the usual retention.
//   - bbolt keeps freed pages: the values replaced by the soft erase and
//     deleted by the hard delete stay in the file until the next start-up
//     compacts it (both transactions mark it, store.CompactPending), and
//     stay in backups taken before.
//   - After the commit, the hard delete removes the tenant's job result
//     files (Options.RemoveResult) and drops its towers from the tower and
//     search indexes (Options.TowersDeleted); the search index on disk
//     keeps the deleted documents' bytes until the next start-up rebuilds
//     it. Coverage maps live in memory only and are evicted as usual.
//   - The soft erase cancels the tenant's queued jobs and asks its running
//     ones to stop (at their next checkpoint); their records and results
//     stay until the hard delete. The job metrics do not count these
//     cancels of queued jobs.
//   - A bundle holds at most ObservationsInBundle observations (100,000);
//     its observation_counts say how many the tenant has.
package privacy
