package planner

import (
	"math"

	"linkplan/appliance"
)

// PathSampler is implemented by terrain that samples single indices of a
// profile's path (terrain packs are): SamplePath gives the heights of the
// samples idx of path, in that order, bit-identical to the profile's,
// until yield returns false; CoversPath reports (conservatively) that no
// sample of the path can fail. With an engine that is a
// SampleLossBounder, the planner's sparse bounds then take the samples
// one by one and stop at the one that proves a tower out (doc.go,
// "Search").
type PathSampler interface {
	SamplePath(path *appliance.ProfilePath, idx []int, yield func(i int, heightM float64) bool) error
	CoversPath(path *appliance.ProfilePath) bool
}

// SampleLossBounder is implemented by SubsampleBounded engines whose loss
// over a profile is a function of the largest of one term per interior
// sample (fspl: the knife edge's ν). For a path whose two end samples are
// in.Profile's, SampleLossBound returns PredictLossDB's error for the
// ends or keeps what the path's samples share in state (the caller's
// scratch, the engine's layout); then SampleNu gives the term of an
// interior sample (distance from the transmitter, metres, and ground
// height, metres) and SampleLossDB the loss of a profile whose largest
// term is maxNu (−Inf: no interior sample), PredictLossDB's bit for bit.
// SampleLossDB(state, maxNu) is SampleLossDB(state, −Inf) for every
// maxNu at or below SampleNuFloor(state) (fspl: no knife-edge loss),
// where the bound need not be computed.
type SampleLossBounder interface {
	SampleLossBound(in *appliance.LinkInput, state *[8]float64) error
	SampleNu(state *[8]float64, d1M, heightM float64) float64
	SampleLossDB(state *[8]float64, maxNu float64) float64
	SampleNuFloor(state *[8]float64) float64
}

// maxSampledSteps bounds the paths the sampled bounds take (the sparse
// profiles take longer ones; 200 km at 90 m is 2,224 steps).
const maxSampledSteps = 1 << 16

// pathBound is a search's scratch for the sampled bounds of its towers'
// paths, reused from search to search: which samples of the current path
// are known, and the running bound.
type pathBound struct {
	stamp []uint32 // stamp[i] == gen: sample i of the current path is known
	gen   uint32
	idx   []int // the samples to take next, in order
	yield func(i int, heightM float64) bool

	path       appliance.ProfilePath
	endD, endH [2]float64 // the end samples' distances and heights
	ends       appliance.PathProfile
	in         appliance.LinkInput // the engine's input, ends as its profile
	state      [8]float64          // the engine's, for the path
	lb         SampleLossBounder   // nil while the ends are taken
	maxNu      float64             // the largest ν of the samples taken
	argmax     int                 // its sample, −1 for none
	floorNu    float64             // the engine's SampleNuFloor
	proven     bool                // the samples taken prove the tower out

	// the link budget of cannotRank's proof, term by term
	eirpLessPattern, gain, cable, threshold, worst float64
}

func newPathBound() *pathBound {
	b := &pathBound{}
	b.yield = b.visit // bound once: no closure to allocate a call
	return b
}

// visit takes sample i's height: an end's is kept for the engine, an
// interior one's ν raises the bound.
func (b *pathBound) visit(i int, h float64) bool {
	b.stamp[i] = b.gen
	if b.lb == nil {
		b.endH[min(i, 1)] = h // the ends are taken first: 0, then Steps
		return true
	}
	if v := b.lb.SampleNu(&b.state, b.path.DistanceM(i), h); v > b.maxNu {
		b.maxNu, b.argmax = v, i
		// At or below the floor the loss is the ends' alone, which
		// did not prove the tower out.
		if v > b.floorNu && b.proves() {
			b.proven = true
			return false
		}
	}
	return true
}

// proves reports whether the loss of the samples taken puts the tower's
// margin below the worst result: cannotRank's expression, term by term.
func (b *pathBound) proves() bool {
	rx := b.eirpLessPattern - b.lb.SampleLossDB(&b.state, b.maxNu) + b.gain - b.cable
	return rx-b.threshold+1e-6 < b.worst
}

// known reports whether sample i of the current path was taken.
func (b *pathBound) known(i int) bool { return b.stamp[i] == b.gen }

// start makes every sample of a path of steps steps unknown.
func (b *pathBound) start(steps int) {
	if n := steps + 1; len(b.stamp) < n {
		b.stamp = make([]uint32, max(n, 2*len(b.stamp)))
		b.gen = 0
	}
	b.gen++
	if b.gen == 0 { // wrapped: no stamp may look current
		clear(b.stamp)
		b.gen = 1
	}
}

// order puts in idx the samples of stride s (the multiples of s inside
// the path) not yet taken: outward from the sample of the largest ν
// when there is one (the terrain near the highest obstacle found is the
// likeliest to prove the tower out), else from the receiver back to the
// transmitter (the receiver's antenna is the lower: its obstacles are
// the likelier; on 200 Rio rows a quarter fewer samples than from the
// transmitter on).
func (b *pathBound) order(s int) {
	steps := b.path.Steps
	b.idx = b.idx[:0]
	m := b.argmax
	if m < 0 {
		for i := (steps - 1) / s * s; i > 0; i -= s {
			if !b.known(i) {
				b.idx = append(b.idx, i)
			}
		}
		return
	}
	for o := s; m-o > 0 || m+o < steps; o += s {
		if i := m - o; i > 0 && !b.known(i) {
			b.idx = append(b.idx, i)
		}
		if i := m + o; i < steps && !b.known(i) {
			b.idx = append(b.idx, i)
		}
	}
}

// nested reports whether each stride is a multiple of the next, so that
// each stride's samples hold the previous one's.
func nested(strides []int) bool {
	for k := 1; k < len(strides); k++ {
		if strides[k-1]%strides[k] != 0 {
			return false
		}
	}
	return true
}

// cannotRankSampled is cannotRank for a path that the terrain covers
// (PathSampler) and an engine that is a SampleLossBounder: the same
// answer, from fewer samples. Whether cannotRank proves a tower out does
// not depend on which stride proves it: the strides are nested, so the
// finest holds every sample of the coarser ones and its bound is the
// largest; and every subset of its samples that keeps the ends bounds
// the loss too. So the samples of each stride are taken one by one, in
// the order most likely to prove the tower out early (order), and the
// bound is checked at each new largest ν: the tower is out as soon as it
// is proven, and proven by some sample exactly when the finest stride's
// profile proves it (the engine's loss being non-decreasing in ν; doc.go,
// "Search"). Only a path the terrain covers may stop early (elsewhere a
// sample the proof leaves out could have failed): the caller takes only
// paths that pathCover found covered (cand.covered). done is false when
// the path is not one it takes.
func (p *Planner) cannotRankSampled(ps PathSampler, lb SampleLossBounder, strides []int, req *appliance.LinkRequest, c *cand, worst float64, b *pathBound) (done, cannot bool, err error) {
	tx := c.t.Pos()
	if !tx.Valid() || !req.Receiver.Valid() || !(p.StepM > 0) || math.IsInf(p.StepM, 0) {
		return false, false, nil
	}
	d := tx.DistanceM(req.Receiver)
	steps := appliance.ProfileSteps(d, p.StepM)
	if steps > maxSampledSteps {
		return false, false, nil
	}
	b.path = appliance.NewProfilePathSteps(tx, req.Receiver, d, int(max(steps, 0)))
	if b.path.Steps == 0 {
		return true, false, nil // co-located: the evaluation says so
	}
	b.start(b.path.Steps)
	b.lb, b.idx = nil, append(b.idx[:0], 0, b.path.Steps)
	if err := ps.SamplePath(&b.path, b.idx, b.yield); err != nil {
		return true, false, err
	}
	b.endD = [2]float64{0, b.path.LengthM}
	b.ends = appliance.PathProfile{DistancesM: b.endD[:], HeightsM: b.endH[:]}
	b.in = appliance.LinkInput{
		Tx: tx, Rx: req.Receiver, TxHeightM: c.t.HeightM, RxHeightM: req.RxHeightM,
		FreqMHz: req.FreqMHz, Profile: &b.ends,
	}
	if err := lb.SampleLossBound(&b.in, &b.state); err != nil {
		return false, false, nil // the sparse profiles meet the same error, in their order
	}
	b.lb, b.maxNu, b.argmax, b.proven = lb, math.Inf(-1), -1, false
	b.floorNu = lb.SampleNuFloor(&b.state)
	b.eirpLessPattern, b.gain, b.cable, b.threshold, b.worst = c.gain(), req.RxGainDBi, req.CableLossDB, req.RxThresholdDBm, worst
	defer func() { b.lb = nil }()
	if b.proves() { // the ends alone: free space over the slant path
		return true, true, nil
	}
	for _, s := range strides {
		b.order(s)
		if len(b.idx) == 0 {
			continue
		}
		if err := ps.SamplePath(&b.path, b.idx, b.yield); err != nil {
			return true, false, err
		}
		if b.proven {
			return true, true, nil
		}
	}
	return true, false, nil
}
