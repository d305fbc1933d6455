package geoexport

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/paulmach/orb"
	"github.com/twpayne/go-kml/v3"

	"linkplan/appliance"
)

// Polygon rings and their orientation.
//
// A Geometry of KindMultiPolygon holds its rings closed and in any
// orientation; each writer orients them by the sign of their shoelace area
// in (lon, lat) degrees, as its format wants:
//
//   - GeoJSON (RFC 7946 §3.1.6) and KML: exterior rings counter-clockwise,
//     holes clockwise;
//   - Shapefile (ESRI technical description, p. 8): exterior rings
//     clockwise, holes counter-clockwise; every ring of every polygon is a
//     part of the one Polygon record (shape type 5).

// shpPolygon is the Shapefile shape type of polygons; shpNull of a null shape.
const (
	shpNull    = 0
	shpPolygon = 5
)

// MaxPolygonPositions bounds the positions of one multipolygon: a
// Shapefile record length is a 32-bit count of 16-bit words.
const MaxPolygonPositions = 1 << 26

// checkPolygons verifies the rings of multipolygon g of feature n: at least
// one ring per polygon, at least 4 positions per ring, closed, valid
// positions.
func checkPolygons(n int, g Geometry) error {
	if len(g.Coords) != 0 {
		return fmt.Errorf("feature %d multipolygon has %d loose positions: %w", n, len(g.Coords), appliance.ErrInvalid)
	}
	total := 0
	for i, p := range g.Polygons {
		if len(p) == 0 {
			return fmt.Errorf("feature %d polygon %d has no ring: %w", n, i, appliance.ErrInvalid)
		}
		for j, r := range p {
			if len(r) < 4 {
				return fmt.Errorf("feature %d polygon %d ring %d has %d positions, needs 4: %w", n, i, j, len(r), appliance.ErrInvalid)
			}
			if r[0] != r[len(r)-1] {
				return fmt.Errorf("feature %d polygon %d ring %d is not closed: %w", n, i, j, appliance.ErrInvalid)
			}
			for _, c := range r {
				if !c.Valid() {
					return fmt.Errorf("feature %d position %v: %w", n, c, appliance.ErrInvalid)
				}
			}
			total += len(r)
		}
	}
	if total > MaxPolygonPositions {
		return fmt.Errorf("feature %d multipolygon has %d positions, at most %d: %w", n, total, MaxPolygonPositions, appliance.ErrInvalid)
	}
	return nil
}

// ringArea returns the shoelace area of closed ring r in (lon, lat)
// degrees²: positive counter-clockwise, negative clockwise.
func ringArea(r []appliance.LatLon) float64 {
	a := 0.0
	for i := 0; i+1 < len(r); i++ {
		a += r[i].Lon*r[i+1].Lat - r[i+1].Lon*r[i].Lat
	}
	return a / 2
}

// ccwWanted reports whether ring j of a polygon is to be written
// counter-clockwise in the GeoJSON/KML convention (exterior j == 0).
func ccwWanted(j int) bool { return j == 0 }

// orientedRing calls fn for the positions of closed ring r, reversed when
// its orientation is not the one wanted (ccw: counter-clockwise).
func orientedRing(r []appliance.LatLon, ccw bool, fn func(appliance.LatLon)) {
	if (ringArea(r) >= 0) == ccw {
		for _, c := range r {
			fn(c)
		}
		return
	}
	for i := len(r) - 1; i >= 0; i-- {
		fn(r[i])
	}
}

// eachPosition calls fn for every position of g.
func eachPosition(g Geometry, fn func(appliance.LatLon)) {
	for _, c := range g.Coords {
		fn(c)
	}
	for _, p := range g.Polygons {
		for _, r := range p {
			for _, c := range r {
				fn(c)
			}
		}
	}
}

// polygonCounts returns the number of rings and positions of g.
func polygonCounts(g Geometry) (rings, positions int) {
	for _, p := range g.Polygons {
		rings += len(p)
		for _, r := range p {
			positions += len(r)
		}
	}
	return rings, positions
}

// shpPolygonContentLen returns the Shapefile record content length of
// multipolygon g, bytes: a null shape when it has no polygon.
func shpPolygonContentLen(g Geometry) int {
	rings, positions := polygonCounts(g)
	if rings == 0 {
		return 4
	}
	// shape type, box, NumParts, NumPoints, Parts, Points
	return 4 + 32 + 4 + 4 + 4*rings + 16*positions
}

// appendShpPolygon appends the little-endian content of multipolygon g:
// shape type 5 with one part per ring, exterior rings clockwise and holes
// counter-clockwise; shape type 0 (null) when g has no polygon.
func appendShpPolygon(b []byte, g Geometry) []byte {
	le := binary.LittleEndian
	rings, positions := polygonCounts(g)
	if rings == 0 {
		return le.AppendUint32(b, shpNull)
	}
	f64 := func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }
	box := emptyBox()
	eachPosition(g, box.add)
	b = le.AppendUint32(b, shpPolygon)
	b = f64(b, box.minX)
	b = f64(b, box.minY)
	b = f64(b, box.maxX)
	b = f64(b, box.maxY)
	b = le.AppendUint32(b, uint32(rings))
	b = le.AppendUint32(b, uint32(positions))
	start := 0
	for _, p := range g.Polygons {
		for _, r := range p {
			b = le.AppendUint32(b, uint32(start))
			start += len(r)
		}
	}
	for _, p := range g.Polygons {
		for j, r := range p {
			orientedRing(r, !ccwWanted(j), func(c appliance.LatLon) {
				b = f64(b, c.Lon)
				b = f64(b, c.Lat)
			})
		}
	}
	return b
}

// orbMultiPolygon returns g as an orb.MultiPolygon in [lon, lat] order,
// exterior rings counter-clockwise and holes clockwise (RFC 7946), not yet
// rounded. An empty g gives an empty, non-nil MultiPolygon.
func orbMultiPolygon(g Geometry) orb.MultiPolygon {
	mp := make(orb.MultiPolygon, 0, len(g.Polygons))
	for _, p := range g.Polygons {
		poly := make(orb.Polygon, 0, len(p))
		for j, r := range p {
			ring := make(orb.Ring, 0, len(r))
			orientedRing(r, ccwWanted(j), func(c appliance.LatLon) { ring = append(ring, orb.Point{c.Lon, c.Lat}) })
			poly = append(poly, ring)
		}
		mp = append(mp, poly)
	}
	return mp
}

// kmlMultiPolygon returns g as a KML MultiGeometry of Polygons (exterior
// counter-clockwise in outerBoundaryIs, holes clockwise in
// innerBoundaryIs), positions rounded to CoordDecimals; nil when g has no
// polygon.
func kmlMultiPolygon(g Geometry) kml.Element {
	if len(g.Polygons) == 0 {
		return nil
	}
	polys := make([]kml.Element, 0, len(g.Polygons))
	for _, p := range g.Polygons {
		bounds := make([]kml.Element, 0, len(p))
		for j, r := range p {
			coords := make([]kml.Coordinate, 0, len(r))
			orientedRing(r, ccwWanted(j), func(c appliance.LatLon) {
				coords = append(coords, kml.Coordinate{Lon: roundCoord(c.Lon), Lat: roundCoord(c.Lat)})
			})
			ring := kml.LinearRing(kml.Coordinates(coords...))
			if j == 0 {
				bounds = append(bounds, kml.OuterBoundaryIs(ring))
			} else {
				bounds = append(bounds, kml.InnerBoundaryIs(ring))
			}
		}
		polys = append(polys, kml.Polygon(bounds...))
	}
	return kml.MultiGeometry(polys...)
}
