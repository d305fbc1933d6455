// Package quota meters tenants: the monthly quotas of SPEC §8.1 (calls,
// PDF reports, AI calls, towers per key) and the per-minute rate limit of
// each route group. It knows nothing of HTTP: web/api calls Admit once per
// authenticated request, after the key is known and before the handler.
// (The starting layout put quotas in appliance/tenancy; they are a package
// of their own because they share nothing with key issue and TOTP
// step-up but the key record, and sit on the hot path of every request.)
//
// # Counters
//
// Counts are per tenant (every key of a tenant shares them), per calendar
// month, per counter:
//
//	counter  counted when                                        cap (SPEC §8.1)                          refusal
//	calls    Admit admits a request of any group but "tenant"    Free 200, Starter 3,000, Pro 25,000,      429 quota_exceeded,
//	                                                             Business 150,000, Enterprise 500,000,     Retry-After: until
//	                                                             Ultra 1,000,000                           the month resets
//	pdfs     a batch job or POST /reports/* reserves a PDF       Free 5, Starter 50, Pro 500, Business     the job's bundle has
//	         (store/pdfquota.go, one transaction per reserve)    5,000, Enterprise and Ultra 100,000       fewer PDFs; a report 429
//	ai       ChargeAI (the hook of the AI routes, SPEC §4.7)     Free 0 (no AI: 403), Starter 100, Pro     429 quota_exceeded
//	                                                             1,000, Business 5,000, Enterprise
//	                                                             20,000, Ultra 50,000 (appliance's choice)
//	towers   a tower registration (store.PutUserTower)           per key, not per month: Free 20, Starter  429 quota_exceeded
//	                                                             100, Pro 500, Business no cap (null),
//	                                                             Enterprise and Ultra 10,000
//
// A call counts when it is admitted, whatever the handler then answers
// (a 422 costs a call: the appliance did the work of reading it). Refused
// calls (401, 429) do not count. The "tenant" group (GET /v1/me/quota,
// GET /tenant/audit) is rate-limited but not counted, so that a tenant
// whose calls are spent can still see why. Admin keys are not metered:
// GET /v1/me/quota answers null caps with a reason. No cap is ever stated
// with a word: a counter without a cap has limit null and a reason.
//
// # The month
//
// A month is the calendar month in America/Sao_Paulo: it starts at 00:00
// of the first day in São Paulo, which is 03:00 UTC (Brazil has had no
// daylight saving time since 2019; without a zone database the fixed
// −03:00 offset gives the same instants). A request at 02:59:59 UTC on
// 1 April counts in March; one at 03:00:00 UTC counts in April, against a
// fresh quota. The PDF counter of store/pdfquota.go uses the same rule.
//
// # Persistence and the worst-case loss
//
// The counts live in memory, loaded from the store (bucket usage,
// store/usage.go) on a tenant's first request of a month, and are written
// in batches: the flush loop started by Start writes every pending count
// in one transaction each FlushInterval (1 s by default), and Close writes
// the rest. A restart after Close loses nothing. A crash (kill -9, power
// loss) loses the counts admitted since the last flush that committed: at
// most FlushInterval of traffic, i.e. for one tenant at most the sum of
// its group rates for one second (a Free tenant: well under 1 call; the
// monthly cap is overrun by at most that). While the store refuses writes
// the counts stay pending and are retried every interval; a crash then
// loses everything since the last success. The PDF counter is not batched:
// each reservation is its own transaction, so it loses nothing.
//
// # Rate limits
//
// Each (tenant, route group) has a GCRA limiter: limit L requests per
// RateWindow (one minute), a burst of L, one request every 60/L s on
// average. The RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
// headers (IETF draft-ietf-httpapi-ratelimit-headers; Reset in seconds)
// describe the limit closest to exhaustion: the group's rate, or the
// month's calls when fewer calls are left than requests of the rate. A
// refused request gets Retry-After (seconds until a retry can succeed).
// The limiter state is in memory: a restart gives every tenant a full
// minute's allowance again, which is at most one burst.
//
// Requests per minute per tier and route group (SPEC §8.1 fixes Pro
// observations 600 and Pro prediction 6; the rest are the appliance's
// choice). A route a tier may not use (Free on observations) still has a
// rate, so that it answers its 403, not a 429:
//
//	group         routes                                                  Free  Starter  Pro  Business  Enterprise  Ultra
//	read          GET /towers, /towers/nearest, /towers/{id}, /places,      30     60     300    600       1200      2400
//	              /terrain/point, /coverage/engines, /jobs/{id},
//	              /jobs/{id}/download, /coverage/heatmap/{id}(/events,
//	              /export), and any other GET route
//	compute       POST /analyze_link, /analyze, /coverage/engines/predict,   10     30     120    300        600      1200
//	              /coverage/engines/compare, /exports/link, /reports/link,
//	              /links/ptp, /reports/ptp, /exports/ptp,
//	              /plan_repeater, and any other non-GET route
//	prediction    POST /coverage/predict                                     6      6       6     30        120       240
//	maps          POST /coverage/heatmap, /coverage/best_server,              2      5      20     60        120       240
//	              /coverage/raytrace, /coverage/interference,
//	              /coverage/viewshed
//	batch         POST /batch_reports, /jobs/{id}/cancel                      5     10      30     60        120       240
//	write         POST /towers, POST /buildings/layers,                      10     30      60    120        300       600
//	              DELETE /buildings/layers/{id}
//	observations  POST /coverage/observations, .../batch, .../drivetest     60     60     600   1200       3000      6000
//	ai            /ai/ routes                                               10     10      30     60        120       240
//	tenant        GET /v1/me/quota, /tenant/audit (not counted as calls)    30     30      60     60        120       120
//
// Admin routes (/admin/...) are used with admin keys, which are not
// metered; /health, /metrics, the map tiles (/tiles/hillshade/...,
// /tiles/elevation/...) and the other public routes are not metered.
//
// # Cost per request
//
// bench_test.go measures what metering adds to a request (goal: at most
// 20 µs with authentication). On the 2-core development VM, shared and
// loaded (load average 14), BenchmarkAuthQuota (the key's SHA-256 and
// bbolt lookup, then Admit) took 13-18 µs a request, BenchmarkAuthOnly
// 10-16 µs, BenchmarkAdmit (the accounting alone) 0.7-1.0 µs with one
// 8-byte allocation; the naive baseline, a bbolt read and write
// transaction per request, 3.3-6.2 ms (an fsync each). Quieter runs of
// BenchmarkAuthQuota gave 5.3 µs.
//
// # Caveats
//
//   - The rate limits and the counts are per appliance process: two
//     appliances sharing a tenant would each allow its quota.
//   - A tenant's monthly count is read from the store once per month and
//     process; a second process writing the same database is not seen.
package quota
