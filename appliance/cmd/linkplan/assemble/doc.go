// Package assemble builds the whole appliance from one Config: the one
// wiring of its parts, which `linkplan serve` and the tests share.
//
// # Why here
//
// The assembly is where concrete types meet (appliance/doc.go): it sits
// under appliance/cmd/linkplan, the composition root, as a plain (not
// internal) package so that both the binary and the external test
// package of web/api (package api_test) can import it. web/api itself
// never imports it (it would be a cycle: assemble imports web/api); only
// its _test.go files of package api_test do.
//
// # What it builds
//
// New(ctx, Config) is one page: it runs these phases (phases.go), each a
// method of build, which carries what a phase makes for the later ones:
//
//	phase                    builds
//	newBuild                 logger, metrics set, panic recoverer
//	openStore                store.Open (a pre-migration backup first)
//	bootstrap                tenancy and the admin credentials (tenancy.Bootstrap)
//	buildEngines             OpenTerrain (packs, or the embedded Rio sample);
//	                         engines.New, the registry, built once; the
//	                         JetStream input set
//	loadCatalogue            gazetteer, R-tree (spatial), search index,
//	                         towerset (their consistency rules), refresh
//	                         (first load), the data manifest (files in use,
//	                         hashed in the background)
//	buildPlanning            planner, equipment, ptp (with the ITU-R maps)
//	buildBackups             backups
//	buildJobs                admission (with each job kind's cost), the job
//	                         queue (bbolt or JetStream), the unit executor
//	buildBatch               batch reports, repeater plans (job kinds)
//	buildCalibration         calibration (job kinds), its hook in the planner
//	buildPrivacyAndTraining  privacy (the hard-delete job), training (retrain job)
//	buildMaps                coverage maps; buildRaytrace: building layers,
//	                         the raytrace worker, the raytrace service
//	buildTenantServices      quota, SSO/branding/billing, basemap tiles
//	buildModels              prediction (first load), standby source, registry
//	buildHTTP                api.New with every service above, in the Deps
//	                         group of its handlers (checks: /health/ready's)
//
// A job kind's handler is registered on the one queue in the phase that
// builds its service.
//
// Nothing runs until Start, which starts, in order: the raytrace worker
// process, the backup schedule, the tower refresh schedule, the job
// workers, the appliance's own unit worker (--queue jetstream), the quota
// flush, the privacy sweep, the retrain trigger. Stopping then Stop undo
// it: the API answers "stopping" and the maps are interrupted; then
// backups, maps, privacy, training, jobs (drained), the raytrace worker,
// the unit worker and NATS, the quota flush, the data manifest, the
// refresh, the search index, the terrain packs and the database last.
//
// # States
//
//	state      entered by          leaves by        what runs
//	built      New                 Start, Stop      nothing (the first catalogue load is done)
//	started    Start               Stopping, Stop   workers and schedules
//	stopping   Stopping            Stop             the API answers 503 "stopping"; maps interrupted
//	stopped    Stop                -                nothing; the database is closed
//
// # Config and test options
//
// serve parses its flags into Config; what only the binary can do comes in
// as a value: CheckDB (the child-process database check) and
// Raytrace.NewWorker (this binary as the raytrace worker). Config.Test
// holds the seams tests use (a clock, the job poll interval, no quota, no
// schedules, wrappers that inject a failing dependency); its zero value is
// serve's assembly. web/api's harness calls New with a temporary data
// directory and TestOptions, so a change here reaches both at once.
//
// # Where a new piece goes
//
//   - A new service: build it in the phase of its area, after what it
//     needs (a new phase in New's list when none fits; a helper in a file
//     of this package when it takes more than a few lines, as
//     newTenantServices), keep it in an exported App field when serve or a
//     test needs it (else in build), and hand it to api.New (buildHTTP) in
//     the Deps group of its handlers (api.PlatformDeps, AccessDeps,
//     CatalogueDeps, LinkDeps, JobDeps, PlanningDeps, ModelDeps,
//     TenantDeps, OperationsDeps). A job kind registers its handler on
//     a.Jobs in the same phase.
//   - A new serve flag: declare it in appliance/cmd/linkplan/serve.go, add
//     its field to Config (config.go), read it in the phase that uses it.
//   - A new handler group: its routes in one file of web/api (a register
//     function called from api.New), its services in the Deps group of its
//     area in web/api/api.go (a new group when none fits), that group
//     filled in buildHTTP's api.New call.
package assemble
