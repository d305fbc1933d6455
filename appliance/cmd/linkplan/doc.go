// Command linkplan is the RF link-planning appliance: one binary that serves
// the API (serve), builds and inspects terrain packs (terrain), imports tower
// files (towers), runs an engine on a case (predict), computes a coverage map
// offline as a GeoTIFF (coverage), plans a point-to-point link with its
// budget per mode, ITU-R availability, PDF report and geo export (ptp,
// ptp.go: appliance/ptp on the built-in equipment, radio JSON files and
// antenna pattern files), reproduces an ITU-R reference table with the
// ITU-R availability methods of engines/itur (itu check, itu.go), backs
// up, verifies and restores its database (backup, verify, restore, db
// check), runs as a warm standby and promotes one (serve --standby-of,
// promote; standby.go, appliance/standby) and reports its version (version). Exit status: 0 done, 1 failed,
// 2 usage, 3 unusable data (a corrupt database or backup, or a newer
// schema).
//
// # Basics
//
// This package and its assembly package (assemble/, whose doc.go says
// why it lives there) are the only composition root: the one place where
// the store, terrain packs, tower index, search index, engines and
// services meet. serve parses its flags into an assemble.Config and calls
// assemble.New (the web/api tests call the same function); then the server
// listens, App.Start starts the workers and schedules, and readiness flips
// to ready. Stop order is the reverse: readiness to stopping
// (App.Stopping), graceful HTTP shutdown (15 s), then App.Stop: the
// services, the refresh schedule, search index, terrain packs, and the
// database last.
//
// serve flags: --addr (default 127.0.0.1:8080), --data-dir (default
// $STATE_DIRECTORY, else ./.data), --terrain PACK (repeatable; default the
// embedded Rio de Janeiro sample), --towers FILE (repeatable; default the
// embedded sample towers), --refresh-interval (default 6h),
// --refractivity-dir (ITU-R DN50/N050 maps; default documented Brazil
// values), --memory-limit-mib (default 320 MiB soft limit), --log-level and
// --cpuprofile FILE (a Go CPU profile of the whole run, written at
// shutdown, for `go tool pprof`: a local file for the operator, never served
// over HTTP; BenchmarkBatch5kAsync uses it through
// LINKPLAN_BENCH_CPUPROFILE).
//
// Heavy work (appliance/admission): coverage maps, best-server maps and the
// batch and repeater jobs share one scheduler. --heavy-workers (default
// GOMAXPROCS-1, at least 1: a core stays for /health, /analyze_link and
// the other cheap routes, which never wait behind it), --heavy-memory-mib
// (default 768; the Go soft memory limit is --memory-limit-mib plus this)
// and --heavy-queue (default 32 waiting; a map start beyond it is a 503
// with Retry-After). Maps are kept in <data dir>/maps: a finished map
// survives a restart for its retention (1 h after it finished); a map
// queued or computing at a stop answers with the error code interrupted.
//
// Request bodies (appliance/decodebudget): --decode-budget-mib (default
// 128) is the memory all requests together may hold to decode their bodies
// (JSON, multipart parts, gzip streams, logo pixels); a body that does not
// fit now is a 503 with Retry-After, one larger than the whole budget a
// 413. Building-layer uploads have a budget of their own (128 MiB, the
// Ultra file cap; web/api), outside this one.
//
// Raytrace worker (engines/raytrace/worker, raytrace_worker.go): serve
// starts `linkplan raytrace-worker` (this binary) as a child process and
// supervises it (restart with a doubling backoff from 0.5 s to 30 s); the
// two talk over a unix socket in the data directory, authenticated by a
// shared secret written per start to <data dir>/raytrace-worker.secret
// (mode 0600). The engine raytrace's units run there: raytrace_link jobs
// of the analysis routes and the rows of POST /coverage/raytrace. Its
// health is the optional readiness check raytrace_worker (reported in
// /health/ready and /platform/maturity as a local_process, never making
// the appliance unready) and the metrics linkplan_raytrace_worker_up and
// linkplan_raytrace_worker_restarts_total. A worker that dies mid-unit
// counts a crash of its job (queued again, quarantined at the second);
// so does one that stops answering: after 3 unanswered health checks 5 s
// apart serve kills it (the check says why while it restarts). The worker
// dies with serve (Pdeathsig) and asks the kernel's OOM killer to pick it
// first (oom_score_adj 1000). --raytrace-worker=false runs no worker: the
// engine answers 503. TestIssue24_WorkerKillMidJob,
// TestIssue24_WorkerHungKilled and TestIssue24_RaytraceEndToEnd test this
// on the binary.
//
// Every serve flag may also come from the environment variable
// LINKPLAN_<FLAG> (upper case, '-' as '_': --data-dir is LINKPLAN_DATA_DIR;
// a repeatable flag takes a space-separated list); the command line wins,
// an empty value keeps the default. The Debian package's unit reads them
// from /etc/linkplan/linkplan.conf (build/deb). The start log names the
// variables applied and warns of LINKPLAN_ names that are no flag.
//
// Data manifest (appliance/datamanifest, datamanifest.go): the terrain
// packs and tower sources in use, hashed (SHA-256) in the background from
// the start, shown by GET /platform/maturity as data_manifest.
//
// Backups (appliance/backup, docs/OPERATIONS.md): before anything opens the
// database, serve checks it in a child process (checkAtStart, dbcheck.go:
// linkplan db check --json; bbolt's checker can fault on a damaged page
// beyond what recover catches) and refuses a corrupt file with exit status
// 3 (--db-check=false skips it). store.Open takes a verified backup before a
// schema migration (assemble's preMigrationBackup, into --backup-dir or DATA/backups).
// --backup-dir, --backup-every (default 24h) and --backup-keep (default 7)
// schedule backups; /health/ready reports them (advisory) and /metrics
// counts them. The admin socket DATA/admin.sock (adminsock.go: mode 0600,
// peer credentials checked) lets linkplan backup ask the serving appliance;
// without an appliance the command reads the file with a shared lock.
// The offline data commands (observations consent|attest|dividends settle,
// model retrain, backup without an appliance) open the database through
// openOffline (offlinedb.go) with the same care: a data directory without
// linkplan.db is refused and nothing is created (exit status 1); the file
// is checked in a child process first (corrupt: exit status 3); a newer
// schema is refused (3, except by the read-only backup); an older one is
// migrated after the pre-migration backup (assemble.PreMigrationBackup,
// into DATA/backups).
// linkplan restore holds the database's lock while it renames the verified
// copy over the file (store.LockFile).
//
// Stops: a SIGTERM or SIGINT at any moment of the start-up is a clean stop
// (exit 0, "linkplan stopped by a signal during start-up" with the step):
// serve turns any error returned after the signal into that line.
//
// AI flags (appliance/ai): --ai-provider-url (root URL of a self-hosted
// OpenAI-compatible chat-completions server: llama.cpp's llama-server or
// Ollama; default empty: the AI routes answer with the built-in template
// explainer and nothing is called), --ai-model (required with the URL) and
// --ai-timeout (default 30s; past it the template answers). With a URL the
// appliance is no longer offline (GET /platform/maturity reports
// llm_inference active).
//
// Learned models (appliance/prediction): <data dir>/models/current/ when the
// training side has written one (a bad one is logged and the models
// shipped in the binary, engines/ml/shipped, serve instead);
// --model-endpoint-url (default $MODEL_ENDPOINT_URL, empty: none) is the
// external model endpoint POST /coverage/predict asks first, and
// --model-endpoint-timeout (default 2s) bounds each call; down, slow or
// malformed, the local models answer. With a URL the appliance is no longer
// offline.
//
// Help (help.go): -h, -help or --help anywhere on a command line, before a
// "--", prints the help of the command or subcommand it names on standard
// output and exits 0: the command's usage text and its flags. A usage
// mistake prints the usage on standard error and exits 2; a failure exits 1.
//
// # Caveats
//
// With no --towers file and no installed source, the appliance serves the
// embedded sample towers plus a synthetic set marked as such; installing a
// real source (linkplan towers import --data-dir) takes effect at the next
// start in that case, and at the next scheduled refresh otherwise.
package main
