package planner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// Defaults of a LinkRequest, applied by Defaults.
const (
	DefaultRxHeightM      = 10.0  // metres above ground: a CPE on a short mast
	DefaultMaxDistanceKm  = 30.0  // km
	DefaultRxThresholdDBm = -95.0 // dBm, a typical LTE/Wi-Fi CPE sensitivity at a robust modulation
	DefaultAssumedEIRPDBm = 58.0  // dBm: 43 dBm transmitter + 17 dBi sector − 2 dB feeder
	DefaultAlternatives   = 5
	MaxAlternatives       = 5
	MaxDistanceKm         = 200.0 // km, largest accepted search radius
	// MinRxHeightM and MinDistanceKm are the smallest accepted receiver
	// height (metres) and search radius (km): the resolution of the answers,
	// which round both to 3 decimals, so that no accepted value is echoed as
	// 0 (issue 20: 5e-324 was accepted and answered as 0).
	MinRxHeightM        = 0.001
	MinDistanceKm       = 0.001
	DefaultProfileStepM = 90.0 // metres, the 3" terrain grid
	DefaultMaxEvaluated = 200  // terrain evaluations for engines without a free-space bound
	DefaultSparseEvery  = 8    // every 8th sample (720 m at 90 m) for the sparse bound
	SectorBeamwidthDeg  = 65.0
	SectorFrontBackDB   = 25.0
)

// FreeSpaceBounded is implemented by engines whose loss is never below free
// space over the horizontal distance; the planner then prunes exactly.
type FreeSpaceBounded interface {
	LossAtLeastFreeSpace() bool
}

// SubsampleBounded is implemented by engines whose loss over a profile is
// never below their loss over a subsequence of its samples that keeps both
// ends (fspl); with terrain that is an appliance.SparseProfiler, the
// planner then bounds a path from a sparse profile first (doc.go,
// "Search").
type SubsampleBounded interface {
	LossAtLeastOnSubsample() bool
}

// LossPredictor is implemented by engines that can return the PathLossDB
// of Predict alone, bit for bit and with Predict's errors, cheaper than
// the whole prediction (fspl: no Intermediate map to allocate); the
// sparse bounds, which need only the loss, then use it.
type LossPredictor interface {
	PredictLossDB(ctx context.Context, in appliance.LinkInput) (float64, error)
}

// EngineLookup returns the engine for an id ("" is the default engine).
type EngineLookup func(id appliance.EngineID) (appliance.Engine, error)

// Planner runs link analyses.
type Planner struct {
	Terrain      appliance.Terrain
	Towers       func() appliance.TowerIndex // the current tower snapshot
	Engine       EngineLookup
	StepM        float64 // profile spacing, metres
	MaxEvaluated int
	// SparseEvery is the stride of the sparse profile that bounds a path
	// before it is evaluated (SubsampleBounded engines), with a coarser
	// (4×) and a finer (÷4) one around it (sparseStrides); 0 or 1 turns
	// the sparse bounds off. It changes the work, never the answer.
	SparseEvery int
	// Antennas resolves the catalogue antennas towers name
	// (appliance/equipment); nil: such towers radiate their generic
	// antenna with an antenna_unavailable warning.
	Antennas appliance.AntennaCatalogue

	// Calibrations gives the tenants' calibrations (appliance/calibration);
	// nil: no answer is calibrated. The one hook of the link routes is
	// calibrate: a calibrated transmitter's offset joins its EIRP term in
	// every bound and evaluation, so the search ranks calibrated margins.
	Calibrations appliance.Calibrations

	// scratch keeps the scratch of finished analyses (*scratch) for the
	// next ones: the slice of all towers in range is a search's largest
	// allocation (about 80 kB a receiver in Rio on the national set, more
	// in São Paulo), and a batch makes one a row; the sampled bounds'
	// marks are another.
	scratch sync.Pool
}

// scratch is what a search reuses from the previous ones.
type scratch struct {
	cands []cand
	rads  []appliance.Radiator // the antennas of the candidates that have one (cand.rad points here)
	bound *pathBound
	idx   []int            // pathCover's sample indices
	gaps  []appliance.BBox // pathCover's gaps
}

// New returns a planner with default settings.
func New(terrain appliance.Terrain, towers func() appliance.TowerIndex, engines EngineLookup) *Planner {
	return &Planner{Terrain: terrain, Towers: towers, Engine: engines, StepM: DefaultProfileStepM, MaxEvaluated: DefaultMaxEvaluated, SparseEvery: DefaultSparseEvery}
}

// Validate checks a request (after defaults) and names every bad field with
// its JSON name.
func Validate(r *appliance.LinkRequest) error {
	v := &appliance.ValidationError{}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if bad(r.Receiver.Lat) || r.Receiver.Lat < -90 || r.Receiver.Lat > 90 {
		v.Add("receiver.lat", "must be a latitude in degrees between -90 and 90, got %g", r.Receiver.Lat)
	}
	if bad(r.Receiver.Lon) || r.Receiver.Lon < -180 || r.Receiver.Lon > 180 {
		v.Add("receiver.lon", "must be a longitude in degrees between -180 and 180, got %g", r.Receiver.Lon)
	}
	if bad(r.RxHeightM) || r.RxHeightM < MinRxHeightM || r.RxHeightM > 500 {
		v.Add("receiver.height_m", "must be a height above ground in metres, %g <= h <= 500, got %g", MinRxHeightM, r.RxHeightM)
	}
	if bad(r.FreqMHz) || r.FreqMHz < 30 || r.FreqMHz > 100000 {
		v.Add("frequency_mhz", "must be between 30 and 100000 MHz, got %g", r.FreqMHz)
	}
	if bad(r.MaxDistanceKm) || r.MaxDistanceKm < MinDistanceKm || r.MaxDistanceKm > MaxDistanceKm {
		v.Add("max_distance_km", "must be %g <= d <= %g km, got %g", MinDistanceKm, MaxDistanceKm, r.MaxDistanceKm)
	}
	if bad(r.RxGainDBi) || r.RxGainDBi < -20 || r.RxGainDBi > 60 {
		v.Add("rx_gain_dbi", "must be between -20 and 60 dBi, got %g", r.RxGainDBi)
	}
	if bad(r.CableLossDB) || r.CableLossDB < 0 || r.CableLossDB > 50 {
		v.Add("cable_loss_db", "must be between 0 and 50 dB, got %g", r.CableLossDB)
	}
	if bad(r.RxThresholdDBm) || r.RxThresholdDBm < -160 || r.RxThresholdDBm > 0 {
		v.Add("rx_threshold_dbm", "must be between -160 and 0 dBm, got %g", r.RxThresholdDBm)
	}
	if bad(r.AssumedEIRPDBm) || r.AssumedEIRPDBm < 0 || r.AssumedEIRPDBm > 100 {
		v.Add("assumed_eirp_dbm", "must be between 0 and 100 dBm, got %g", r.AssumedEIRPDBm)
	}
	if r.MaxAlternatives < 0 || r.MaxAlternatives > MaxAlternatives {
		v.Add("max_alternatives", "must be between 0 and %d, got %d", MaxAlternatives, r.MaxAlternatives)
	}
	if len(r.Operator) > 64 {
		v.Add("operator", "must be at most 64 characters")
	}
	return v.Err()
}

// PatternLossDB returns the horizontal pattern attenuation, dB, of the
// generic sector (65°, 25 dB front-to-back) pointing at azimuthDeg toward
// bearingDeg (NaN azimuth: omnidirectional): the antenna of a tower
// without tilt, beamwidth, front-to-back or catalogue antenna
// (appliance.Radiator for the others; doc.go, "Antennas").
func PatternLossDB(azimuthDeg, bearingDeg float64) float64 {
	if math.IsNaN(azimuthDeg) {
		return 0
	}
	d := math.Abs(math.Mod(bearingDeg-azimuthDeg+540, 360) - 180)
	return math.Min(12*(d/SectorBeamwidthDeg)*(d/SectorBeamwidthDeg), SectorFrontBackDB)
}

type cand struct {
	t       *appliance.Tower
	distM   float64
	bearRx  float64 // receiver -> tower
	bearTx  float64 // tower -> receiver
	eirp    float64
	assumed bool
	// pattern is the antenna's attenuation toward the receiver, dB: its
	// horizontal part (a lower bound) until the evaluation knows the
	// elevation.
	pattern float64
	// rad is the tower's antenna when it is more than the legacy generic
	// sector (towerRadiator); radWarn says its catalogue antenna could not
	// be read.
	rad      *appliance.Radiator
	radWarn  *appliance.Warning
	calDB    float64                    // the tenant's calibration offset toward the receiver, dB (0 none)
	cal      *appliance.CalibrationInfo // nil: not calibrated
	optimist float64                    // margin with free-space loss, dB (an upper bound for bounded engines)
	standing Standing
	covered  bool // no sample of the path's full profile fails (pathCover)
}

// AnalyzeLink answers "which tower can this site reach, with what margin".
func (p *Planner) AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error) {
	if err := Validate(&req); err != nil {
		return nil, fmt.Errorf("analyze link: %w", err)
	}
	eng, err := p.Engine(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("analyze link: %w", err)
	}
	rxGround, err := p.Terrain.ElevationM(req.Receiver)
	if err != nil {
		return nil, fmt.Errorf("analyze link: receiver terrain: %w", err)
	}
	out := &appliance.LinkAnalysis{Request: req, ReceiverGroundM: rxGround, Engine: eng.ID(), Warnings: []appliance.Warning{}, BestTowerCaveats: []appliance.Warning{}}

	radiusM := req.MaxDistanceKm * 1000
	buf, _ := p.scratch.Get().(*scratch)
	if buf == nil {
		buf = &scratch{bound: newPathBound()}
	}
	cands := buf.cands[:0]
	rads := buf.rads[:0]
	defer func() {
		clear(cands[:cap(cands)]) // no tower of an old snapshot stays reachable
		clear(rads[:cap(rads)])   // nor a catalogue antenna
		buf.cands, buf.rads = cands[:0], rads[:0]
		p.scratch.Put(buf)
	}()
	rxo := req.Receiver.Origin()
	cover := p.newPathCover(req.Receiver, radiusM, buf)
	defer cover.keep(buf)
	missing := map[string]bool{}
	visit := func(t *appliance.Tower, distM float64) {
		if !t.VisibleTo(req.TenantID) || req.Operator != "" && !strings.EqualFold(t.Operator, req.Operator) {
			return
		}
		out.InRange++
		// Missing terrain is decided for every tower in range, whatever
		// the engine and however far its search goes (doc.go, "Missing
		// terrain").
		covered, tile := p.check(&cover, t, req.Receiver, distM)
		if tile != "" {
			out.SkippedNoTerrain++
			missing[tile] = true
			return
		}
		c := cand{t: t, distM: distM, bearRx: math.NaN(), bearTx: math.NaN(), standing: TowerStanding(t, distM/1000), covered: covered}
		if t.HasERP() {
			c.eirp = t.ERPDBm + 2.15
		} else {
			c.eirp, c.assumed = req.AssumedEIRPDBm, true
		}
		// The bearings are needed here only for a sector's pattern loss;
		// the others get theirs when evaluated (bearings).
		if HasRadiator(t) {
			var r appliance.Radiator
			r, c.radWarn = appliance.TowerRadiator(t, p.Antennas)
			rads = append(rads, r)
			c.rad = &rads[len(rads)-1] // rads only grows here: an earlier array keeps its values
		}
		if !math.IsNaN(t.AzimuthDeg) || c.rad != nil {
			c.bearTx = rxo.BearingFromDeg(t.Pos()) // t.Pos().BearingDeg(req.Receiver), bit for bit
		}
		c.pattern = c.horizontalPattern()
		p.calibrate(&c, req.TenantID, eng.ID(), req.FreqMHz, req.Receiver)
		fs := radio.FreeSpaceLossExactDB(req.FreqMHz, math.Max(c.distM, 1)/1000)
		// 1e-6 dB of slack keeps the bound safe against rounding.
		c.optimist = c.gain() - fs + req.RxGainDBi - req.CableLossDB - req.RxThresholdDBm + 1e-6
		cands = append(cands, c)
	}
	if v, ok := p.Towers().(appliance.TowerVisitor); ok {
		v.VisitWithin(req.Receiver, radiusM, visit)
	} else {
		for _, t := range p.Towers().Within(req.Receiver, radiusM) {
			visit(t, req.Receiver.DistanceM(t.Pos()))
		}
	}
	if out.InRange == 0 {
		out.Reason = fmt.Sprintf("no tower within %g km of the receiver", req.MaxDistanceKm)
		if req.Operator != "" {
			out.Reason = fmt.Sprintf("no %s tower within %g km of the receiver", req.Operator, req.MaxDistanceKm)
		}
		return out, nil
	}
	// Candidates are taken best bound first from a heap: the search
	// usually stops after a few dozen of thousands, so sorting them all
	// would be wasted (candLess is a total order, so the sequence is the
	// one a full sort gives).
	h := candHeap(cands)
	h.init()

	want := 1 + req.MaxAlternatives
	rk := ranking{want: want}
	for i := range h {
		rk.left[h[i].standing]++
	}
	bounded := false
	if fb, ok := eng.(FreeSpaceBounded); ok && fb.LossAtLeastFreeSpace() {
		bounded = true
	}
	var sparse appliance.SparseProfiler
	var sampler PathSampler
	var lossBound SampleLossBounder
	strides := sparseStrides(p.SparseEvery)
	if sb, ok := eng.(SubsampleBounded); ok && sb.LossAtLeastOnSubsample() && p.SparseEvery > 1 {
		sparse, _ = p.Terrain.(appliance.SparseProfiler)
		if sparse != nil && nested(strides) {
			sampler, _ = p.Terrain.(PathSampler)
			lossBound, _ = eng.(SampleLossBounder)
		}
	}
	for len(h) > 0 {
		if !bounded && out.Evaluated >= p.MaxEvaluated {
			break
		}
		c := h.pop()
		rk.left[c.standing]--
		need := rk.need(c.standing)
		if bounded && c.optimist < need {
			// Neither this tower nor any left whose standing needs
			// as much can change the answer; when none left needs
			// less, the search is over.
			if c.optimist < rk.needLeft() {
				break
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("analyze link: %w", err)
		}
		var tm *appliance.TileMissingError
		if sparse != nil && !math.IsInf(need, -1) {
			done, cannot, err := false, false, error(nil)
			if sampler != nil && lossBound != nil && c.covered {
				done, cannot, err = p.cannotRankSampled(sampler, lossBound, strides, &req, &c, need, buf.bound)
			}
			if !done {
				cannot, err = p.cannotRank(ctx, sparse, eng, strides, req, c, need)
			}
			if errors.As(err, &tm) {
				out.SkippedNoTerrain++
				missing[tm.Tile] = true
				continue
			}
			if cannot && err == nil {
				out.Pruned++
				continue
			}
			// Any other error: the full evaluation reports it.
		}
		c.bearings(req.Receiver)
		lc, err := p.evaluate(ctx, eng, req, c)
		if errors.As(err, &tm) {
			out.SkippedNoTerrain++
			missing[tm.Tile] = true
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("analyze link: %w", ctx.Err())
			}
			// One tower the engine cannot evaluate (co-located with the
			// receiver, catalogue data it refuses) must not sink the search.
			out.SkippedOther++
			if reason := fmt.Sprintf("tower %s: %v", c.t.ID, err); len(out.SkipReasons) < 5 {
				out.SkipReasons = append(out.SkipReasons, reason)
			}
			continue
		}
		out.Evaluated++
		rk.add(lc, c.standing)
	}
	for t := range missing {
		out.MissingTiles = append(out.MissingTiles, t)
	}
	slices.Sort(out.MissingTiles)
	if len(rk.results) == 0 {
		out.Reason = fmt.Sprintf("%d towers are within %g km but no terrain covers their paths", out.InRange, req.MaxDistanceKm)
		return out, nil
	}
	best, alts, strongest := rk.answer()
	out.Best, out.Alternatives = best, alts
	out.EngineVersion = out.Best.Prediction.EngineVersion
	results := append([]appliance.LinkCandidate{*best}, alts...)
	scope := fmt.Sprintf("within %g km", req.MaxDistanceKm)
	if !bounded && len(h) > 0 {
		scope = fmt.Sprintf("among the %d evaluated of the %d within %g km", out.Evaluated, out.InRange, req.MaxDistanceKm)
	}
	out.BestTowerCaveats = bestCaveats(best, strongest, scope)
	out.Warnings = withCaveats(analysisWarnings(results), out.BestTowerCaveats)
	for _, r := range results {
		if r.Tower.Synthetic {
			out.SyntheticTowers++
		}
	}
	return out, nil
}

// gain is the candidate's EIRP toward the receiver with its calibration,
// dBm: EIRP − pattern loss + calibration offset.
func (c *cand) gain() float64 { return c.eirp - c.pattern + c.calDB }

// calibrate sets the tenant's calibration of the candidate's transmitter
// for engine toward rx (appliance.TenantCalibration.For): the one place
// the link routes (/analyze_link, /analyze, batch rows, AI analyses) meet
// a calibration. Another tenant's calibration is never looked up.
func (p *Planner) calibrate(c *cand, tenantID string, engine appliance.EngineID, freqMHz float64, rx appliance.LatLon) {
	if p.Calibrations == nil || tenantID == "" {
		return
	}
	t := p.Calibrations.Calibration(tenantID).For(engine, c.t.ID, c.t.Pos(), freqMHz)
	if t == nil {
		return
	}
	info := t.At(c.t.Pos(), rx)
	c.calDB, c.cal = info.OffsetDB, &info
}

func rankLess(a, b *appliance.LinkCandidate) int {
	if c := cmp.Compare(b.LinkMarginDB, a.LinkMarginDB); c != 0 {
		return c
	}
	if c := cmp.Compare(a.DistanceKm, b.DistanceKm); c != 0 {
		return c
	}
	return cmp.Compare(a.Tower.ID, b.Tower.ID)
}

// insertRanked keeps the best n candidates in rank order.
func insertRanked(rs []appliance.LinkCandidate, c appliance.LinkCandidate, n int) []appliance.LinkCandidate {
	i, _ := slices.BinarySearchFunc(rs, &c, func(e appliance.LinkCandidate, t *appliance.LinkCandidate) int { return rankLess(&e, t) })
	if i >= n {
		return rs
	}
	rs = slices.Insert(rs, i, c)
	if len(rs) > n {
		rs = rs[:n]
	}
	return rs
}

// cannotRank reports whether c's margin is proven below worst from
// sparse profiles of its path: the engine's loss on one is a lower bound
// of its loss on the full profile (SubsampleBounded), so the margin
// computed from it, the same expression as evaluateWith's, is an upper
// bound of c's margin. The 1e-6 dB of slack keeps the proof safe against
// rounding. The strides go from coarse to fine (sparseStrides): most
// towers are settled by a few samples, and the finest spares most full
// paths of the towers that come close.
func (p *Planner) cannotRank(ctx context.Context, sparse appliance.SparseProfiler, eng appliance.Engine, strides []int, req appliance.LinkRequest, c cand, worst float64) (bool, error) {
	refiner, _ := sparse.(appliance.SparseRefiner)
	var prev *appliance.PathProfile // the last stride's profile, refined by the next
	prevEvery := 0
	for _, every := range strides {
		var prof *appliance.PathProfile
		var err error
		if refiner != nil && prev != nil {
			prof, err = refiner.ProfileEveryFrom(prev, prevEvery, c.t.Pos(), req.Receiver, p.StepM, every)
		} else {
			prof, err = sparse.ProfileEvery(c.t.Pos(), req.Receiver, p.StepM, every)
		}
		if err != nil {
			return false, err
		}
		prev, prevEvery = prof, every
		if prof.Len() < 2 {
			return false, nil
		}
		in := appliance.LinkInput{
			Tx: c.t.Pos(), Rx: req.Receiver, TxHeightM: c.t.HeightM, RxHeightM: req.RxHeightM,
			FreqMHz: req.FreqMHz, Profile: prof,
		}
		var loss float64
		if lp, ok := eng.(LossPredictor); ok {
			loss, err = lp.PredictLossDB(ctx, in)
		} else {
			var pred appliance.LinkPrediction
			pred, err = eng.Predict(ctx, in)
			loss = pred.PathLossDB
		}
		if err != nil {
			return false, err
		}
		rx := c.gain() - loss + req.RxGainDBi - req.CableLossDB
		if rx-req.RxThresholdDBm+1e-6 < worst {
			return true, nil
		}
	}
	return false, nil
}

// sparseStrides are the strides of the sparse bounds of a path, coarse to
// fine: 4·every, every and every/4 (while above 1). Each profile's samples
// are the full profile's at those indices (and the last), so each bound is
// exact on its own; the coarse one is a quarter of the reads and settles
// most towers, the fine one settles most of those that would otherwise
// need the full path. With every = 8: 32, 8 and 2.
func sparseStrides(every int) []int {
	out := []int{4 * every, every}
	if every/4 > 1 {
		out = append(out, every/4)
	}
	return out
}

func (p *Planner) evaluate(ctx context.Context, eng appliance.Engine, req appliance.LinkRequest, c cand) (appliance.LinkCandidate, error) {
	return p.evaluateWith(ctx, eng, req, c, 0, 0)
}

func (p *Planner) evaluateWith(ctx context.Context, eng appliance.Engine, req appliance.LinkRequest, c cand, timePct, locPct float64) (appliance.LinkCandidate, error) {
	prof, err := p.Terrain.Profile(c.t.Pos(), req.Receiver, p.StepM)
	if err != nil {
		return appliance.LinkCandidate{}, err
	}
	if prof.Len() < 2 { // co-located: a two-point profile keeps every engine defined
		return appliance.LinkCandidate{}, fmt.Errorf("tower is co-located with the receiver: %w", appliance.ErrInvalid)
	}
	pred, err := eng.Predict(ctx, appliance.LinkInput{
		Tx: c.t.Pos(), Rx: req.Receiver, TxHeightM: c.t.HeightM, RxHeightM: req.RxHeightM,
		FreqMHz: req.FreqMHz, Profile: prof, TimePct: timePct, LocationPct: locPct,
	})
	if err != nil {
		return appliance.LinkCandidate{}, err
	}
	// The antenna's loss toward the receiver, now that the terrain gives
	// the elevation; its horizontal part was the bound so far.
	last := prof.Len() - 1
	elev := appliance.ElevationDownDeg(prof.HeightsM[0]+c.t.HeightM, prof.HeightsM[last]+req.RxHeightM, c.distM)
	antenna := "omnidirectional"
	if c.rad != nil {
		c.pattern = c.rad.LossDB(c.bearTx, elev)
		antenna = c.rad.Label()
	} else if !math.IsNaN(c.t.AzimuthDeg) {
		antenna = LegacySector
	}
	rx := c.gain() - pred.PathLossDB + req.RxGainDBi - req.CableLossDB
	lc := appliance.LinkCandidate{
		Tower: c.t, DistanceKm: c.distM / 1000, AzimuthDeg: c.bearRx, TowerToRxDeg: c.bearTx,
		Prediction: pred, EIRPDBm: c.eirp, EIRPAssumed: c.assumed, PatternLossDB: c.pattern,
		RxPowerDBm: rx, LinkMarginDB: rx - req.RxThresholdDBm, TowerGroundM: prof.HeightsM[0],
		TowerElevationDeg: elev, Antenna: antenna, Calibration: c.cal,
	}
	lc.Warnings = CandidateWarnings(&lc, prof)
	if c.radWarn != nil {
		lc.Warnings = append(lc.Warnings, *c.radWarn)
	}
	if c.cal != nil {
		if w, ok := c.cal.Warning(); ok {
			lc.Warnings = append(lc.Warnings, w)
		}
	}
	if req.IncludeProfile {
		if lc.Path, err = CheckPath(prof, c.t.HeightM, req.RxHeightM, req.FreqMHz); err != nil {
			return appliance.LinkCandidate{}, fmt.Errorf("path check: %w", err)
		}
	}
	return lc, nil
}

// Defaults fills the zero-valued optional fields of a request; set marks
// which optional fields the client gave (by JSON name) so that an explicit 0
// is kept.
func Defaults(r *appliance.LinkRequest, set map[string]bool) {
	if !set["receiver.height_m"] {
		r.RxHeightM = DefaultRxHeightM
	}
	if !set["max_distance_km"] {
		r.MaxDistanceKm = DefaultMaxDistanceKm
	}
	if !set["rx_threshold_dbm"] {
		r.RxThresholdDBm = DefaultRxThresholdDBm
	}
	if !set["assumed_eirp_dbm"] {
		r.AssumedEIRPDBm = DefaultAssumedEIRPDBm
	}
	if !set["max_alternatives"] {
		r.MaxAlternatives = DefaultAlternatives
	}
}
