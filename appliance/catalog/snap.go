package catalog

import (
	"math"

	"linkplan/appliance"
)

// SnapStats counts what Snap did.
type SnapStats struct {
	Candidates int // centroid-placed towers considered
	Snapped    int // moved onto a crowd-sourced tower
}

// Snap moves each centroid-placed tower in towers onto the nearest
// crowd-sourced tower of the same operator in crowd within radiusM metres
// (DefaultSnapRadiusM when radiusM <= 0), measured from the tower's current
// (seat + offset) position (SPEC §2.1). A snapped tower keeps its id and
// every other field, takes the crowd tower's position and uncertainty, and
// gets placement "snapped". Distance ties go to the crowd tower with the
// smaller id, so the result does not depend on input order. Several towers
// may snap onto the same crowd tower. Only towers whose Placement is
// centroid are moved; crowd entries must have Placement crowd (others are
// ignored). The search uses a uniform grid of radius-sized cells per
// operator: O(n + m) for n towers and m crowd towers at a fixed density.
func Snap(towers []appliance.Tower, crowd []appliance.Tower, radiusM float64) SnapStats {
	if radiusM <= 0 || math.IsNaN(radiusM) {
		radiusM = DefaultSnapRadiusM
	}
	var stats SnapStats
	g := newSnapGrid(crowd, towers, radiusM)
	for i := range towers {
		t := &towers[i]
		if t.Placement != appliance.PlacementCentroid || t.Operator == "" || !hasPosition(t) {
			continue
		}
		stats.Candidates++
		j := g.nearest(t.Operator, t.Pos(), radiusM)
		if j < 0 {
			continue
		}
		c := &crowd[j]
		t.Lat, t.Lon = c.Lat, c.Lon
		t.UncertaintyM = c.UncertaintyM
		t.Placement = appliance.PlacementSnapped
		stats.Snapped++
	}
	return stats
}

// snapGrid buckets crowd towers by operator and grid cell.
type snapGrid struct {
	crowd      []appliance.Tower
	dLat, dLon float64 // cell size, degrees
	cells      map[snapCell][]int
}

type snapCell struct {
	op   string
	y, x int32
}

func newSnapGrid(crowd, towers []appliance.Tower, radiusM float64) *snapGrid {
	// A cell is at least radiusM tall and wide everywhere the points lie, so
	// the 3×3 block around a point's cell holds every point within radiusM.
	maxAbsLat := 0.0
	for _, set := range [][]appliance.Tower{crowd, towers} {
		for i := range set {
			if a := math.Abs(set[i].Lat); a > maxAbsLat && a <= 90 {
				maxAbsLat = a
			}
		}
	}
	dLat := radiusM / appliance.EarthRadiusM * 180 / math.Pi
	c := math.Cos(min(maxAbsLat+dLat, 89.9) * math.Pi / 180)
	g := &snapGrid{crowd: crowd, dLat: dLat, dLon: min(dLat/c, 360), cells: map[snapCell][]int{}}
	for i := range crowd {
		t := &crowd[i]
		if t.Placement != appliance.PlacementCrowd || t.Operator == "" || !hasPosition(t) {
			continue
		}
		k := g.cell(t.Operator, t.Lat, t.Lon)
		g.cells[k] = append(g.cells[k], i)
	}
	return g
}

func (g *snapGrid) cell(op string, lat, lon float64) snapCell {
	return snapCell{op: op, y: int32(math.Floor(lat / g.dLat)), x: int32(math.Floor(lon / g.dLon))}
}

// nearest returns the index in crowd of the nearest tower of operator op
// within radiusM of p, or -1.
func (g *snapGrid) nearest(op string, p appliance.LatLon, radiusM float64) int {
	c := g.cell(op, p.Lat, p.Lon)
	best, bestD := -1, math.Inf(1)
	for dy := int32(-1); dy <= 1; dy++ {
		for dx := int32(-1); dx <= 1; dx++ {
			for _, j := range g.cells[snapCell{op: op, y: c.y + dy, x: c.x + dx}] {
				d := p.DistanceM(g.crowd[j].Pos())
				if d > radiusM {
					continue
				}
				if d < bestD || (d == bestD && g.crowd[j].ID < g.crowd[best].ID) {
					best, bestD = j, d
				}
			}
		}
	}
	return best
}
