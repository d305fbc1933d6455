package engines

import (
	"context"
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/itm"
)

// sweepCtxEvery is how many prefixes SweepLoss computes between context
// checks.
const sweepCtxEvery = 16

// SweepLoss implements the coverage service's PrefixSweeper: lossDB[i] is
// Predict's PathLossDB, to within rounding (itm.Sweeper.LossPrefix; tested
// to 1e-6 dB), on the prefix profile of in.Profile ending at sample
// i (samples 0..i, every profile slice cut the same way), for each i with
// use[i], the receiver of that prefix being the coverage sweep's: in.Rx for
// the last sample, else the point at fraction i/(n−1) of the great circle
// from in.Tx to in.Rx. A prefix Predict refuses as outside ITM's validity
// (appliance.ErrOutsideEnvelope) is NaN; any other error of Predict on a
// used prefix is returned, as the first such error in sample order.
//
// The inputs every prefix shares (frequency, heights, percentages, ITM
// parameters) are checked once; a prefix whose profile is well formed and
// equally spaced runs the model through itm.Sweeper without allocating,
// with the radio climate and N_0 Predict would choose for that prefix. Any
// other prefix (a bad field, an unequally spaced prefix that Predict
// resamples) is computed by Predict itself, so the answer is always
// Predict's.
func (e *itmEngine) SweepLoss(ctx context.Context, in appliance.LinkInput, use []bool, lossDB []float64) error {
	p := in.Profile
	if p == nil {
		_, err := e.run(ctx, in, &extras{})
		if err == nil {
			err = errors.New("itm sweep loss: no profile")
		}
		return err
	}
	n := p.Len()
	if len(use) != n || len(lossDB) != n {
		return fmt.Errorf("itm sweep loss: %w", appliance.Invalid("use", "use has %d and lossDB %d entries for a %d-sample profile", len(use), len(lossDB), n))
	}
	s := newITMSweep(e, in)
	for i := 1; i < n; i++ {
		if !use[i] {
			continue
		}
		if s.evals%sweepCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.evals++
		l, ok := s.fast(i)
		if !ok {
			var err error
			if l, err = s.slow(ctx, i); err != nil {
				return err
			}
		}
		lossDB[i] = l
	}
	return nil
}

// SweepVersion implements the coverage service's PrefixSweeper: the
// version of every answer of SweepLoss, Predict's.
func (e *itmEngine) SweepVersion() string { return ITMVersion }

// itmSweep is the state of one SweepLoss call.
type itmSweep struct {
	e     *itmEngine
	in    appliance.LinkInput
	p     *appliance.PathProfile
	n     int
	gc    appliance.GreatCircle
	evals int

	ok       bool // the shared inputs pass; fast may answer
	firstBad int  // prefixes ending at or after this sample are malformed
	sw       *itm.Sweeper
	prm      ITMParams
	// climate: fixedClimate > 0 when every prefix has it; else
	// seaClimate/landClimate > 0 when the prefix's climate depends only
	// on whether it crosses sea; else computed per prefix.
	fixedClimate, seaClimate, landClimate int

	// running state over the samples, valid up to sample upTo
	upTo             int
	anySea           bool
	stepMin, stepMax float64
	z3               [3]float64
}

func newITMSweep(e *itmEngine, in appliance.LinkInput) *itmSweep {
	p := in.Profile
	n := p.Len()
	s := &itmSweep{e: e, in: in, p: p, n: n, gc: in.Tx.GreatCircleTo(in.Rx), firstBad: n}
	s.prm = e.reg.itm.over(ITMParams{})
	// the shared fields, as ValidateLink and run check them
	probe := in
	probe.Profile = &appliance.PathProfile{DistancesM: []float64{0, 1}, HeightsM: []float64{0, 0}}
	if ValidateLink(probe) != nil || in.FreqMHz < ITMMinFreqMHz || in.FreqMHz > ITMMaxFreqMHz ||
		in.TxHeightM < ITMMinHeightM || in.TxHeightM > ITMMaxHeightM || in.RxHeightM < ITMMinHeightM || in.RxHeightM > ITMMaxHeightM {
		return s
	}
	if len(p.HeightsM) != n || (p.Sea != nil && len(p.Sea) != n) || n < 2 {
		return s
	}
	// the first sample whose prefix ValidateLink refuses
	if p.DistancesM[0] != 0 {
		s.firstBad = 0
	}
	for i := 1; i < s.firstBad; i++ {
		if !(p.DistancesM[i] > p.DistancesM[i-1]) || !finite(p.DistancesM[i]) {
			s.firstBad = i
		}
	}
	for i := 0; i < s.firstBad; i++ {
		if !finite(p.HeightsM[i]) {
			s.firstBad = i
		}
	}
	eps, sigma, mdvar, sit := ITMDefaultEpsilon, ITMDefaultSigma, ITMDefaultMdVar, 50.0
	if s.prm.Epsilon != nil {
		eps = *s.prm.Epsilon
	}
	if s.prm.SigmaSPerM != nil {
		sigma = *s.prm.SigmaSPerM
	}
	if s.prm.MdVar != nil {
		mdvar = *s.prm.MdVar
	}
	if s.prm.SituationPct != nil {
		sit = *s.prm.SituationPct
	}
	pol := itm.PolVertical
	if s.prm.Polarization == PolHorizontal {
		pol = itm.PolHorizontal
	}
	sw, err := itm.NewSweeper(itm.P2PInput{HTxM: in.TxHeightM, HRxM: in.RxHeightM, FreqMHz: in.FreqMHz,
		Pol: pol, Epsilon: eps, SigmaSm: sigma, MdVar: mdvar}, pct(in.TimePct, 50), pct(in.LocationPct, 50), sit)
	if err != nil {
		return s
	}
	s.sw = sw
	sw.SetRadial(p.HeightsM[:s.firstBad])
	s.initClimate()
	s.ok = true
	return s
}

// initClimate decides whether ITMClimate can be answered without the
// prefix's receiver position: every prefix's centre lies on the great
// circle from Tx within half the path of Tx, so when that whole disc (with
// a margin for the coast distance's local projection) is on one side of
// both of ITMClimate's thresholds, the climate depends only on anySea.
func (s *itmSweep) initClimate() {
	if s.prm.Climate != 0 {
		s.fixedClimate = s.prm.Climate
		return
	}
	tx := s.in.Tx
	halfKm := s.in.Tx.DistanceM(s.in.Rx) / 2000
	const kmPerDeg = math.Pi * appliance.EarthRadiusM / 180 / 1000
	dLat := (halfKm*1.01 + 1) / kmPerDeg
	switch {
	case tx.Lat-dLat > ITMEquatorialNorthOfLat:
		s.fixedClimate = itm.ClimateEquatorial
		return
	case tx.Lat+dLat >= ITMEquatorialNorthOfLat:
		return // per prefix
	}
	if math.Abs(tx.Lat)+dLat > 80 {
		return
	}
	dc := coastDistanceKm(tx)
	margin := halfKm*1.05 + 5
	switch {
	case dc+margin < ITMMaritimeCoastKm:
		s.fixedClimate = itm.ClimateMaritimeSubtropical
	case dc-margin > ITMMaritimeCoastKm:
		s.seaClimate, s.landClimate = itm.ClimateMaritimeSubtropical, itm.ClimateContinentalSubtropical
	}
}

// rx returns the receiver of the prefix ending at sample i.
func (s *itmSweep) rx(i int) appliance.LatLon {
	if i == s.n-1 {
		return s.in.Rx
	}
	return s.gc.At(float64(i) / float64(s.n-1))
}

// advance brings the running state up to sample i.
func (s *itmSweep) advance(i int) {
	p := s.p
	for s.upTo < i {
		s.upTo++
		k := s.upTo
		if p.Sea != nil && p.Sea[k] {
			s.anySea = true
		}
		st := p.DistancesM[k] - p.DistancesM[k-1]
		if k == 1 {
			s.stepMin, s.stepMax = st, st
		} else {
			s.stepMin, s.stepMax = min(s.stepMin, st), max(s.stepMax, st)
		}
	}
}

// fast computes the loss of the prefix ending at sample i without
// Predict; ok is false when it cannot vouch for Predict's answer.
func (s *itmSweep) fast(i int) (loss float64, ok bool) {
	if !s.ok || i >= s.firstBad {
		return 0, false
	}
	if s.upTo == 0 && s.p.Sea != nil && s.p.Sea[0] {
		s.anySea = true
	}
	s.advance(i)
	p := s.p
	var z []float64
	var xi float64
	if i == 1 { // run adds the mid-point of a 2-point profile
		d := p.DistancesM[1]
		s.z3 = [3]float64{p.HeightsM[0], (p.HeightsM[0] + p.HeightsM[1]) / 2, p.HeightsM[1]}
		z, xi = s.z3[:], d/2
		// PFL's spacing test on (0, d/2, d)
		if math.Abs(d/2-0-xi) > 1e-9*xi || math.Abs(d-d/2-xi) > 1e-9*xi {
			return 0, false
		}
	} else {
		xi = p.DistancesM[i] / float64(i)
		// PFL's test |step − xi| ≤ 1e-9·xi on every step: the largest
		// deviation is at the smallest or the largest step
		if math.Abs(s.stepMax-xi) > 1e-9*xi || math.Abs(s.stepMin-xi) > 1e-9*xi {
			return 0, false
		}
		z = p.HeightsM[:i+1]
	}
	var rx appliance.LatLon
	haveRx := false
	climate := s.fixedClimate
	switch {
	case climate > 0:
	case s.seaClimate > 0:
		climate = s.landClimate
		if s.anySea {
			climate = s.seaClimate
		}
	default:
		rx, haveRx = s.rx(i), true
		climate = ITMClimate(s.in.Tx, rx, s.anySea)
	}
	var n0 float64
	switch {
	case s.prm.N0 != nil:
		n0 = *s.prm.N0
	case s.e.reg.maps != nil:
		if !haveRx {
			rx, haveRx = s.rx(i), true
		}
		q := s.in
		q.Rx = rx
		_, n0 = s.e.reg.refractivity(q, p.DistancesM[i]/1000)
		n0 = math.Max(250, math.Min(400, n0))
	default:
		n0 = ITMClimateN0(climate)
	}
	if haveRx && !rx.Valid() {
		return 0, false
	}
	var l float64
	var err error
	if i == 1 {
		l, err = s.sw.Loss(z, xi, climate, n0)
	} else {
		l, err = s.sw.LossPrefix(i, xi, climate, n0)
	}
	if err != nil {
		return modelFailure(err)
	}
	return l, true
}

// slow is Predict on the prefix ending at sample i, as the coverage
// service calls it: NaN for a refusal as outside the envelope.
func (s *itmSweep) slow(ctx context.Context, i int) (float64, error) {
	p := s.p
	pre := &appliance.PathProfile{DistancesM: p.DistancesM[:i+1]}
	pre.HeightsM = p.HeightsM[:min(i+1, len(p.HeightsM))]
	if p.Sea != nil {
		pre.Sea = p.Sea[:min(i+1, len(p.Sea))]
	}
	if p.ClutterClass != nil {
		pre.ClutterClass = p.ClutterClass[:min(i+1, len(p.ClutterClass))]
	}
	if p.ClutterHeightsM != nil {
		pre.ClutterHeightsM = p.ClutterHeightsM[:min(i+1, len(p.ClutterHeightsM))]
	}
	if p.VoidFilled != nil {
		pre.VoidFilled = p.VoidFilled[:min(i+1, len(p.VoidFilled))]
	}
	q := s.in
	q.Profile, q.Rx = pre, s.rx(i)
	pred, err := s.e.run(ctx, q, &extras{})
	switch {
	case errors.Is(err, appliance.ErrOutsideEnvelope):
		return math.NaN(), nil
	case err != nil:
		return 0, fmt.Errorf("sample %d: %w", i, err)
	}
	return pred.PathLossDB, nil
}

// modelFailure turns an error of itm.Sweeper into fast's answer: NaN for
// a model failure (Predict's envelope refusal), else no answer. (Apart so
// that the error target of errors.As is allocated only on failure.)
func modelFailure(err error) (float64, bool) {
	var me *itm.ModelError
	if errors.As(err, &me) {
		return math.NaN(), true
	}
	return 0, false
}
