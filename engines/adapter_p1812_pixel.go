package engines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

// p1812Sweeps reuses the per-radial state of PixelLoss (its buffers; the
// state itself is reset for every radial, so reuse changes no answer).
var p1812Sweeps = sync.Pool{New: func() any { return new(p1812.Sweep) }}

// PixelRadialsAnySpacing implements the coverage service's
// AnyRadialSpacing: PixelLoss takes from the radial its terrain bounds and
// the smooth surface, which moves a pixel by at most 0.030 dB on every
// pixel of the 5 km Sumaré map with the radials of a 5 km map as with
// those of a 20 km one (0.034 dB on 2000 pixels of the 10 km map at 1″).
func (e *p1812Engine) PixelRadialsAnySpacing() bool { return true }

// PixelLoss implements the coverage service's PixelSweeper for P.1812:
// lossDB[p] is the loss of pixel p of r, Predict's on the pixel's own
// profile with every maximum over its samples exact (its horizons, the
// Bullington slopes and ν, the obstruction, the roughness: the samples the
// bounds r.UpperM cannot rule out are sampled with r.Exact) and the
// least-squares smooth surface integrated from the radial in.Profile at
// the same distances (p1812.Sweep). Refractivity (ΔN, N0) is Predict's
// for the pixel's own path centre.
//
// A pixel the model refuses (its distance outside P.1812's scope, or the
// whole map: a frequency, time percentage or height outside it) is NaN;
// a pixel whose own profile has no terrain where it was sampled is NaN
// (the caller knows it from its Exact). Left to the caller (r.Fallback):
// a profile of fewer than p1812.MinPixelSteps steps, a pixel whose own
// profile may cross sea (its zones, coast distances and sea fraction are
// the profile's own), every pixel of a radial with clutter heights (a
// land-cover layer) or under the Deygout method.
func (e *p1812Engine) PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error {
	if len(lossDB) != len(r.Pixels) || len(r.Fallback) != len(r.Pixels) {
		return fmt.Errorf("p1812 pixel loss: %w", appliance.Invalid("pixels", "%d pixels, %d losses and %d fallback flags", len(r.Pixels), len(lossDB), len(r.Fallback)))
	}
	leave := func() error {
		for p := range r.Pixels {
			r.Fallback[p] = true
		}
		return nil
	}
	prof := in.Profile
	prm := e.reg.p1812.over(P1812Params{})
	if prof == nil || prof.Len() < 3 || len(prof.HeightsM) != prof.Len() || len(r.UpperM) != prof.Len()-1 ||
		len(prof.ClutterHeightsM) == prof.Len() || prm.diffraction() != p1812.DeltaBullingtonMethod {
		return leave()
	}
	// the fields every pixel shares, as predict checks them
	probe := in
	probe.Profile = &appliance.PathProfile{DistancesM: []float64{0, 1}, HeightsM: []float64{0, 0}}
	if ValidateLink(probe) != nil {
		return leave()
	}
	fGHz := in.FreqMHz / 1000
	tp := pct(in.TimePct, 50)
	if fGHz < p1812.MinFreqGHz || fGHz > p1812.MaxFreqGHz || tp < p1812.MinTimePct || tp > p1812.MaxTimePct ||
		in.TxHeightM <= 0 || in.TxHeightM > p1812.MaxHeightM || in.RxHeightM <= 0 || in.RxHeightM > p1812.MaxHeightM {
		for p := range r.Pixels {
			lossDB[p] = math.NaN()
		}
		return nil
	}
	sw := p1812Sweeps.Get().(*p1812.Sweep)
	defer p1812Sweeps.Put(sw)
	if !sw.Reset(r.SpacingM/1000, prof.HeightsM, r.UpperM) {
		return leave()
	}
	lp := pct(in.LocationPct, 50)
	sigma := 0.0
	if lp != 50 {
		area := P1812DefaultLocAreaM
		if prm.LocationAreaM != nil {
			area = *prm.LocationAreaM
		}
		sigma = p1812.LocationSigmaDB(fGHz, in.RxHeightM, 0, area)
	}
	dct, dcr := P1812FarCoastKm, P1812FarCoastKm
	if prm.DctKm != nil {
		dct = *prm.DctKm
	}
	if prm.DcrKm != nil {
		dcr = *prm.DcrKm
	}
	base := p1812.Input{FreqGHz: fGHz, TimePct: tp, LocPct: lp, SigmaLdB: sigma,
		HtgM: in.TxHeightM, HrgM: in.RxHeightM, Pol: prm.pol(), PhiT: in.Tx.Lat, LamT: in.Tx.Lon,
		DctKm: dct, DcrKm: dcr, Diffraction: p1812.DeltaBullingtonMethod}
	for p := range r.Pixels {
		if p%sweepCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := &r.Pixels[p]
		if q.Steps < p1812.MinPixelSteps || !q.SeaKnown || q.AnySea || !q.Rx.Valid() {
			r.Fallback[p] = true
			continue
		}
		dKm := q.DistM / 1000
		if dKm < P1812MinDistKm || dKm > P1812MaxDistKm {
			lossDB[p] = math.NaN()
			continue
		}
		pin := base
		pin.PhiR, pin.LamR = q.Rx.Lat, q.Rx.Lon
		pi := in
		pi.Rx = q.Rx
		pin.DeltaN, pin.N0 = e.reg.refractivity(pi, dKm)
		if prm.DeltaN != nil {
			pin.DeltaN = *prm.DeltaN
		}
		if prm.N0 != nil {
			pin.N0 = *prm.N0
		}
		px := p1812.Pixel{DistKm: dKm, Steps: q.Steps, GroundM: q.GroundM, CosOff: q.CosOff, Index: p, Exact: r.Exact}
		l, err := sw.Loss(&pin, &px)
		if err != nil {
			l, ok, err := p1812PixelFailure(err, p)
			if err != nil {
				return err
			}
			if !ok {
				r.Fallback[p] = true
				continue
			}
			lossDB[p] = l
			continue
		}
		lossDB[p] = l
	}
	return nil
}

// p1812PixelFailure turns an error of p1812.Sweep.Loss into the pixel's
// answer: NaN for no terrain on the pixel's own profile, no answer for
// an input the sweep does not take, else the error. (Apart so that the
// error targets are allocated only on failure.)
func p1812PixelFailure(err error, p int) (float64, bool, error) {
	var tme *appliance.TileMissingError
	switch {
	case errors.As(err, &tme):
		return math.NaN(), true, nil
	case errors.Is(err, appliance.ErrInvalid):
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("p1812 pixel loss: pixel %d: %w", p, err)
}
