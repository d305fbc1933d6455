package fspl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// PixelLoss implements the coverage service's PixelSweeper: lossDB[p] is
// the loss of pixel p of r, PredictLossDB's on the pixel's own profile
// (Steps equal steps of DistM/Steps metres, the receiver's ground
// GroundM), with every interior sample that can change it taken exactly
// (r.Exact) and the others proved not to by the terrain bounds r.UpperM.
//
// The loss is the slant free space between the antenna tips (the ends
// alone) plus J of the largest ν over the interior samples, J 0 for ν ≤
// −0.78 and capped at CapDB. So a sample matters only when its ν can
// exceed both the largest ν found so far and −0.78: ν grows with the
// sample's ground height, and a block of samples whose highest possible
// ground (the largest UpperM over the segments their feet lie in) gives
// no ν above that threshold anywhere in the block's distances is ruled
// out whole (blockBound). The samples that remain are sampled best bound
// first, in small batches, the threshold rising as they come; the sample
// of the previous pixel's knife edge (the same distance from the
// transmitter) is sampled first. Once J of the largest ν reaches CapDB
// nothing can change the loss, but a sample without a bound (UpperM
// +Inf) is still taken: the terrain may be missing there, and then the
// pixel has no value, as on its own profile.
//
// The answer is PredictLossDB on the profile of r.Exact's heights, bit
// for bit: the largest ν may differ only where J gives the same loss
// (both at most −0.78, or both at or past the cap). A pixel whose own
// profile has no terrain where it was sampled is NaN; a pixel of fewer
// than two steps, or a radial whose inputs Predict would refuse, is left
// to the caller (r.Fallback).
func (e *Engine) PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error {
	if len(lossDB) != len(r.Pixels) || len(r.Fallback) != len(r.Pixels) {
		return fmt.Errorf("fspl pixel loss: %w", appliance.Invalid("pixels", "%d pixels, %d losses and %d fallback flags", len(r.Pixels), len(lossDB), len(r.Fallback)))
	}
	if Validate(in) != nil || len(r.UpperM) != in.Profile.Len()-1 || !(r.SpacingM > 0) {
		for p := range r.Pixels {
			r.Fallback[p] = true
		}
		return nil
	}
	ps := newPixelSearch(e, in, r)
	defer ps.done()
	prevM := -1.0 // the previous pixel's knife edge, metres from the transmitter
	for p := range r.Pixels {
		if p%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := &r.Pixels[p]
		if q.Steps < 2 || !(q.DistM > 0) || math.IsNaN(q.GroundM) || math.IsInf(q.GroundM, 0) {
			r.Fallback[p] = true
			continue
		}
		l, edgeM, err := ps.pixel(p, q, prevM)
		var tme *appliance.TileMissingError
		switch {
		case errors.As(err, &tme):
			lossDB[p] = math.NaN()
			continue
		case err != nil:
			return fmt.Errorf("fspl pixel loss: pixel %d: %w", p, err)
		}
		lossDB[p] = l
		if edgeM > 0 {
			prevM = edgeM
		}
	}
	return nil
}

// PixelVersion implements the coverage service's PixelSweeper: Predict's
// version.
func (e *Engine) PixelVersion() string { return Version }

// pixelBlock is the most samples pixelSearch bounds at once; blocks are
// halved down to pixelLeaf samples, then bounded sample by sample.
const (
	pixelBlock = 64
	pixelLeaf  = 4
	pixelBatch = 8 // candidates sampled per r.Exact call
)

// pixelSearch is PixelLoss's state for one radial: the radial's bounds as
// a sparse table (range maxima of UpperM), the transmitter's tip and the
// engine's constants, and the scratch of the pixel at hand.
type pixelSearch struct {
	e                   *Engine
	r                   *appliance.PixelRadial
	tipT, rxH, freq     float64
	lambda, twoKA       float64
	floor               float64     // ν at or below which J is 0 (−Inf without)
	table               [][]float64 // table[l][i]: max UpperM[i : i+2^l]
	cands               []pixelCand
	js                  []int32
	hs                  []float64
	k                   knifeEdge
	xi, cosOff, xr      float64
	segs, last          int
	best                float64 // the largest ν sampled
	bestJ               int
	p                   int
	inv2KA, twoOverLamb float64
}

// pixelCand is a sample that the bounds cannot rule out, with its bound.
type pixelCand struct {
	j  int32
	nu float64
}

// newPixelSearch returns the search of radial r, its buffers (the
// table's rows, the candidates) reused from e's previous radials; done
// gives them back.
func newPixelSearch(e *Engine, in appliance.LinkInput, r *appliance.PixelRadial) *pixelSearch {
	old, _ := e.searches.Get().(*pixelSearch)
	if old == nil {
		old = &pixelSearch{}
	}
	rows := old.table
	ps := old
	*ps = pixelSearch{e: e, r: r, tipT: in.Profile.HeightsM[0] + in.TxHeightM, rxH: in.RxHeightM, freq: in.FreqMHz,
		lambda: radio.WavelengthM(in.FreqMHz), twoKA: 2 * radio.EffectiveEarthRadiusM(e.K), floor: e.SampleNuFloor(nil), xr: r.SpacingM,
		cands: old.cands[:0], js: old.js[:0], hs: old.hs}
	ps.inv2KA, ps.twoOverLamb = 1/ps.twoKA, 2/ps.lambda
	n := len(r.UpperM)
	ps.segs = n
	ps.table = append(rows[:0], r.UpperM)
	for l := 1; 1<<l <= n; l++ {
		prev, w := ps.table[l-1], 1<<(l-1)
		var row []float64
		if l < len(rows) {
			row = rows[l] // not yet overwritten: ps.table has l rows
		}
		if m := n - (1 << l) + 1; cap(row) >= m {
			row = row[:m]
		} else {
			row = make([]float64, m)
		}
		for i := range row {
			row[i] = max(prev[i], prev[i+w])
		}
		ps.table = append(ps.table, row)
	}
	return ps
}

// done gives the search's buffers back to its engine (without the
// radial's own arrays).
func (ps *pixelSearch) done() {
	ps.r, ps.table[0] = nil, nil
	ps.e.searches.Put(ps)
}

// rangeMax is the largest UpperM over segments a..b (a ≤ b).
func (ps *pixelSearch) rangeMax(a, b int) float64 {
	l := bits.Len(uint(b-a+1)) - 1
	return max(ps.table[l][a], ps.table[l][b-(1<<l)+1])
}

// seg is the segment of the radial that sample j's foot lies in (the
// coverage service's Exact: s·CosOff/SpacingM, s = j·xi).
func (ps *pixelSearch) seg(j int) int {
	return min(int(float64(j)*ps.xi*ps.cosOff/ps.xr), ps.segs-1)
}

// pixel returns pixel p's loss and the distance of its knife edge (the
// sample of the largest ν, 0 when none was sampled), metres.
func (ps *pixelSearch) pixel(p int, q *appliance.PixelQuery, prevM float64) (float64, float64, error) {
	d := q.DistM
	ps.p, ps.xi, ps.cosOff = p, d/float64(q.Steps), q.CosOff
	ps.last = q.Steps - 1
	ps.k = knifeEdge{e: ps.e, d: d, tipT: ps.tipT, tipR: q.GroundM + ps.rxH, lambda: ps.lambda, twoKA: ps.twoKA, freq: ps.freq}
	ps.best, ps.bestJ = math.Inf(-1), -1
	if ps.last >= 1 {
		// the previous pixel's knife edge first
		if prevM > 0 {
			j := min(max(int(math.Round(prevM/ps.xi)), 1), ps.last)
			ps.cands = append(ps.cands[:0], pixelCand{j: int32(j)})
			if err := ps.sample(ps.cands); err != nil {
				return 0, 0, err
			}
		}
		// (even at the cap: a sample without a bound may lie where the
		// terrain is missing, and then the pixel has no value)
		ps.cands = ps.cands[:0]
		for j0 := 1; j0 <= ps.last; j0 += pixelBlock {
			ps.collect(j0, min(j0+pixelBlock-1, ps.last))
		}
		if err := ps.sampleCandidates(); err != nil {
			return 0, 0, err
		}
	}
	edgeM := 0.0
	if ps.bestJ >= 1 {
		edgeM = float64(ps.bestJ) * ps.xi
	}
	return ps.k.lossDB(ps.best), edgeM, nil
}

// threshold is the ν a sample must exceed to change the loss.
func (ps *pixelSearch) threshold() float64 { return max(ps.best, ps.floor) }

// capped reports whether J of the largest ν sampled is at the cap already.
func (ps *pixelSearch) capped() bool {
	return ps.e.CapDB >= 0 && ps.best > ps.floor && radio.KnifeEdgeLossApproxDB(ps.best) >= ps.e.CapDB
}

// collect appends the samples j0..j1 whose ν the bounds cannot keep at or
// below the threshold, with their bounds.
func (ps *pixelSearch) collect(j0, j1 int) {
	t := ps.threshold()
	if j1-j0+1 > pixelLeaf {
		u := ps.rangeMax(ps.seg(j0), ps.seg(j1))
		if ps.blockBound(u, float64(j0)*ps.xi, float64(j1)*ps.xi) <= t {
			return
		}
		mid := (j0 + j1) / 2
		ps.collect(j0, mid)
		ps.collect(mid+1, j1)
		return
	}
	for j := j0; j <= j1; j++ {
		// ν grows with the ground height, rounding included (the same
		// expressions, each monotone): ν of the bound bounds ν
		if nu := ps.k.nu(float64(j)*ps.xi, ps.r.UpperM[ps.seg(j)]); nu > t {
			ps.cands = append(ps.cands, pixelCand{j: int32(j), nu: nu})
		}
	}
}

// blockBound bounds ν of any sample between lo and hi metres from the
// transmitter (0 < lo ≤ hi < d) with ground at most u: ν = c(x)·g(x),
// c the ground's excess over the ray (a concave parabola in x) and g =
// √(2/λ·(1/x + 1/(d−x))) > 0, convex with its least value at d/2; a
// margin covers the rounding.
func (ps *pixelSearch) blockBound(u, lo, hi float64) float64 {
	if math.IsInf(u, 1) || math.IsNaN(u) {
		return math.Inf(1)
	}
	k := &ps.k
	d := k.d
	slope := (k.tipR - k.tipT) / d
	c := func(x float64) float64 { return u + x*(d-x)*ps.inv2KA - k.tipT - slope*x }
	g := func(x float64) float64 { return math.Sqrt(ps.twoOverLamb * (1/x + 1/(d-x))) }
	xc := min(max(d/2-slope*ps.twoKA/2, lo), hi)
	cm := c(xc)
	var b float64
	if cm <= 0 {
		b = cm * g(min(max(d/2, lo), hi))
	} else {
		b = cm * max(g(lo), g(hi))
	}
	return b + 1e-6*(1+math.Abs(b))
}

// sampleCandidates samples the candidates best bound first, pixelBatch at
// a time, dropping those the rising threshold rules out; at the cap only
// those without a bound (+Inf: the terrain may be missing there) remain
// to be sampled.
func (ps *pixelSearch) sampleCandidates() error {
	c := ps.cands
	sortCands(c)
	for len(c) > 0 {
		t := ps.threshold()
		// sorted: the first at or below the threshold ends the list
		if !(c[0].nu > t) {
			return nil
		}
		n := min(pixelBatch, len(c))
		for n > 1 && !(c[n-1].nu > t) {
			n--
		}
		if err := ps.sample(c[:n]); err != nil {
			return err
		}
		c = c[n:]
		if ps.capped() && (len(c) == 0 || !math.IsInf(c[0].nu, 1)) {
			return nil
		}
	}
	return nil
}

// candBefore orders candidates by bound, largest first, then by sample
// (the bounds are never NaN: collect keeps only those above the
// threshold).
func candBefore(a, b pixelCand) bool { return a.nu > b.nu || a.nu == b.nu && a.j < b.j }

// sortCands sorts c by candBefore, a strict order of distinct samples:
// the one order of slices.SortFunc with cmp.Compare, by insertion for the
// usual few candidates.
func sortCands(c []pixelCand) {
	if len(c) > 24 {
		slices.SortFunc(c, func(a, b pixelCand) int {
			switch {
			case candBefore(a, b):
				return -1
			case candBefore(b, a):
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(c); i++ {
		v := c[i]
		k := i
		for ; k > 0 && candBefore(v, c[k-1]); k-- {
			c[k] = c[k-1]
		}
		c[k] = v
	}
}

// sample takes the exact heights of the samples of cs and keeps the
// largest ν (among equal ones the sample nearest the transmitter).
func (ps *pixelSearch) sample(cs []pixelCand) error {
	ps.js = ps.js[:0]
	for _, c := range cs {
		ps.js = append(ps.js, c.j)
	}
	if cap(ps.hs) < len(ps.js) {
		ps.hs = make([]float64, len(ps.js), 2*len(ps.js))
	}
	hs := ps.hs[:len(ps.js)]
	if err := ps.r.Exact(ps.p, ps.js, hs); err != nil {
		return err
	}
	for i, j32 := range ps.js {
		j := int(j32)
		nu := ps.k.nu(float64(j)*ps.xi, hs[i])
		if nu > ps.best || nu == ps.best && j < ps.bestJ {
			ps.best, ps.bestJ = nu, j
		}
	}
	return nil
}

// PixelRadialsAnySpacing implements the coverage service's
// AnyRadialSpacing: PixelLoss takes only the radial's terrain bounds, and
// its answer is Predict's on the pixel's own samples whatever the radial.
func (e *Engine) PixelRadialsAnySpacing() bool { return true }
