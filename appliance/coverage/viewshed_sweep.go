package coverage

import (
	"context"
	"math"

	"linkplan/appliance"
)

// viewshedSweeper answers a radial's viewshed pixels through the
// heatmaps' pixel path (pixelSweep: the radial's terrain bounds and each
// pixel's own samples taken exactly, PixelRadial.Exact): it is a
// PixelSweeper whose "loss" is the pixel class (ViewBlocked, ViewLOS,
// ViewFresnel as a float). For each interior sample j of the pixel's own
// profile (d_j = j·d/n) the terrain bound U of the radial segment under
// it (HeightBounder: no ground point of the sample's strip is higher)
// gives a lower bound of its clearance,
//
//	ray_j − (U + d_j·(d − d_j)/(2·k·a)),
//
// and of its clearance over F1. Only the samples whose bound could make
// the pixel blocked (bound ≤ 0) or spoil its 60 % Fresnel clearance
// (bound < 0.6·F1) are sampled, with prefixClass's arithmetic term for
// term: first the possible blockers, most obstructing bound first, until
// one blocks; then the others until one spoils the clearance. Every
// sample left out is clear by more than 60 % of F1 whatever its height,
// so the class is the path check of the pixel's own profile (its
// samples within a centimetre of Terrain.Profile's). Samples whose strip
// touches a tile no pack holds (no bound) are all read first: a missing
// one makes the pixel no-data (NaN: its own Terrain.Profile then names
// the tile). A pixel one of whose sampled clearances lies within
// viewshedTieM of 0 or of 60 % of F1 is left to its own Terrain.Profile
// (Fallback), decided exactly as there.
type viewshedSweeper struct {
	lambda, twoKA float64 // metres
}

func (viewshedSweeper) ID() appliance.EngineID { return "viewshed" }

func (viewshedSweeper) Predict(context.Context, appliance.LinkInput) (appliance.LinkPrediction, error) {
	return appliance.LinkPrediction{}, appliance.ErrInvalid // never called: pixelSweep's refusals only
}

func (viewshedSweeper) PixelVersion() string { return "viewshed/1" }

// viewshedChunk is how many candidate samples are read at once.
const viewshedChunk = 16

// viewshedTieM is how near a sampled clearance may come to a threshold
// (0, or 60 % of F1), metres, before the pixel is left to its own
// Terrain.Profile: its samples lie within a centimetre of that profile's,
// and on a slope a centimetre of position is a few millimetres of height
// (TestIssue22_ViewshedExact found a pixel of the 5 km Pedra Branca map
// blocked by −0.26 mm on Terrain.Profile and clear by a fraction of a
// millimetre on the sampled points).
const viewshedTieM = 0.05

func (v viewshedSweeper) PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error {
	tipT := in.Profile.HeightsM[0] + in.TxHeightM
	segs := len(r.UpperM)
	var block, spoil, unknown []int32
	var lb []float64
	var heights []float64
	for q := range r.Pixels {
		if q%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		px := &r.Pixels[q]
		n := px.Steps
		d := px.DistM
		xi := d / float64(n)
		tipR := px.GroundM + in.RxHeightM
		block, spoil, unknown, lb = block[:0], spoil[:0], unknown[:0], grow(lb, n)
		for j := 1; j < n; j++ {
			d1 := float64(j) * xi
			d2 := d - d1
			if d1 <= 0 || d2 <= 0 {
				continue
			}
			i := min(int(d1*px.CosOff/r.SpacingM), segs-1)
			u := r.UpperM[i]
			if math.IsInf(u, 1) { // a tile no pack holds may lie under it
				unknown = append(unknown, int32(j))
				continue
			}
			ray := tipT + (tipR-tipT)*d1/d
			clear := ray - (u + d1*d2/v.twoKA)
			lb[j] = clear
			if clear <= 0 {
				block = append(block, int32(j))
				continue
			}
			if clear/math.Sqrt(v.lambda*d1*d2/d) < fresnelClearRatio {
				spoil = append(spoil, int32(j))
			}
		}
		class := ViewFresnel
		// the possible blockers, the most obstructing bound first (then in
		// order: it blocks most pixels that are blocked)
		if len(block) > 1 {
			m := 0
			for k := range block {
				if lb[block[k]] < lb[block[m]] {
					m = k
				}
			}
			block[0], block[m] = block[m], block[0]
		}
		failed, tie := false, false
		// check reads the samples js exactly and lowers class by them;
		// it stops (true) at the first blocking sample (readAll false), at
		// the first that spoils the clearance (stopLOS), at a tie or a
		// missing sample.
		check := func(js []int32, readAll, stopLOS bool) bool {
			for first := true; len(js) > 0; first = false {
				c := js[:min(len(js), viewshedChunk)]
				if first && !readAll && !stopLOS {
					c = js[:1] // the most obstructing bound alone
				}
				js = js[len(c):]
				heights = grow(heights, len(c))
				if err := r.Exact(q, c, heights); err != nil {
					failed = true
					return true
				}
				for k, j := range c {
					d1 := float64(j) * xi
					d2 := d - d1
					ray := tipT + (tipR-tipT)*d1/d
					clear := ray - (heights[k] + d1*d2/v.twoKA)
					f1 := math.Sqrt(v.lambda * d1 * d2 / d)
					if math.Abs(clear) <= viewshedTieM || math.Abs(clear-fresnelClearRatio*f1) <= viewshedTieM {
						tie = true // a centimetre of position may decide it
						return true
					}
					switch {
					case clear <= 0:
						class = ViewBlocked
						if !readAll {
							return true
						}
					case clear/f1 < fresnelClearRatio && class == ViewFresnel:
						class = ViewLOS
						if stopLOS {
							return true
						}
					}
				}
			}
			return false
		}
		// the samples without a bound first, every one (a missing one
		// makes the pixel no-data whatever the others say)
		if !check(unknown, true, false) && class != ViewBlocked && !check(block, false, false) && class == ViewFresnel {
			check(spoil, false, true)
		}
		if failed {
			lossDB[q] = math.NaN()
			continue
		}
		if tie {
			r.Fallback[q] = true
			continue
		}
		lossDB[q] = float64(class)
	}
	return nil
}
