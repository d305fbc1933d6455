package planner

import (
	"errors"
	"math"
	"slices"

	"linkplan/appliance"
)

// GapFinder is implemented by terrain that can say where, inside a box,
// heights may be missing (terrain packs' Gaps): it appends to dst boxes,
// degrees, outside of which every point of b has a height. With it the
// planner checks a search's disc once and only the paths that meet one
// of its gaps sample by sample (doc.go, "Missing terrain").
type GapFinder interface {
	Gaps(b appliance.BBox, dst []appliance.BBox) []appliance.BBox
}

// pathCover is the terrain check of every tower in range, made before the
// search so that which towers are skipped for missing terrain, and the
// tiles named, do not depend on how far the engine's search goes (doc.go,
// "Missing terrain").
type pathCover struct {
	gapsKnown bool             // gaps holds every gap of the search's disc
	gaps      []appliance.BBox // gaps of the disc (GapFinder)
	sampler   PathSampler      // nil: the terrain's Profile decides
	idx       []int            // 0 … Steps, the samples of a path in index order
	path      appliance.ProfilePath
}

// newPathCover prepares the check of the paths of a search of radiusM
// metres around rx, reusing sc's slices.
func (p *Planner) newPathCover(rx appliance.LatLon, radiusM float64, sc *scratch) pathCover {
	pc := pathCover{idx: sc.idx, gaps: sc.gaps[:0]}
	pc.sampler, _ = p.Terrain.(PathSampler)
	// A hair wider than the search: the index's distances and the paths'
	// points are not computed the same way.
	if gf, ok := p.Terrain.(GapFinder); ok {
		if box, ok := appliance.DiscBox(rx, radiusM*(1+1e-9)+1); ok {
			pc.gaps, pc.gapsKnown = gf.Gaps(box, pc.gaps), true
		}
	}
	return pc
}

// keep gives the scratch back its slices.
func (pc *pathCover) keep(sc *scratch) { sc.idx, sc.gaps = pc.idx, pc.gaps[:0] }

// check classifies the path from tower t, distM metres away, to rx:
// covered when no sample of the full profile fails, tile when one fails
// for missing terrain (the tile of the first that does, in index order
// from the tower, as Profile reports it); neither when another error
// stops the check, which the evaluation then reports.
func (p *Planner) check(pc *pathCover, t *appliance.Tower, rx appliance.LatLon, distM float64) (covered bool, tile string) {
	tx := t.Pos()
	if pc.gapsKnown {
		if len(pc.gaps) == 0 {
			return true, "" // every point of the disc has a height
		}
		if box, ok := appliance.ArcBox(tx, rx, distM*(1+1e-9)+1e-3); ok && !slices.ContainsFunc(pc.gaps, box.Intersects) {
			return true, ""
		}
	}
	if pc.sampler != nil && tx.Valid() && rx.Valid() && p.StepM > 0 && !math.IsInf(p.StepM, 0) {
		d := tx.DistanceM(rx)
		if steps := appliance.ProfileSteps(d, p.StepM); steps <= maxSampledSteps {
			pc.path = appliance.NewProfilePathSteps(tx, rx, d, int(max(steps, 0)))
			for i := len(pc.idx); i <= pc.path.Steps; i++ {
				pc.idx = append(pc.idx, i)
			}
			return classify(pc.sampler.SamplePath(&pc.path, pc.idx[:pc.path.Steps+1], func(int, float64) bool { return true }))
		}
	}
	_, err := p.Terrain.Profile(tx, rx, p.StepM)
	return classify(err)
}

func classify(err error) (covered bool, tile string) {
	var tm *appliance.TileMissingError
	switch {
	case err == nil:
		return true, ""
	case errors.As(err, &tm):
		return false, tm.Tile
	}
	return false, ""
}
