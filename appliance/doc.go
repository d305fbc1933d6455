// Package appliance is the domain root of linkplan: the types, interfaces and
// sentinel errors that every other package shares. It imports only the
// standard library, and no project package imports anything "above" it.
//
// # Import rules
//
//   - appliance imports nothing of the project.
//   - Services (appliance/planner, appliance/catalog, appliance/tenancy, ...)
//     import appliance and pure math (engines/radio), never web, store or a
//     concrete engine; they know nothing of HTTP.
//   - Leaves (store, store/spatial, store/search, terrain-packs/terrain,
//     engines/...) import appliance at most.
//   - appliance/cmd/linkplan and its assembly package
//     appliance/cmd/linkplan/assemble (which serve and the web/api tests
//     share) are the only place where concrete types meet. How the parts
//     are assembled, one request's path and where a new route's pieces go:
//     docs/ARCHITECTURE.md.
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
