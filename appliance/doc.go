// Package appliance is the domain root of linkplan: the types, interfaces and
// sentinel errors that every other package shares. It imports only the
// standard library, and no project package imports anything "above" it.
//
// # Import rules
//
// architecture_test.go (TestImportRules) enforces these on every package's
// non-test imports; tests may use real parts.
//
//   - appliance imports nothing of the project.
//   - Services (appliance/planner, appliance/catalog, appliance/tenancy, ...)
//     import appliance, other services and libraries of computation, never
//     web, store or a concrete engine; they know nothing of HTTP. Where a
//     service needs an engine or a store it declares the narrow interface it
//     calls (ai.EngineComparer) and appliance/cmd/linkplan passes the
//     concrete value.
//   - Every package under engines/ is a concrete engine (the registry,
//     fspl, itm, p1812, p1411, engines/ml/learn: the learners) unless it
//     is a library, listed with its reason in architecture_test.go's
//     libraries. A library declares no Engine, imports no concrete engine
//     and is either closed-form computation with one right answer (so an
//     interface would abstract nothing) or a data format: engines/radio
//     (P.525 free-space loss, P.526 knife-edge, Fresnel radius, k-factor
//     geometry), engines/itur (the ITU-R availability formulas and their
//     maps), engines/antfile (antenna files), engines/ml/h3 (the H3 grid
//     index), engines/ml (the learned models' artifact, the contract
//     training writes and prediction reads, and its statistics). Training
//     fits models through training.Learners, which the assembly fills with
//     engines/ml/learn's; the feature builder returns
//     appliance.FeatureSchema. The ray tracer (engines/raytrace and its
//     worker) is an engine: its request, option, answer and local-frame
//     types are the root's (raytrace.go: RaytraceOptions,
//     RaytracePointRequest, RaytraceMapRequest, RaytraceResult,
//     LocalFrame, RaytraceScene), which the engine re-exports under its
//     own names; the raytracing service declares the executor and scene
//     index it calls (raytracing.Executor, raytracing.Scenes) and the
//     assembly fills them with the worker's LayerExecutor and the engine's
//     LayerIndex. The root holds these types, not the engine's scene,
//     materials or physics: they are what a service asks and is
//     answered, shared by the service, web/api and the engine, and the
//     root is the one package all three may import. The test's pending
//     breaks (none now) only shrink.
//   - Leaves (store, store/spatial, store/search, terrain-packs/...,
//     engines/...) import appliance and other leaves at most, never a
//     service or web.
//   - web never imports a store or a concrete engine.
//   - appliance/cmd/linkplan and its assembly package
//     appliance/cmd/linkplan/assemble (which serve and the web/api tests
//     share) are the only place where concrete types meet (and the
//     benchmark drivers under build/, which are main packages too). How the
//     parts are assembled, one request's path and where a new route's
//     pieces go: docs/ARCHITECTURE.md.
//
// # Units
//
// Every number carries its unit in its name or its doc comment:
//
//	dB     decibel (a ratio: losses, margins, gains relative to a reference)
//	dBm    decibel relative to 1 mW (power levels)
//	dBi    decibel relative to an isotropic antenna (antenna gain)
//	MHz    frequency
//	m, km  metres, kilometres (distances, heights); "HeightM" above ground
//	       unless the name says AMSL (above mean sea level)
//	deg    WGS84 degrees for latitude/longitude; bearings are degrees
//	       clockwise from true north, 0 <= b < 360
//
// # Caveats
//
// Geodesy here is spherical (mean Earth radius 6 371 008.8 m). At the path
// lengths this product handles (<= 200 km) the error against the WGS84
// ellipsoid is below 0.5 %, well inside the accuracy of 90 m terrain.
package appliance
