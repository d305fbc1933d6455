package engines

import (
	"context"
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/itm"
)

// PixelLoss implements the coverage service's PixelSweeper: lossDB[p] is
// the loss of pixel p of r, Predict's on the pixel's own profile with the
// horizons, ends and length exact and the terrain statistics taken from
// the radial in.Profile at the same distances (itm.Sweeper.LossPixel).
// A pixel the model refuses is NaN; a pixel whose own profile has no
// terrain where it was sampled (r.Exact's *appliance.TileMissingError) is
// NaN too (the caller knows it from its Exact). A pixel it cannot vouch
// for (a profile of fewer than four steps, a radio climate that depends on
// whether the pixel's own profile crosses sea when r cannot say, a radial
// sample Predict would refuse on the way) is left to the caller:
// r.Fallback[p] is set.
//
// Climate and N_0 are Predict's for the pixel's own path (its centre, the
// receiver at the pixel centre).
func (e *itmEngine) PixelLoss(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64) error {
	if len(lossDB) != len(r.Pixels) || len(r.Fallback) != len(r.Pixels) {
		return fmt.Errorf("itm pixel loss: %w", appliance.Invalid("pixels", "%d pixels, %d losses and %d fallback flags", len(r.Pixels), len(lossDB), len(r.Fallback)))
	}
	if in.Profile == nil || in.Profile.Len() < 2 || len(r.UpperM) != in.Profile.Len()-1 {
		for p := range r.Pixels {
			r.Fallback[p] = true
		}
		return nil
	}
	s := newITMSweep(e, in)
	if s.ok {
		cosMin := 1.0
		for p := range r.Pixels {
			cosMin = min(cosMin, r.Pixels[p].CosOff)
		}
		s.sw.SetBounds(r.UpperM[:s.firstBad-1], r.SpacingM, cosMin)
	}
	var px itm.Pixel
	for p := range r.Pixels {
		if p%sweepCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := &r.Pixels[p]
		l, ok, err := s.pixel(q, p, r, &px)
		if err != nil {
			return err
		}
		if !ok {
			r.Fallback[p] = true
			continue
		}
		lossDB[p] = l
	}
	return nil
}

// PixelVersion implements the coverage service's PixelSweeper: Predict's
// version.
func (e *itmEngine) PixelVersion() string { return ITMVersion }

// pixel computes pixel p of r (PixelLoss); ok is false when it leaves the
// pixel to the caller.
func (s *itmSweep) pixel(q *appliance.PixelQuery, p int, r *appliance.PixelRadial, px *itm.Pixel) (float64, bool, error) {
	climate, n0, ok := s.pixelClimate(q, r)
	if !ok {
		return 0, false, nil
	}
	*px = itm.Pixel{DistM: q.DistM, Steps: q.Steps, GroundM: q.GroundM, CosOff: q.CosOff, Index: p, Exact: r.Exact}
	l, err := s.sw.LossPixel(px, climate, n0)
	if err == nil {
		return l, true, nil
	}
	return pixelFailure(err, p)
}

// pixelClimate returns the climate and N_0 of pixel q (Predict's for its
// own path); ok is false when PixelLoss leaves the pixel to the caller.
// Neither depends on the frequency.
func (s *itmSweep) pixelClimate(q *appliance.PixelQuery, r *appliance.PixelRadial) (climate int, n0 float64, ok bool) {
	if !s.ok || q.Steps < 4 || !q.Rx.Valid() {
		return 0, 0, false
	}
	// every radial sample up to the pixel must be one Predict takes
	if last := int(math.Ceil(q.DistM * q.CosOff / r.SpacingM)); last >= s.firstBad {
		return 0, 0, false
	}
	climate = s.fixedClimate
	switch {
	case climate > 0:
	case !q.SeaKnown:
		return 0, 0, false
	case s.seaClimate > 0:
		climate = s.landClimate
		if q.AnySea {
			climate = s.seaClimate
		}
	default:
		climate = ITMClimate(s.in.Tx, q.Rx, q.AnySea)
	}
	switch {
	case s.prm.N0 != nil:
		n0 = *s.prm.N0
	case s.e.reg.maps != nil:
		in := s.in
		in.Rx = q.Rx
		_, n0 = s.e.reg.refractivity(in, q.DistM/1000)
		n0 = math.Max(250, math.Min(400, n0))
	default:
		n0 = ITMClimateN0(climate)
	}
	return climate, n0, true
}

// pixelFailure turns an error of itm.Sweeper.LossPixel into pixel's
// answer: NaN for a model failure (Predict's envelope refusal) or no
// terrain on the pixel's own profile, no answer for an input LossPixel
// does not take, else the error. (Apart so that the error targets are
// allocated only on failure.)
func pixelFailure(err error, p int) (float64, bool, error) {
	var me *itm.ModelError
	var tme *appliance.TileMissingError
	switch {
	case errors.As(err, &me), errors.As(err, &tme):
		return math.NaN(), true, nil
	case errors.Is(err, appliance.ErrInvalid):
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("itm pixel loss: pixel %d: %w", p, err)
}

// PixelLossFreqs implements the interference service's multi-frequency
// pixel sweep: PixelLoss for in and for in on each of freqsMHz at once,
// the frequency-independent work of each pixel (horizons, Δh, effective
// heights: itm.Sweeper.LossPixelFreqs) done once. lossDB[k] and
// fallback[k] (each len(r.Pixels) long) receive the answer of PixelLoss
// for in with FreqMHz = freqsMHz[k], bit for bit; r.Fallback and the
// returned loss slice hold in's own, as PixelLoss.
func (e *itmEngine) PixelLossFreqs(ctx context.Context, in appliance.LinkInput, r *appliance.PixelRadial, lossDB []float64, freqsMHz []float64, otherLoss [][]float64, otherFallback [][]bool) error {
	if len(lossDB) != len(r.Pixels) || len(r.Fallback) != len(r.Pixels) || len(otherLoss) != len(freqsMHz) || len(otherFallback) != len(freqsMHz) {
		return fmt.Errorf("itm pixel loss: %w", appliance.Invalid("pixels", "%d pixels, %d losses and %d fallback flags", len(r.Pixels), len(lossDB), len(r.Fallback)))
	}
	for k := range freqsMHz {
		if len(otherLoss[k]) != len(r.Pixels) || len(otherFallback[k]) != len(r.Pixels) {
			return fmt.Errorf("itm pixel loss: %w", appliance.Invalid("pixels", "frequency %d: %d losses and %d fallback flags", k, len(otherLoss[k]), len(otherFallback[k])))
		}
	}
	separately := func() error {
		if err := e.PixelLoss(ctx, in, r, lossDB); err != nil {
			return err
		}
		for k, f := range freqsMHz {
			o := in
			o.FreqMHz = f
			or := *r
			or.Fallback = otherFallback[k]
			if err := e.PixelLoss(ctx, o, &or, otherLoss[k]); err != nil {
				return err
			}
		}
		return nil
	}
	if in.Profile == nil || in.Profile.Len() < 2 || len(r.UpperM) != in.Profile.Len()-1 {
		return separately()
	}
	s := newITMSweep(e, in)
	others := make([]*itm.Sweeper, len(freqsMHz))
	for k, f := range freqsMHz {
		o := in
		o.FreqMHz = f
		os := newITMSweep(e, o)
		// the same shared state, or each frequency on its own
		if os.ok != s.ok || os.firstBad != s.firstBad || os.fixedClimate != s.fixedClimate ||
			os.seaClimate != s.seaClimate || os.landClimate != s.landClimate || !s.ok {
			return separately()
		}
		others[k] = os.sw
	}
	cosMin := 1.0
	for p := range r.Pixels {
		cosMin = min(cosMin, r.Pixels[p].CosOff)
	}
	s.sw.SetBounds(r.UpperM[:s.firstBad-1], r.SpacingM, cosMin)
	var px itm.Pixel
	ol, oe := make([]float64, len(others)), make([]error, len(others))
	for p := range r.Pixels {
		if p%sweepCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := &r.Pixels[p]
		climate, n0, ok := s.pixelClimate(q, r)
		if !ok {
			r.Fallback[p] = true
			for k := range others {
				otherFallback[k][p] = true
			}
			continue
		}
		px = itm.Pixel{DistM: q.DistM, Steps: q.Steps, GroundM: q.GroundM, CosOff: q.CosOff, Index: p, Exact: r.Exact}
		l, err := s.sw.LossPixelFreqs(&px, climate, n0, others, ol, oe)
		for k := range others {
			v, ok, err := pixelAnswer(ol[k], oe[k], p)
			if err != nil {
				return err
			}
			if !ok {
				otherFallback[k][p] = true
				continue
			}
			otherLoss[k][p] = v
		}
		v, ok, err := pixelAnswer(l, err, p)
		if err != nil {
			return err
		}
		if !ok {
			r.Fallback[p] = true
			continue
		}
		lossDB[p] = v
	}
	return nil
}

// pixelAnswer is pixel's answer from LossPixel's.
func pixelAnswer(l float64, err error, p int) (float64, bool, error) {
	if err == nil {
		return l, true, nil
	}
	return pixelFailure(err, p)
}
