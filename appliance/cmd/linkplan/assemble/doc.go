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
// New(ctx, Config) builds, in this order:
//
//	metrics set, panic recoverer
//	store          store.Open (a pre-migration backup first), tenancy.Bootstrap
//	terrain        OpenTerrain (packs, or the embedded Rio sample)
//	engines        engines.New: the registry, built once
//	catalogue      gazetteer, R-tree (spatial), search index, towerset (their
//	               consistency rules), refresh (first load), registry
//	data manifest  the files in use, hashed in the background
//	services       planner, equipment, ptp, backups, admission, jobs (bbolt or
//	               JetStream), batch, repeater, calibration, privacy, training,
//	               coverage maps, raytrace, quota, SSO/branding/billing,
//	               basemap, prediction, standby source
//	job kinds      each service's handler registered on the one queue
//	HTTP handler   api.New with every service above
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
//   - A new service: build it in New after what it needs (or in a file of
//     this package beside New when it takes more than a few lines, as
//     newTenantServices), keep it in an exported App field when serve or a
//     test needs it, and hand it to api.New in the Deps group of its
//     handlers (api.PlatformDeps, AccessDeps, CatalogueDeps, LinkDeps,
//     JobDeps, PlanningDeps, ModelDeps, TenantDeps, OperationsDeps). A job
//     kind registers its handler on a.Jobs here.
//   - A new serve flag: declare it in appliance/cmd/linkplan/serve.go, add
//     its field to Config (config.go), read it in New.
//   - A new handler group: its routes in one file of web/api (a register
//     function called from api.New), its services in the Deps group of its
//     area in web/api/api.go (a new group when none fits), that group
//     filled in the api.New call here.
package assemble
