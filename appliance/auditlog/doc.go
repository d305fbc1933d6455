// Package auditlog reads the audit log (SPEC §2.11) for tenants and the
// admin, and names every audit action the appliance writes. Writers put
// their entry in the transaction of the change they audit (the store's
// Put/Enqueue/Cancel methods take the entries); this package only pages.
//
// # Who sees what
//
//	caller                 route                 entries                       actor fields (key, e-mail, IP, user agent)
//	tenant or internal     GET /tenant/audit     its own tenant's only         shown when the actor is a key of the tenant;
//	key                                                                        an operator's (admin key) replaced by
//	                                                                           actor_key "operator", e-mail/IP/UA dropped
//	admin key              GET /tenant/audit     refused, 403 (SPEC §5.1.3:
//	                                             tenant self-service refuses
//	                                             admin keys)
//	admin key              GET /admin/audit      every tenant's, or one        all; the read itself is audited
//	                                             tenant's (filter tenant_id)   (admin.audit.read, params: the filters)
//	other key              GET /admin/audit      refused, 403                  -
//
// A page holds at most Limit entries, newest first; NextBefore (the
// sequence number of the last entry) asks for the next page, and is 0 at
// the end. Filters: action (exact name), from (inclusive) and to
// (exclusive) as times. Reading the admin log needs the admin key only
// (no TOTP step-up: paging would spend one 30 s code per page), and every
// read writes its admin.audit.read row before the page is returned: a
// read that cannot be audited is not served.
//
// # What writes an entry
//
//	route or actor                          action                  written by, and when
//	POST /admin/keys                        admin.key.issue         store.PutKey, with the key
//	POST /towers                            tower.register          store.PutUserTower, with the tower
//	POST /batch_reports (queued), POST      job.submit              store.Enqueue (appliance/jobs), with the job
//	  /plan_repeater (queued)
//	POST /jobs/{id}/cancel                  job.cancel              store.Cancel, with the cancel
//	POST /reports/link, /reports/ptp        report.pdf              store.ReservePDFs, with the PDF reservation
//	POST /coverage/heatmap, /best_server    coverage.map.start      appended right after the in-memory map starts
//	GET /admin/audit                        admin.audit.read        appended before the page is read
//	GET /admin/tenants                      admin.tenants.list      appended before the page is read (appliance/tenancy;
//	                                                                params: limit, after)
//	admin TOTP step-up refusals             admin.totp.*            appliance/tenancy
//	first start                             admin.bootstrap         store.PutKey, with the admin key
//	retrain job, linkplan model retrain     model.promoted,         store.PutModelDecision, with the decision (appliance/training;
//	  (tenant _system)                      model.kept                params: job_id, trigger, n_train, n_holdout, candidate and served RMSE)
//
// Calls that change nothing but the tenant's usage counters (analyses,
// exports, reads) are counted (appliance/quota), not audited.
//
// # Actions
//
// appliance.Actions lists every action name the appliance writes; those of
// SPEC §6 are spelled exactly as there (appliance.SpecActions).
package auditlog
