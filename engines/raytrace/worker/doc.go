// Package worker runs the raytrace engine in a separate process, the
// local raytrace worker (`linkplan raytrace-worker`, issue 24 scope 4),
// and gives the appliance an Executor to call it.
//
// # Why a process
//
// A ray-tracing unit is CPU- and memory-heavy and its input (a tenant's
// building layer) is arbitrary: a fault that the Go runtime cannot recover
// (out of memory, a stack overflow, a fatal runtime error) ends the
// process it runs in. In a separate process it ends the worker, never the
// appliance: the unit fails or is retried under the crash rule of the job
// queue (appliance.ExecutorCrashError, quarantine at the second death),
// and the supervisor starts a new worker. On Linux the worker raises its
// own oom_score_adj to 1000 (any process may raise its own), so that under
// memory pressure the kernel's OOM killer ends the worker rather than
// serve; where it cannot, it logs a warning and runs on.
//
// # Executor
//
// Executor is the boundary the appliance's services call (WORK.md: "the
// executor"): Point and Map, each a pure function of a scene named by hash
// and a request. Client implements it over the worker's socket; InProcess
// in the calling process; a remote worker (over the job queue) would
// implement the same interface. Behind the worker's socket the units run
// on a raytrace.Backend: raytrace.CPU here. A GPU backend is an extension
// point only: it would implement raytrace.Backend over the same Scene and
// pass the engine's reference tests, and the worker would serve it
// unchanged; none exists and nothing here claims one.
//
// The appliance's raytracing service does not import this package: it
// declares the executor it calls (appliance/raytracing.Executor) over the
// appliance root's types (appliance.RaytraceScene names a building
// layer's scene by hash, with a loader of the layer and its buildings),
// and the assembly passes LayerExecutor, which wraps an Executor and
// builds a scene's input from the layer with the engine's layer index
// (raytrace.LayerIndex.Input, as the service's copy of the scene was
// built) when the executor does not hold the scene.
//
// # Protocol
//
// HTTP/1.1 over a unix socket, one connection per unit (so that a broken
// connection means the worker died holding that unit, never a stale
// pooled connection), every request authenticated by the shared secret
// ("Authorization: Bearer <hex>") and tagged with ProtocolVersion:
//
//	route            body (gob)                     answer
//	GET  /v1/health  -                              Health (JSON)
//	POST /v1/point   {SceneRef, raytrace.PointRequest}  raytrace.Result (gob)
//	POST /v1/map     {SceneRef, raytrace.MapRequest}    raytrace.MapResult (gob)
//
// Errors are JSON ErrorBody answers: 401 unauthorized, 400 bad_request (not
// a unit of this protocol, or over MaxUnitBytes), 409 scene_unknown, 422
// invalid (the engine's validation, with the fields) or scene_mismatch,
// 500 internal (a recovered panic), 503 stopping.
//
// Scenes travel by hash: a unit names its scene by raytrace.Scene.Hash
// (hex). The worker keeps built scenes in a cache by hash (8 scenes by
// default); on a miss it answers scene_unknown (looking the hash up adds
// nothing to the cache: such a unit evicts no built scene, and a
// concurrent unit that carries the input builds the scene itself; a unit
// without input that arrives during that build waits for it) and the
// client sends the unit again with the scene's input (raytrace.SceneInput: buildings,
// materials, ground, the terrain heightfield), which the appliance loads
// from its store and terrain packs. The worker builds the scene, checks
// that its hash is the one named, and refuses the unit otherwise
// (scene_mismatch): a worker whose data differs from the unit's name never
// answers for it. The worker never opens the appliance's database.
// Antenna patterns (functions) do not travel: units are traced with
// isotropic antennas and the appliance applies the patterns in its link
// budget, as for every engine.
//
// Client errors: the engine's refusals match appliance.ErrInvalid; a
// connection that breaks after the worker accepted the unit is an
// *appliance.ExecutorCrashError (the worker died holding the unit); a
// socket that does not answer waits for the supervisor's Ready (60 s by
// default), then matches appliance.ErrUnavailable.
//
// Every unit has a deadline, a backstop behind the supervisor's liveness
// probe for a worker that answers its health route but never the unit: a
// point unit 5 min (DefaultPointTimeout; a point takes at most 200 ms), a
// map unit 5 min plus 100 ms per receiver (DefaultMapTimeout,
// DefaultMapPixelTimeout: over 60 times the engine's 1.5 ms a receiver on
// 2 cores), counted from the unit's first send and covering the resend
// with the scene's input. Past it the unit fails with an
// *appliance.ExecutorCrashError "it did not answer this map unit of NX×NY
// receivers within D, the deadline of such a unit", so the crash rule of
// the job queue applies (a second time quarantines the job). The caller's
// own context ending is its own error, never this one.
//
// Answers are bounded by their request: a point answer by 1 MiB plus
// raytrace.MaxPointPaths (10,000; the engine lists the strongest and
// warns raytrace_paths_truncated beyond) times raytrace.MaxPathBytes (2
// KiB), about 21 MiB; a map answer by 32 bytes per receiver plus 8 MiB
// (the assumed-height building ids and the warnings). A larger answer is
// a bug of the worker: the unit fails with an error saying so (not a
// crash: the worker answered).
//
// # Supervision
//
// Supervisor runs one worker process for serve:
//
//	state       entered when                                   next
//	starting    Start, or a restart after the backoff          ready, restarting
//	ready       the worker answers GET /v1/health              restarting, stopped
//	restarting  the process exited; or did not answer within   starting (after the backoff),
//	            StartTimeout and was killed; or, ready, left   stopped
//	            LivenessFailures health checks in a row
//	            unanswered and was killed (liveness kill)
//	stopped     Close: SIGTERM, SIGKILL after the grace        -
//
// Liveness: while ready, the supervisor asks GET /v1/health every
// LivenessInterval (5 s), each ask bounded by LivenessTimeout (5 s); after
// LivenessFailures (3) unanswered asks in a row (a stopped, deadlocked or
// thrashing worker whose socket still accepts connections) it sends
// SIGKILL. The unit the worker held then ends as an
// *appliance.ExecutorCrashError whose detail is the kill's reason ("was
// killed by the supervisor: its health route did not answer 3 checks in
// a row, ..."), under the crash rule of the job queue, and the worker is
// restarted with the backoff. Status counts the restart (Restarts) and
// the kill (LivenessKills), LastExit says why, and so does Check while
// the worker restarts (Restarts counts a restart when its start begins,
// after the backoff). A stopped worker is killed 15 to 20 s after it
// stopped (serve's test: 20 s). The health route is answered by its own
// goroutine whatever the units computing, so a busy worker answers it;
// 15 s without an answer is not work.
//
// The backoff doubles from 0.5 s to 30 s between restarts and returns to
// 0.5 s after a worker that ran a minute. The shared secret (32 random bytes, hex) is written once per serve start
// to a file of mode 0600 in the data directory, its path given to the
// worker (never the secret on the command line); the socket lives in the
// data directory too (mode 0600), or, when that path is longer than a unix
// socket path may be, in a private 0700 directory under the system's
// temporary directory (SocketPath). On Linux the worker is in its own
// process group and gets SIGKILL when serve dies (a kill -9 of serve
// leaves no orphan); elsewhere, and as a second guard, it stops when its
// parent changes. Check is serve's readiness check "raytrace_worker": it
// is reported in /health/ready and /platform/maturity but does not make
// the appliance unready — every other route works without the worker.
package worker
