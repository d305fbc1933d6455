package coverage

import (
	"context"
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
)

// PixelSweeper is implemented by engines that compute the loss of every
// pixel of one radial at once (package doc, "Pixels"): PixelLoss sets
// lossDB[p] to the engine's basic transmission loss, dB, at the receiver
// of pixel p of r, on the pixel's own profile with every sample that can
// change the answer taken exactly (r.Exact) and the rest from the radial
// profile in.Profile, or sets r.Fallback[p] for a pixel the caller must
// compute on its own profile. A pixel outside the engine's validity, or
// one whose r.Exact failed, is NaN. len(lossDB) = len(r.Pixels).
// PixelVersion is the EngineVersion Predict reports for the same answers.
type PixelSweeper interface {
	PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error
	PixelVersion() string
}

// AnyRadialSpacing is implemented by PixelSweepers whose pixels do not
// need the radials of MinRadialsRadiusM: PixelRadialsAnySpacing reports
// that PixelLoss takes nothing from the radial whose accuracy depends on
// how far the pixel's own line strays from it (fspl: only the terrain
// bounds, its pixels exact whatever the spacing; p1812: the bounds and
// the smooth surface, whose largest difference from the pixel's own
// answer on every pixel of the 5 km Sumaré map is 0.030 dB with either
// spacing, TestIssue22_PixelTruth). A map of such an engine gets the radials of
// its own radius (package doc, "Radial sweep"). An engine without it (itm,
// whose Δh and effective heights come from the radial's heights, or one
// wrapped by another service) keeps MinRadialsRadiusM.
type AnyRadialSpacing interface {
	PixelRadialsAnySpacing() bool
}

// LossPredictor is implemented by engines that give the loss of a path
// alone: PredictLossDB is Predict's PathLossDB, bit for bit, and Predict's
// error, without the rest of the prediction (its intermediate values,
// the line-of-sight geometry); PixelVersion is the EngineVersion Predict
// reports. A pixel computed on its own profile (the exact mode, and the
// default mode's pixels without a PixelSweeper) needs only its loss.
type LossPredictor interface {
	PredictLossDB(ctx context.Context, in appliance.LinkInput) (float64, error)
	PixelVersion() string
}

// metresPerDegree is the length of a degree of latitude, metres.
const metresPerDegree = appliance.EarthRadiusM * math.Pi / 180

// pixelScratch holds one worker's buffers of pixelSweep, reused from
// radial to radial, and its terrain sampler.
type pixelScratch struct {
	session          appliance.PointSession
	pts              []appliance.LatLon
	perpLat, perpLon []float64
	strips           []appliance.Strip
	upper            []float64
	kinds            []uint8
	centres, buf     []appliance.LatLon
	ground           []float64
	sea              []bool
	queries          []appliance.PixelQuery
	idx              []int
	pixErr           []error
	fallback         []bool
	lossQ            []float64
	exact            func(q int, js []int32, heightsM []float64) error
	xr               float64
}

// grow returns b with length n, reusing its array when large enough.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n, n+n/4)
	}
	return b[:n]
}

// exactHeights is PixelRadial.Exact for the radial in sc: the ground
// heights of samples js of pixel q's own profile, at the foot of each on
// the radial moved to its side.
func (sc *pixelScratch) exactHeights(q int, js []int32, heightsM []float64) error {
	px := &sc.queries[q]
	xi := px.DistM / float64(px.Steps)
	segs := len(sc.pts) - 1
	buf := sc.buf[:0]
	for _, j := range js {
		s := float64(j) * xi
		u := s * px.CosOff / sc.xr
		i := min(int(u), segs-1)
		f := u - float64(i)
		a, b := sc.pts[i], sc.pts[i+1]
		l := s * px.SinOff
		buf = append(buf, appliance.LatLon{Lat: a.Lat + f*(b.Lat-a.Lat) + l*sc.perpLat[i], Lon: a.Lon + f*(b.Lon-a.Lon) + l*sc.perpLon[i]})
	}
	sc.buf = buf
	err := sc.session.ElevationsM(buf, heightsM, nil)
	if err != nil && sc.pixErr[q] == nil {
		sc.pixErr[q] = err
	}
	return err
}

// pixelSweep computes the pixels order (indices into radial k's lists,
// by distance) with the engine's PixelSweeper: loss[o] and state[o] for
// each. It returns false, computing nothing, when the engine or the
// terrain lacks what it needs (then every pixel is computed on its own
// profile).
func (s *Service) pixelSweep(ctx context.Context, p *plan, k int, prof *radialProfile, order []int32, loss []float64, state []pixelState) (bool, error) {
	sw, ok := p.eng.(PixelSweeper)
	ps, ok2 := s.terrain.(appliance.PointSampler)
	hb, ok3 := s.terrain.(appliance.HeightBounder)
	if !ok || !ok2 || !ok3 || len(order) == 0 {
		return false, nil
	}
	sc, _ := p.scratch.Get().(*pixelScratch)
	if sc == nil {
		sc = &pixelScratch{session: ps.PointSession()}
		sc.exact = sc.exactHeights
	}
	defer p.scratch.Put(sc)
	rd := &p.radials[k]
	req := p.req
	n := prof.Len()
	path := appliance.NewProfilePath(req.Tx, prof.endPoint, p.stepM)
	if path.Steps != n-1 || n < 2 {
		return false, nil
	}
	xr := prof.LengthM() / float64(n-1)
	sc.xr = xr
	sc.pts = path.FastPoints(sc.pts)
	pts := sc.pts

	// Each segment's direction, the lateral unit of its pixels' samples
	// (degrees a metre to the right) and the box that holds every such
	// sample whose foot lies in the segment, bounded by the terrain.
	segs := n - 1
	sc.perpLat, sc.perpLon = grow(sc.perpLat, segs), grow(sc.perpLon, segs)
	sc.strips, sc.upper, sc.kinds = grow(sc.strips, segs), grow(sc.upper, segs), grow(sc.kinds, segs)
	cosMin := math.Sqrt(1 - rd.maxSin*rd.maxSin)
	// the cosine of each segment's middle latitude, linear along the
	// radial (to about 1e-5 over 200 km; the strips are a thousandth
	// wider than the samples' offsets)
	cos0, cos1 := math.Cos(pts[0].Lat*math.Pi/180), math.Cos(pts[segs].Lat*math.Pi/180)
	for i := range segs {
		a, b := pts[i], pts[i+1]
		cφ := cos0 + (cos1-cos0)*(float64(i)+0.5)/float64(segs)
		dn, de := (b.Lat-a.Lat)*metresPerDegree, (b.Lon-a.Lon)*metresPerDegree*cφ
		sc.perpLat[i], sc.perpLon[i] = 0, 0
		if norm := math.Hypot(dn, de); norm > 0 {
			sc.perpLat[i], sc.perpLon[i] = -de/norm/metresPerDegree, dn/norm/(metresPerDegree*cφ)
		}
		sc.strips[i] = appliance.Strip{A: a, B: b, HalfWidthM: (float64(i+1)*xr/cosMin*rd.maxSin)*1.001 + 0.01}
	}
	if err := hb.MaxElevationsM(sc.strips, sc.upper, sc.kinds); err != nil {
		return false, fmt.Errorf("terrain bounds: %w", err)
	}
	firstSea := segs
	for i, kd := range sc.kinds {
		if kd&appliance.BoundSea != 0 {
			firstSea = i
			break
		}
	}

	// The pixels: centre, own profile's steps, ground, offsets.
	r := p.raster
	m := len(order)
	sc.centres, sc.ground, sc.sea = grow(sc.centres, m), grow(sc.ground, m), grow(sc.sea, m)
	for o, j := range order {
		px := int(rd.pix[j])
		sc.centres[o] = r.PixelCenter(px/r.Width, px%r.Width)
	}
	if err := sc.session.ElevationsM(sc.centres, sc.ground, sc.sea); err != nil {
		// one by one: a centre without terrain is a no-data pixel
		for o := range sc.centres {
			err := sc.session.ElevationsM(sc.centres[o:o+1], sc.ground[o:o+1], sc.sea[o:o+1])
			var tme *appliance.TileMissingError
			switch {
			case errors.As(err, &tme):
				state[o], loss[o] = pixelMissing, math.NaN()
			case err != nil:
				return false, fmt.Errorf("pixel ground: %w", err)
			}
		}
	}
	sc.queries, sc.idx = sc.queries[:0], sc.idx[:0]
	seaTx := len(prof.Sea) > 0 && prof.Sea[0]
	for o, j := range order {
		if state[o] == pixelMissing {
			continue
		}
		d := rd.dist[j]
		so := float64(rd.sinOff[j])
		co := math.Sqrt(1 - so*so)
		q := appliance.PixelQuery{Rx: sc.centres[o], DistM: d, Steps: int(appliance.ProfileSteps(d, p.stepM)), GroundM: sc.ground[o],
			SinOff: so, CosOff: co, SeaKnown: true, AnySea: sc.sea[o] || seaTx}
		if !q.AnySea && firstSea <= int(d*co/xr) {
			q.SeaKnown = false
		}
		sc.queries = append(sc.queries, q)
		sc.idx = append(sc.idx, o)
	}
	nq := len(sc.queries)
	sc.pixErr, sc.fallback, sc.lossQ = grow(sc.pixErr, nq), grow(sc.fallback, nq), grow(sc.lossQ, nq)
	clear(sc.pixErr)
	clear(sc.fallback)
	pr := &appliance.PixelRadial{SpacingM: xr, UpperM: sc.upper, Pixels: sc.queries, Fallback: sc.fallback, Exact: sc.exact}
	in := appliance.LinkInput{Tx: req.Tx, Rx: prof.endPoint, TxHeightM: req.TxHeightM, RxHeightM: req.RxHeightM,
		FreqMHz: req.FreqMHz, Profile: prof.PathProfile, TimePct: req.TimePct, LocationPct: req.LocationPct}
	if err := sw.PixelLoss(ctx, in, pr, sc.lossQ); err != nil {
		return false, fmt.Errorf("pixel loss: %w", err)
	}
	firstRefused := -1
	for q, o := range sc.idx {
		switch {
		case sc.fallback[q]:
			state[o] = pixelFallback
		case sc.pixErr[q] != nil:
			if !isMissing(sc.pixErr[q]) {
				return false, fmt.Errorf("pixel profile: %w", sc.pixErr[q])
			}
			state[o], loss[o] = pixelMissing, math.NaN()
		default:
			state[o], loss[o] = pixelDone, sc.lossQ[q]
			if math.IsNaN(sc.lossQ[q]) {
				if firstRefused < 0 {
					firstRefused = o
				}
			} else if rd.version == "" {
				rd.version = sw.PixelVersion()
			}
		}
	}
	if firstRefused >= 0 && rd.envelopeErr == nil {
		// One Predict on the pixel's own profile for the engine's own
		// refusal (allRefused needs it).
		if _, _, err := s.ownPixel(ctx, p, rd, int(order[firstRefused]), false); err != nil {
			return false, err
		}
	}
	return true, nil
}

// isMissing reports whether err is a *appliance.TileMissingError. (Apart
// so that the error target is allocated only on failure.)
func isMissing(err error) bool {
	var tme *appliance.TileMissingError
	return errors.As(err, &tme)
}
