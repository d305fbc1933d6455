// Package batch runs batch link reports (SPEC §4.6, issue 8 items 2 and 4):
// many receiver sites analysed like POST /analyze_link, synchronously up to
// SyncMaxRows rows, through the durable job queue above that, with a zip
// bundle of results, geo files and PDF reports.
//
// It is a service: it imports appliance and the pure appliance/* packages
// (planner for Defaults and Validate, geoexport, report), never web or
// store. The HTTP routes (web/api) parse the body (ParseCSV or JSON rows),
// call Service.Submit and map its errors; the composition root registers
// Service.Handler for appliance.JobKindBatchReport and passes the store as
// the PDFQuota.
//
// # Tiers
//
// Rows per job (Limit, SPEC §8.1): Free 0 (batch disabled:
// appliance.ErrForbidden, "batch reports are not available on the Free
// tier"), Starter 100, Pro 2,000, Business 5,000, Enterprise 10,000, Ultra
// 50,000. A batch over the limit is a *LimitError (matches
// appliance.ErrInvalid, HTTP 400) with the message
//
//	batch has 2500 rows; the Pro tier allows at most 2000 rows per job
//
// never a queued job. PDF reports per calendar month (PDFLimit): Free 5,
// Starter 50, Pro 500, Business 5,000, Enterprise 100,000; Ultra is "not
// shown" in the SPEC and gets Enterprise's 100,000. The month is the
// calendar month in America/Sao_Paulo of the job's creation
// (store/pdfquota.go). Jobs run in lane appliance.LaneOf(tier): priority
// for Enterprise and Ultra.
//
// # Rows
//
// A Row is the receiver of /analyze_link flattened: lat, lon (degrees),
// height (metres above ground, default 10), frequency_mhz, max_distance_km
// (default 30), rx_gain_dbi (0), cable_loss_db (0), rx_threshold_dbm
// (-95), assumed_eirp_dbm (58), operator, engine (Options.Engine when
// empty; the tier rules of EngineResolver apply). A value not given is a
// nil pointer and gets the default of planner.Defaults, exactly as an
// omitted JSON field of /analyze_link; an explicit 0 is kept. Each row is
// analysed with the submitting key's tenant (its own towers are visible),
// with no alternatives. A row's failure never fails the batch: a bad value
// (parser), a missing lat, lon or frequency, a value out of range
// (planner.Validate), an unknown engine, a terrain tile that no pack holds
// (appliance.ErrTerrainMissing, no sea-level fallback) make that row's
// status "error" with a reason and the bad fields.
//
// Row statuses (the geoexport values): "ok" (best tower, margin >= 0 dB),
// "low_margin" (best tower, margin < 0 dB), "no_tower" (none in range or
// none evaluable; reason says why), "error".

// A row's best tower is the planner's (package doc, "Ranking": a real
// tower with a well-known position whose link closes before a stronger
// synthetic or position-uncertain one), and its warnings are the
// analysis warnings, so a row whose best tower was preferred to a
// stronger one carries stronger_tower_demoted, and its PDF lists the
// best tower's caveats.
//
// # CSV input
//
// ParseCSV (ReadCSV) reads a header line and data rows through
// appliance/sheetcsv, the reader the drive-test upload
// (appliance/observations) shares, so both take the same files:
//
//   - Encoding: UTF-8, with or without a BOM; a file that is not valid
//     UTF-8 is read as Windows-1252 (Excel pt-BR "CSV" exports) and
//     converted.
//
//   - Separator: the most frequent of ',', ';' and tab in the header line
//     (outside quotes). Fields may be quoted ("…", RFC 4180; stray quotes
//     are tolerated). Blank lines and lines of separators only are skipped.
//
//   - Numbers: '.' decimals, or pt-BR ',' decimals ("-22,9519": a bare
//     field of a ';' or tab file, a quoted field of a ',' file). With both
//     marks the last one is the decimal mark ("1.234,5" and "1,234.5" are
//     1234.5).
//
//   - Headers are matched case-, accent-, space- and punctuation-
//     insensitively (only letters and digits count: "Frequência (MHz)" is
//     frequencia_mhz). Columns and their accepted headers are below.
//
//     receiver_id       id, receiver_id, receiver, name, nome, site, cliente, client, customer
//     lat (required)    lat, latitude, latitud, y, lat_deg
//     lon (required)    lon, lng, long, longitude, longitud, x, lon_deg
//     height            height, height_m, altura, altura_m, rx_height, rx_height_m,
//     antenna_height, antenna_height_m, altura_antena
//     frequency_mhz     frequency_mhz, freq_mhz, frequency, freq, frequencia,
//     (required)        frequencia_mhz, frequência, frequência_mhz
//     max_distance_km   max_distance_km, max_distance, radius_km, radius, raio_km, raio,
//     distance_km, distancia_max_km
//     rx_gain_dbi       rx_gain_dbi, rx_gain, gain_dbi, ganho, ganho_dbi, ganho_rx, ganho_rx_dbi
//     cable_loss_db     cable_loss_db, cable_loss, perda_cabo, perda_cabo_db, perda_db
//     rx_threshold_dbm  rx_threshold_dbm, rx_threshold, threshold_dbm, threshold,
//     sensibilidade, sensibilidade_dbm, limiar, limiar_dbm
//     assumed_eirp_dbm  assumed_eirp_dbm, assumed_eirp, eirp, eirp_dbm
//     operator          operator, operadora, operador, carrier
//     engine            engine, motor, modelo, propagation_engine
//
// Aliases returns this table. Unknown headers are ignored and listed in
// CSVFile.Unknown (a warning for the client).
//
// The file is refused (appliance.ValidationError naming the field) when it
// is empty, has no data rows, lacks a required column ("lat: required
// column is missing (accepted headers: …)"), maps two headers to one
// column, or holds a record longer than MaxRecordBytes (64 KiB; found by a
// scan that reads quotes as encoding/csv does, before the CSV reader copies
// any record, which would hold about three copies of it); with a *LimitError when it has more than maxRows data rows (the
// rows beyond are counted, not parsed, up to MaxCountedRows, so the message
// states the real count). A bad value makes only its row an error row.
//
// # Jobs
//
// Submit with more than SyncMaxRows rows enqueues a job whose Payload is
// the JSON Payload (rows with resolved engines, options, tier, tenant,
// submit time). Handler analyses the rows from the job's cursor ({"next":
// row index}, or Job.Done) in chunks (at most ChunkRows rows, no new row
// handed out after ChunkTime) over Workers goroutines, results placed by
// index, and commits each chunk with one checkpoint: one appliance.JobItem per row (Index = row index, Data = the
// compact JSON RowResult) and progress {Done, Cursor}. It stops at once on
// a canceled context (returning ctx.Err()) and on a checkpoint refusal
// (appliance.ErrJobCanceled, appliance.ErrLeaseLost, wrapped). The bundle
// is then built from the committed items only (run.Items), so a resumed
// job's bundle is byte-identical to an uninterrupted one's. Payload or
// item corruption matches appliance.ErrInvalid (the job fails for good).
// The PDF quota is reserved before the bundle is written (idempotent per
// job id): a job canceled after that keeps its reservation.
//
// # Panics
//
// Rows and per-row reports run on goroutines of their own, each under
// Deps.Recover (appliance.Recoverer), because a recover catches only its
// own goroutine's panic and an unrecovered one ends the process (issue
// 20: an emoji in a row id made the PDF renderer panic and the appliance
// crash-looped on the re-leased job). A row whose analysis panics is an
// error row (status error, reason "internal error (reference <job or
// request id>)"); a report whose rendering panics is left out, and
// pdfs_left_out_reason names its row and the reference. The panic is
// logged once at ERROR with its stack and counted in
// linkplan_recovered_panics_total{component="batch.row"} or
// {component="batch.pdf"}; the other rows and reports go on.
//
// # Bundle
//
// run.WriteResult(".zip"): a zip whose entries are Deflate-compressed, all
// dated the job's creation time, in this fixed order:
//
//	results.csv       one line per input row, RFC 4180 (CRLF), ',' separator,
//	                  '.' decimals, columns ResultColumns(): the input echoed
//	                  after defaults, the best tower, figures, engine, status,
//	                  warning codes (';'-separated), reason, then the best
//	                  tower's caveats: synthetic (true/false),
//	                  position_uncertainty_m (metres, empty when unknown) and
//	                  warning_messages (one per code, same order, separated
//	                  by " | "). Numbers and booleans are bare; text cells are
//	                  double-quoted and neutralised for spreadsheets
//	                  (geoexport.SpreadsheetSafe: a leading ' on a text
//	                  starting with = + - @ tab CR or '; ReadResults removes
//	                  it)
//	results.geojson   points of the rows with a valid position (geoexport.LinkSchema:
//	                  warnings holds the ';'-separated codes, with synthetic
//	                  and position_uncertainty_m)
//	results.kml       the same, styled by status
//	results.shp .shx .dbf .prj .cpg
//	                  the same as a Shapefile (WGS84, UTF-8); dBase names are
//	                  geoexport.ShortNames of the long names, listed in the
//	                  manifest (shapefile_fields): receiver_i, row, lat, lon,
//	                  tower_id, operator, distance_k, azimuth_de, margin_db,
//	                  rx_power_d, engine, status, warnings, eirp_assum,
//	                  synthetic, position_u
//	reports/row-00001.pdf …
//	                  one PDF link report per row with a best tower, in row
//	                  order, as many as the monthly PDF quota grants (the row's
//	                  analysis is re-run with its profile: deterministic)
//	summary.pdf       the batch summary (report.WriteSummary)
//	manifest.json     job id, tenant, tier, created, counts by status,
//	                  engines and versions, terrain provenance, PDFs included
//	                  and left out with the reason (e.g. "monthly PDF quota of
//	                  the Pro tier (500) reached: 312 used before this job"),
//	                  and name, size and SHA-256 of every other file
//
// # Determinism
//
// The results, the bundle and every file in it depend only on the rows,
// the options, the data (towers, terrain, engines) and the job's creation
// time: never on the core count, the chunking, interruptions or the time
// the job ran. PDF quota grants are idempotent per job id, so a re-run
// after a crash includes the same reports.
//
// # Performance
//
// A job's time is its rows' analyses: a CPU profile of a 5,000-row job on
// the real binary with the 140,000-tower national set (BenchmarkBatch5kAsync
// with LINKPLAN_BENCH_CPUPROFILE, serve --cpuprofile) puts the job's
// checkpoints, item JSON and bundle (PDFs off) at about 1 % of the CPU;
// the planner's AnalyzeLink is nearly all the rest of the job (a Rio receiver
// has about 1,200 towers within 30 km), the same work as a /analyze_link
// call for the row. BenchmarkBatch100kAsync (two 50,000-row Ultra jobs,
// PDFs off) on the 2-core development VM, each time paired with the
// previous build in one run: on the machine otherwise nearly idle (load
// average 1 to 3 with the benchmark's own), 277.9 → 189.0 s end to end and
// 520.2 → 349.9 s of server CPU (-33 %); under other work (load average 5
// to 10) 615.9 → 392.0 s and 575.2 → 394.9 s of CPU. Of that, the
// planner's coarse-to-fine sparse bounds gave about three quarters (577.9
// → 436.6 s of CPU in a run of their own) and the pooled candidate slice
// the rest. Then, paired with that build in one run (load average about
// 2.2 to 2.6 with the benchmark's own), 185.9 → 172.7 s end to end and
// 346.3 → 319.0 s of server CPU (-8 %), from the planner's sparse bounds
// refining each stride's profile from the previous one's, taking the
// loss alone from fspl (no prediction map) and computing the receiver's
// trigonometry once a search (planner doc, "Search"); in
// BenchmarkBatch5kAsync the same change took AnalyzeLink from 3.2 to 2.7
// ms of CPU a row. Then the sparse bounds took a covered path's samples
// one at a time and stopped at the one that proves a tower out (planner
// doc, "Search": the same analyses field for field, from about half the
// samples), sampled through a path geometry computed once and allocated
// nothing a tower. Paired with the previous build in one run on the
// machine nearly idle (load average 2.1 to 4.3 with the benchmark's
// own), BenchmarkBatch5kAsync took AnalyzeLink from 11.5 to 6.5 s of CPU
// (2.30 to 1.30 ms a row) and BenchmarkBatch100kAsync went from 147.6 to
// 97.3 s end to end and from 274.3 to 176.4 s of server CPU (-36 %),
// within the 2-minute goal; run again in the other order (new build
// first, load average 2.2 to 2.5), 151.5 to 97.9 s and 281.2 to 174.4 s
// of CPU. On the machine busy with other work (load average 5.2 to 7.4)
// the same change short of its last commit went from 326.3 to 152.0 s
// and from 315.5 to 188.4 s of CPU. What remains of a row is about three
// fifths the sampled bounds (great-circle points and bilinear reads in
// equal parts), a fifth the full profiles of the evaluated towers and an
// eighth the tower index's range search (store/spatial); GC is about a
// tenth of the server's CPU.
//
// # Units
//
// With Deps.Units (serve --queue jetstream) a job's rows are analysed as
// batch.rows units of that executor: the rows from the job's cursor, in
// chunks of UnitRows (256), each unit carrying its rows, their engine
// notes and the tenant's own towers (a worker holds the public towers
// only), encoded with encoding/gob. RowsRunner analyses them as the local
// job does and returns each row's item bytes. Each unit's items are
// checkpointed as its result arrives, in any order; the cursor is the
// first row of the first chunk not yet merged, so a resumed job redoes
// the chunks from there (items are keyed by row: a rewrite replaces, and
// the bundle is made from the committed items only, as before). The
// items and the bundle are those of the local job byte for byte
// (TestUnitsGiveIdenticalBundle). The catalogue antennas the tenant's
// towers name (appliance/equipment, which a worker does not hold) travel
// with the units, read as their tenant sees them (Deps.Antennas); without
// a catalogue the job analyses such a tenant's rows here
// (TestUnitsCatalogueAntennas).
package batch
