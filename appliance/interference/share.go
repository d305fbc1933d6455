package interference

import (
	"context"
	"slices"
	"sync"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// share lets co-sited transmitters reuse one radial sweep (package doc,
// "Shared sweeps"): a terrain whose radial profiles are kept, and engines
// whose answers on those profiles are kept, while one site group is
// computed. reset drops everything between groups.
type share struct {
	inner  appliance.Terrain
	lookup coverage.EngineLookup

	mu       sync.Mutex
	on       bool
	profiles map[profileKey]*appliance.PathProfile
	known    map[*float64]bool // first height of every kept profile
	sweeps   map[inputKey]*sweepEntry
	predicts map[inputKey]predictEntry
	pixels   map[pixelKey]*pixelEntry
	freqs    []float64 // the frequencies of the site's transmitters, MHz
	hits     int       // reused sweeps and predictions
	profHits int       // reused radial profiles
}

type profileKey struct {
	a, b  appliance.LatLon
	stepM float64
}

// inputKey names an engine input on a kept profile: its prefix is the
// first n samples of the profile whose arrays start at d0 and h0.
type inputKey struct {
	tx, rx                    appliance.LatLon
	txH, rxH, freq, time, loc float64
	d0, h0                    *float64
	n                         int
}

// pixelKey names the pixels of one radial for one engine whatever the
// frequency: inputKey with freq 0.
type pixelKey struct {
	in inputKey
	id appliance.EngineID
}

// pixelEntry is the answer of a PixelLoss on one radial for each
// frequency computed, with the radial's pixels and bounds it is for.
type pixelEntry struct {
	queries  []appliance.PixelQuery
	upper    []float64
	spacing  float64
	loss     map[float64][]float64
	fallback map[float64][]bool
}

// matches reports whether r asks for the pixels e answers.
func (e *pixelEntry) matches(r *appliance.PixelRadial) bool {
	return e.spacing == r.SpacingM && slices.Equal(e.upper, r.UpperM) && slices.Equal(e.queries, r.Pixels)
}

// pixelFreqSweeper is an engine that computes one radial's pixels for
// several frequencies at once, the frequency-independent work of each
// pixel done once (engines' itm: PixelLossFreqs).
type pixelFreqSweeper interface {
	PixelLossFreqs(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64, freqsMHz []float64, otherLoss [][]float64, otherFallback [][]bool) error
}

type sweepEntry struct {
	use  []bool
	loss []float64
	err  error
}

type predictEntry struct {
	pred appliance.LinkPrediction
	err  error
}

func newShare(t appliance.Terrain, lookup coverage.EngineLookup) *share {
	s := &share{inner: t, lookup: lookup}
	s.reset(false)
	return s
}

// reset drops what is kept and turns keeping on or off.
func (s *share) reset(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = on
	s.profiles = map[profileKey]*appliance.PathProfile{}
	s.known = map[*float64]bool{}
	s.sweeps = map[inputKey]*sweepEntry{}
	s.predicts = map[inputKey]predictEntry{}
	s.pixels = map[pixelKey]*pixelEntry{}
	s.freqs = nil
}

// setFreqs names the frequencies (MHz) of the transmitters of the site
// being computed: a radial's pixels are computed for all of them at once.
func (s *share) setFreqs(freqs []float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.freqs = freqs
}

// resetLosses drops the kept engine answers and keeps the profiles.
func (s *share) resetLosses() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweeps = map[inputKey]*sweepEntry{}
	s.predicts = map[inputKey]predictEntry{}
}

// terrain returns the terrain the coverage service reads.
//
// It keeps every capability of the inner terrain that coverage's pixel
// path looks for (RadialProfiler, PointSampler, HeightBounder: package
// coverage, "Pixels"), so that a pixel is computed here exactly as in a
// heatmap of its transmitter (TestIssue26_ThreeTransmittersPixelByPixel).
func (s *share) terrain() appliance.Terrain {
	if _, ok := s.inner.(appliance.RadialProfiler); ok {
		ps, ok1 := s.inner.(appliance.PointSampler)
		hb, ok2 := s.inner.(appliance.HeightBounder)
		if ok1 && ok2 {
			return pixelTerrain{radialTerrain{shareTerrain{s}}, ps, hb}
		}
		return radialTerrain{shareTerrain{s}}
	}
	return shareTerrain{s}
}

// pixelTerrain is a radialTerrain that also samples points and bounds
// heights (read from the inner terrain, not shared).
type pixelTerrain struct {
	radialTerrain
	ps appliance.PointSampler
	hb appliance.HeightBounder
}

func (t pixelTerrain) PointSession() appliance.PointSession { return t.ps.PointSession() }

func (t pixelTerrain) MaxElevationsM(strips []appliance.Strip, maxM []float64, kinds []uint8) error {
	return t.hb.MaxElevationsM(strips, maxM, kinds)
}

type shareTerrain struct{ s *share }

func (t shareTerrain) ElevationM(p appliance.LatLon) (float64, error) { return t.s.inner.ElevationM(p) }

func (t shareTerrain) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	return t.s.profile(a, b, stepM, t.s.inner.Profile)
}

type radialTerrain struct{ shareTerrain }

func (t radialTerrain) RadialProfile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	return t.s.profile(a, b, stepM, t.s.inner.(appliance.RadialProfiler).RadialProfile)
}

// profileKind separates Profile from RadialProfile in the keys (their
// points differ by up to a centimetre).
func (s *share) profile(a, b appliance.LatLon, stepM float64, of func(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error)) (*appliance.PathProfile, error) {
	s.mu.Lock()
	on := s.on
	k := profileKey{a, b, stepM}
	if p, ok := s.profiles[k]; ok && on {
		s.profHits++
		s.mu.Unlock()
		return p, nil
	}
	s.mu.Unlock()
	p, err := of(a, b, stepM)
	if err != nil || !on || p.Len() == 0 || len(p.HeightsM) == 0 {
		return p, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.profiles[k]; ok {
		return q, nil
	}
	s.profiles[k] = p
	s.known[&p.HeightsM[0]] = true
	return p, nil
}

// key returns the key of in when its profile is a prefix of a kept one.
func (s *share) key(in appliance.LinkInput) (inputKey, bool) {
	p := in.Profile
	if !s.on || p == nil || p.Len() == 0 || len(p.HeightsM) == 0 || !s.known[&p.HeightsM[0]] {
		return inputKey{}, false
	}
	return inputKey{tx: in.Tx, rx: in.Rx, txH: in.TxHeightM, rxH: in.RxHeightM, freq: in.FreqMHz, time: in.TimePct,
		loc: in.LocationPct, d0: &p.DistancesM[0], h0: &p.HeightsM[0], n: p.Len()}, true
}

// engine returns the engine the coverage service uses for id.
func (s *share) engine(id appliance.EngineID) (appliance.Engine, error) {
	e, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if px, ok := e.(coverage.PixelSweeper); ok {
		// coverage's pixel path (package coverage, "Pixels"): each pixel
		// from the radial's state with its own horizons; passed through,
		// not shared, so that its values are a heatmap's bit for bit
		return pixelEngine{shareEngine{s, e}, px}, nil
	}
	if sw, ok := e.(coverage.PrefixSweeper); ok {
		return sweepEngine{shareEngine{s, e}, sw}, nil
	}
	return shareEngine{s, e}, nil
}

// pixelEngine is a shareEngine that keeps its engine's PixelSweeper.
type pixelEngine struct {
	shareEngine
	px coverage.PixelSweeper
}

func (e pixelEngine) PixelVersion() string { return e.px.PixelVersion() }

// PixelRadialsAnySpacing forwards the engine's coverage.AnyRadialSpacing,
// so that a transmitter's radials (and so its raster) are a heatmap's.
func (e pixelEngine) PixelRadialsAnySpacing() bool {
	a, ok := e.px.(coverage.AnyRadialSpacing)
	return ok && a.PixelRadialsAnySpacing()
}

func (e pixelEngine) PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error {
	s := e.s
	s.mu.Lock()
	k, ok := s.key(in)
	k.freq = 0
	pk := pixelKey{k, e.inner.ID()}
	if ok {
		if v := s.pixels[pk]; v != nil && v.matches(r) {
			if l, hit := v.loss[in.FreqMHz]; hit {
				s.hits++
				copy(lossDB, l)
				copy(r.Fallback, v.fallback[in.FreqMHz])
				s.mu.Unlock()
				return nil
			}
		}
	}
	var others []float64
	for _, f := range s.freqs {
		if f != in.FreqMHz && !slices.Contains(others, f) {
			others = append(others, f)
		}
	}
	s.mu.Unlock()
	mf, multi := e.px.(pixelFreqSweeper)
	if !ok || !multi {
		return e.px.PixelLoss(ctx, in, r, lossDB)
	}
	ol, of := make([][]float64, len(others)), make([][]bool, len(others))
	for i := range others {
		ol[i], of[i] = make([]float64, len(r.Pixels)), make([]bool, len(r.Pixels))
	}
	if err := mf.PixelLossFreqs(ctx, in, r, lossDB, others, ol, of); err != nil {
		return err
	}
	v := &pixelEntry{queries: slices.Clone(r.Pixels), upper: slices.Clone(r.UpperM), spacing: r.SpacingM,
		loss: map[float64][]float64{in.FreqMHz: slices.Clone(lossDB)}, fallback: map[float64][]bool{in.FreqMHz: slices.Clone(r.Fallback)}}
	for i, f := range others {
		v.loss[f], v.fallback[f] = ol[i], of[i]
	}
	s.mu.Lock()
	s.pixels[pk] = v
	s.mu.Unlock()
	return nil
}

type shareEngine struct {
	s     *share
	inner appliance.Engine
}

func (e shareEngine) ID() appliance.EngineID { return e.inner.ID() }

func (e shareEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	s := e.s
	s.mu.Lock()
	k, ok := s.key(in)
	if ok {
		if v, hit := s.predicts[k]; hit {
			s.hits++
			s.mu.Unlock()
			return v.pred, v.err
		}
	}
	s.mu.Unlock()
	pred, err := e.inner.Predict(ctx, in)
	if ok && ctx.Err() == nil {
		s.mu.Lock()
		s.predicts[k] = predictEntry{pred, err}
		s.mu.Unlock()
	}
	return pred, err
}

type sweepEngine struct {
	shareEngine
	sw coverage.PrefixSweeper
}

func (e sweepEngine) SweepVersion() string { return e.sw.SweepVersion() }

func (e sweepEngine) SweepLoss(ctx context.Context, in appliance.LinkInput, use []bool, lossDB []float64) error {
	s := e.s
	s.mu.Lock()
	k, ok := s.key(in)
	if ok {
		if v, hit := s.sweeps[k]; hit && slices.Equal(v.use, use) {
			s.hits++
			s.mu.Unlock()
			copy(lossDB, v.loss)
			return v.err
		}
	}
	s.mu.Unlock()
	err := e.sw.SweepLoss(ctx, in, use, lossDB)
	if ok && ctx.Err() == nil {
		s.mu.Lock()
		s.sweeps[k] = &sweepEntry{use: slices.Clone(use), loss: slices.Clone(lossDB), err: err}
		s.mu.Unlock()
	}
	return err
}
