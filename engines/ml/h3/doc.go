// Package h3 is a pure-Go (no cgo) implementation of the H3 hexagonal
// grid's cell index, enough for grouping observations by cell (issue 11:
// the residual model's cross-validation folds are grouped by resolution-8
// cell). It imports no project package.
//
// # Basics
//
//	c, err := h3.LatLngToCell(-23.55, -46.63, 8) // WGS84 degrees, res 0..15
//	c.String()                                   // "88a8100c07fffff"
//	c.Resolution(), c.BaseCell()                 // 8, 84
//	c, err = h3.ParseCell("88a8100c07fffff")
//	lat, lon, err := h3.CellToLatLng(c)          // the cell centre, degrees
//
// The method follows H3's published design: the sphere is an icosahedron
// of 20 faces; a point is projected gnomonically onto the face whose centre
// is nearest, in units of the resolution's cell spacing, with class III
// (odd) resolutions turned by asin(√(3/28)); the plane position is rounded
// to a hexagon in three-axis (i, j, k) coordinates and climbed to
// resolution 0 by aperture-7 parents, writing one digit (a unit vector,
// 0..6) per resolution; the resolution-0 position on the face names the
// base cell and the number of 60° turns from the face's axes to the base
// cell's, and pentagon base cells skip their deleted k-axis subsequence.
// Cell centres (CellToLatLng) go the other way: down from the base cell on
// a face where it lies, then, where the centre falls on another face,
// rounded again on that face's plane, keeping the candidate that encodes
// back to the cell; a pentagon's descendants are descended on the
// pentagon's home face and carried across face edges by the exact lattice
// transforms between neighbouring faces (derived from the tables: the
// rotation and translation that map the shared edge cell and both end
// pentagons), as H3 defines them.
//
// # Provenance of the tables
//
// tables_gen.go (face centres and axes, the face-position → base cell and
// rotation table, the pentagon flags) is generated, not typed in: the
// generator in gen_test.go asks h3-js — the version pinned in
// build/h3-check/package-lock.json — for its 122 resolution-0 cells, takes
// the face centres and axes from their geometry, and learns each face
// position's base cell and rotation by projecting ~176,000 sample points
// itself and comparing with h3-js's cells; every position must be
// explained by exactly one orientation. Regenerate with
//
//	go generate ./engines/ml/h3 # = go test -run TestTablesReproducible -generate
//
// and without -generate the same test checks that the committed file is
// what the generator writes. The design constants (the resolution-0 unit's
// gnomonic length, the class III angle) are H3's published values.
//
// # Caveats
//
//   - Degrees are converted to radians as h3-js does, (deg·π)/180, so the
//     same degrees give both the same radians.
//   - LatLngToCell rejects non-finite input, latitudes outside [-90, 90]
//     and longitudes outside [-180, 180] (ErrLatLng).
//   - The face centres and axes are derived from h3-js's degrees, so they
//     may differ from the C library's constants in the last bits, and Go's
//     libm differs from emscripten's in the last bit now and then: a point
//     within ~1e-13° (~10 nm) of a cell edge can fall on the other side
//     than in h3-js (TestCellEdgesMatchH3js logs the share; from 1e-12° on
//     it requires agreement). Random points come that close with negligible probability: the
//     h3-js check (TestLatLngToCellMatchesH3js, ≥ 10,000 random points
//     plus poles, antimeridian, pentagon and face-edge cases) finds no
//     difference. Centres agree with h3-js's within 1 mm (1 cm within
//     0.01° of a pole, where the latitude's arcsine is ill-conditioned).
//   - CellToLatLng scans the tables for the base cell's face positions; it
//     is meant for tests and tools, not hot loops.
//   - The reference tests need node and build/h3-check/node_modules (make
//     test-deps); they fail without them unless LINKPLAN_SKIP_H3JS=1.
package h3

//go:generate go test -run TestTablesReproducible -generate
