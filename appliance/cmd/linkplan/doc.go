// Command linkplan is the RF link-planning appliance: one binary that serves
// the API (serve), builds and inspects terrain packs (terrain), imports tower
// files (towers), runs an engine on a case (predict), computes a coverage map
// offline as a GeoTIFF (coverage), reproduces an ITU-R reference table with
// the ITU-R availability methods of engines/itur (itu check, itu.go) and
// reports its version (version).
//
// # Basics
//
// This package is the only composition root: it is the one place where the
// store, terrain packs, tower index, search index, engines and services meet
// (app.go, boot). Start order is store, terrain, towers and indexes,
// engines, API; then the server listens and readiness flips to ready. Stop
// order is the reverse: readiness to stopping, graceful HTTP shutdown (15 s),
// refresh schedule, search index, terrain packs, and the database last.
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
// fit now is a 503 with Retry-After.
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
