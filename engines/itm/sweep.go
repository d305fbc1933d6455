package itm

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Sweeper computes the point-to-point loss (P2PTLS) of many profiles that
// share every input but the profile, the radio climate and N_0: the
// prefixes of one radial of a coverage sweep. The fields fixed for the
// sweep are validated once by NewSweeper and the ground impedance is
// computed once; Loss then runs the model without allocating. A Sweeper
// is not safe for concurrent use.
type Sweeper struct {
	in                      P2PInput // PFL, ClimateCode and N0 unused
	timePct, locPct, sitPct float64
	h                       [2]float64
	baseWarn                Warning
	zg                      complex128 // ground impedance of newGround
}

// NewSweeper validates the inputs of in other than PFL, ClimateCode and N0
// (as P2PTLS does) and the percentages; its error is P2PTLS's for them.
func NewSweeper(in P2PInput, timePct, locPct, sitPct float64) (*Sweeper, error) {
	var v appliance.ValidationError
	validateCommon(&v, in.HTxM, in.HRxM, ClimateEquatorial, minN0, in.FreqMHz, in.Pol, in.Epsilon, in.SigmaSm, in.MdVar)
	checkPct(&v, "time_pct", timePct)
	checkPct(&v, "location_pct", locPct)
	checkPct(&v, "situation_pct", sitPct)
	if err := invalid(v); err != nil {
		return nil, fmt.Errorf("itm p2p: %w", err)
	}
	s := &Sweeper{in: in, timePct: timePct, locPct: locPct, sitPct: sitPct,
		h: [2]float64{in.HTxM, in.HRxM}, baseWarn: inputWarnings(in.HTxM, in.HRxM, in.FreqMHz)}
	s.zg = newGround(in.FreqMHz, 0, minN0, in.Pol, in.Epsilon, in.SigmaSm).zg
	return s, nil
}

// Loss returns P2PTLS(in with PFL = (len(z)−1, xi, z...), climate, n0).LossDB
// for the sweep's other inputs, and its error: a *ModelError (matching
// appliance.ErrOutsideEnvelope) when the model fails on this profile, an
// error matching appliance.ErrInvalid when z, xi, climate or n0 would fail
// P2PTLS's validation (z must hold at least 3 finite elevations).
func (s *Sweeper) Loss(z []float64, xi float64, climate int, n0 float64) (float64, error) {
	if len(z) < minProfileN+1 || !finite(xi) || xi <= 0 || climate < ClimateEquatorial ||
		climate > ClimateMaritimeTemperateOverSea || !finite(n0) || n0 < minN0 || n0 > maxN0 {
		return 0, fmt.Errorf("itm sweep: %w", appliance.Invalid("pfl", "profile, climate or n0 outside P2PTLS's input range"))
	}
	w := s.baseWarn
	hSys := systemElevation(z)
	g := ground{ns: SurfaceRefractivity(n0, hSys)}
	g.gammaE = earthCurvature * (1 - 0.04665*math.Exp(g.ns/179.3))
	g.zg = s.zg
	pp := quickPflWith(fastKernels(), z, xi, 1/g.gammaE, s.h)
	ref, err := longleyRice(&pp, s.in.FreqMHz, g, s.h, true, &w)
	if err != nil {
		return 0, err
	}
	afs := freeSpaceLoss(pp.d, s.in.FreqMHz)
	loss := variability(s.timePct, s.locPct, s.sitPct, pp.he, pp.deltaH, s.in.FreqMHz, pp.d, ref.aRef,
		climate, s.in.MdVar, &w) + afs
	res := Result{LossDB: loss}
	im := &res.Intermediate
	im.ThetaHznRad, im.DHznM, im.HEffM, im.DeltaHM = pp.theta, pp.dHzn, pp.he, pp.deltaH
	im.ARefDB, im.FreeSpaceLossDB = ref.aRef, afs
	if err := checkFinite(res); err != nil {
		return 0, err
	}
	return loss, nil
}
