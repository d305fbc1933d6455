// Package observations ingests measured signal levels (drive tests) from
// tenants (SPEC §2.7, §2.8, §3, §4.5, §5.3, §8.2; issue 11 items 1–3): one
// row, a JSON batch of up to MaxBatchRows rows, or a drive-test CSV upload.
// It validates every row, checks the optional body signature, deduplicates
// inside the submission and against the tenant's stored rows, accounts for
// training consent, and stores the rows with their audit entries in one
// transaction. It knows nothing of HTTP: web/api decodes and calls one
// method; the composition root passes the store.
//
// # Who may submit
//
// Tier Pro or higher (appliance.ErrForbidden below, SPEC §7). Rows belong
// to the submitting key's tenant and carry the key id as submitted_by; a
// tenant never sees, counts or deduplicates against another tenant's rows.
// Stats: a tenant key of tier Pro or higher counts its tenant's rows; an
// admin key counts every tenant's.
//
// # Rows
//
// Ranges (SPEC §2.7; 422 naming each field): tx_lat, rx_lat [-90, 90];
// tx_lon, rx_lon [-180, 180]; tx_height_m, rx_height_m (0, 500] metres;
// tx_power_dbm [0, 80]; tx_gain_dbi, rx_gain_dbi [-20, 60] dBi (the SPEC
// leaves it open: the span of real antennas, isotropic-referenced);
// cable_loss_db [0, 20]; frequency_mhz (1, 100000] MHz (SPEC §2.7's
// freq_hz (1e6, 100e9] Hz, its deprecated name, stored in Hz);
// observed_dbm [-150, 30];
// source at most 32 characters of [a-z0-9_.-] (upper case is folded to
// lower case: DRIVETEST_TEMS is drivetest_tems); ts finite, within
// [2000-01-01, now + 1 day] epoch seconds, given as a number or as text
// (ParseTs: epoch seconds, or an RFC 3339 / ISO 8601 time with its UTC
// offset; a time without offset is refused).
//
// Defaults apply only to source "api" (the default source) and
// "synthetic": tx_gain_dbi 0, rx_gain_dbi 0, cable_loss_db 0, rx_height_m
// 1.5, ts the time of receipt. Every other source, drivetest_* included,
// must give all of them explicitly (422 naming each missing field). The
// transmitter (tx_lat, tx_lon, tx_height_m) comes from the row, or from
// tower_id when the row omits it (a catalogue tower or one of the
// tenant's own); tx_power_dbm and tx_gain_dbi come from the row, or from
// the tower's record when it states both (appliance.Tower.HasTx: the
// regulator's licence gives the transmitter power and antenna gain of the
// sector; an ERP alone is not split into them), else they are required.
//
// Drive-test files (ParseDriveTest) are read as the batch upload reads its
// CSV (appliance/sheetcsv): ',', ';' or tab separators, decimal commas,
// UTF-8 or Windows-1252, headers in any case with accents and punctuation
// folded.
//
// # Deduplication (SPEC §8.2)
//
// The key is (tower_id, rx_lat rounded to 5 decimals, rx_lon rounded to 5
// decimals, freq_hz rounded to 1 Hz, ⌊ts / window⌋) with window
// Config.DedupWindow (OBSERVATION_DEDUP_WINDOW_SEC, default 60 s). A row
// whose key is already in the submission is deduped_intra_batch; one whose
// key the tenant already stored is deduped_existing. The store keeps an
// index of the keys, so a lookup is exact and touches no other row: it is
// the SPEC's search of [min_ts − window, max_ts + window] made exact by
// the key's time bucket.
//
// # Drive-test files
//
// ParseDriveTest reads a CSV, plain or gzip (detected by its magic
// number), streaming: at most MaxDriveTestBytes (64 MiB) once inflated,
// records (a line, or several when a quoted field holds line breaks) of at
// most MaxDriveTestRecordBytes (128 KiB), and MaxBatchRows data rows;
// past any of them the upload is refused naming csv_file and the limit. A
// gzip stream charges its inflater and its longest record to the request's
// lease on the appliance-wide decode budget (DriveTest.Memory,
// appliance/decodebudget) before it is opened. Together these bound what
// one upload holds to a few hundred KiB beyond its compressed bytes: a
// gzip of zeros, which inflates to one endless line, is refused after
// 128 KiB instead of being held whole (issue 20).
//
// DriveTestRows reads the same files for the command-line evaluations
// (linkplan raytrace eval), which score what a file holds: its caps are
// the caller's (DriveTest.MaxRows, MaxBytes; the eval reads up to 2
// million rows and 1 GiB per file, not the upload's cap per request), a
// row with a cell that is not a number or a signal outside SignalRange
// (−150..30 dBm; rsrp at most −31, rscp at most −25) is skipped and
// counted by cause (RowSkips), and a ts or altitude it cannot read leaves
// that value out without dropping the row.
//
// # Metrics
//
// Stored rows count in coverage_observations_total{source} (SPEC §4.9) on
// the public /metrics. The label is MetricSource's class of the row's
// source (api, drive_test, synthetic, drivetest for every drivetest_<tool>,
// other), never the tenant's own text: any caller can read /metrics.
//
// # Signature (SPEC §5.3)
//
// The batch route may carry X-Observation-Signature: sha256=<hex>, HMAC-
// SHA256 keyed by SHA-256("obs-sign:" + API key) over the raw body, or
// over "<ts>.<raw body>" with X-Observation-Signature-Ts: <ts> (epoch
// seconds, at most Config.MaxSkew = 300 s from now). Compared in constant
// time. A bad signature is 401 whatever the enforcement flag (a body re-
// serialised by a client fails: the bytes differ). With
// Config.RequireSignature (OBSERVATION_REQUIRE_SIGNATURE) an unsigned
// batch is 401 too. Signed rows weigh 1.0 (OBSERVATION_SIGNED_WEIGHT),
// unsigned 0.1 (OBSERVATION_UNSIGNED_WEIGHT). A caller signed in with an
// OIDC token has no API key to derive the secret from: its batches are
// unsigned.
//
// # States and transitions
//
// Consent of a stored row (SPEC §3):
//
//	| state     | trigger                                         | next      | effects                                    |
//	|-----------|-------------------------------------------------|-----------|--------------------------------------------|
//	| (new)     | submission with consent_for_training: true      | consented | counted in granted_for_training            |
//	| (new)     | submission without it, or false                 | refused   | counted in refused_for_training; serves    |
//	|           |                                                 |           | the tenant, excluded from the global       |
//	|           |                                                 |           | model; audit observation.rejected.no_consent|
//	| refused   | operator consent stamping --apply (per source)  | consented | audited (issue 11 item 3)                  |
//	| consented | operator consent stamping --withdraw            | refused   | audited                                    |
//
// Attestation of a source (issue 20; AttestSource, `linkplan
// observations attest`): whether a source's rows are field measurements.
// A source label a tenant chose (drivetest_*) says nothing; only the rows
// an operator attested count as real data for a model's grade and
// field-accuracy claim (appliance/training, appliance/prediction).
//
//	| state      | trigger                                                | next       | effects                                           |
//	|------------|--------------------------------------------------------|------------|---------------------------------------------------|
//	| unattested | attest --source NAME --basis TEXT (one named source;   | attested   | covers the source's rows stored until now (every  |
//	|            | no wildcard, no --all; not "synthetic")                |            | tenant's, counted); audited observation.source.   |
//	|            |                                                        |            | attest with the basis, in the same transaction    |
//	| attested   | attest again                                           | attested   | the record is replaced: it now covers the rows    |
//	|            |                                                        |            | stored until the new time                         |
//	| attested   | attest --withdraw --basis TEXT                         | withdrawn  | covers nothing; audited observation.source.       |
//	|            |                                                        |            | attest.withdraw; the next retrain counts the rows |
//	|            |                                                        |            | as unattested, a served model trained on them     |
//	|            |                                                        |            | stops claiming at its next load                   |
//	| withdrawn  | attest --withdraw                                      | withdrawn  | refused: nothing to withdraw (not found)          |
//
// Data dividend events (SPEC §2.13):
//
//	| state     | trigger                                             | next    | effects                                   |
//	|-----------|-----------------------------------------------------|---------|-------------------------------------------|
//	| (new)     | stored row of a submission with                     | created | amount_brl_cents, settlement_form and     |
//	|           | consent_for_wisp_training: true by a key with an    |         | settled_at NULL; a source label never     |
//	|           | e-mail (identifiable); never for synthetic rows     |         | creates one                               |
//	| created   | linkplan observations dividends settle, with        | settled | amount = rate in centavos, form, time;    |
//	|           | DATA_DIVIDEND_FORM and DATA_DIVIDEND_RATE_BRL_PER_  |         | audited observation.dividend.settle       |
//	|           | EVENT set                                           |         |                                           |
//	| created   | the same without both settings                      | created | refused with a message naming both        |
//
// A submission:
//
//	| outcome               | condition                                         | status |
//	|-----------------------|---------------------------------------------------|--------|
//	| forbidden             | tier below Pro                                    | 403    |
//	| too many rows         | more than MaxBatchRows rows                       | 400    |
//	| invalid               | a field out of range or missing (all named)       | 422    |
//	| signature invalid     | header present and wrong, malformed or skewed     | 401    |
//	| signature required    | RequireSignature and no header                    | 401    |
//	| stored                | otherwise; duplicates counted, not stored         | 200    |
package observations
