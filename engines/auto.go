package engines

import (
	"context"
	"fmt"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

var (
	_ appliance.Engine = (*hybridEngine)(nil)
	_ appliance.Engine = (*autoEngine)(nil)
)

// hybridEngine is P.1411 below HybridSwitchM, P.1812 from there on, with no
// blending: the loss can jump at 250 m.
type hybridEngine struct{ reg *Registry }

func (e *hybridEngine) ID() appliance.EngineID { return appliance.EngineHybrid }

// LossAtLeastFreeSpace is false, as for both of its branches.
func (e *hybridEngine) LossAtLeastFreeSpace() bool { return false }

func (e *hybridEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	return e.run(ctx, in, &extras{})
}

func (e *hybridEngine) run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	if err := ValidateLink(in); err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("hybrid predict: %w", err)
	}
	var (
		pred   appliance.LinkPrediction
		err    error
		branch float64
	)
	if lengthM(in) < HybridSwitchM {
		pred, err = (&p1411Engine{reg: e.reg}).run(ctx, in, x)
		branch = 1
	} else {
		pred, err = (&p1812Engine{reg: e.reg}).run(ctx, in, x)
	}
	if err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("hybrid predict: %w", err)
	}
	pred.EngineVersion = HybridVersion + "+" + pred.EngineVersion
	pred.Engine = appliance.EngineHybrid
	pred.Intermediate["hybrid_p1411_branch"] = branch
	return pred, nil
}

// autoEngine runs the engine that Choose picks and reports it as the
// result's Engine.
type autoEngine struct{ reg *Registry }

func (e *autoEngine) ID() appliance.EngineID { return appliance.EngineAuto }

// LossAtLeastFreeSpace is false: auto may choose an engine without the
// free-space bound.
func (e *autoEngine) LossAtLeastFreeSpace() bool { return false }

func (e *autoEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	return e.run(ctx, in, &extras{})
}

func (e *autoEngine) run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	if err := ValidateLink(in); err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("auto predict: %w", err)
	}
	id, _ := e.reg.choose(in, x)
	pred, err := e.reg.runID(ctx, id, in, x)
	if err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("auto predict (chose %s): %w", id, err)
	}
	return pred, nil
}

// Choose returns the engine the "auto" engine uses for in and why. The
// criteria, checked in this order (d is the profile length, f the
// frequency, p the time percentage, default 50):
//
//	no usable profile                                        fspl
//	d < 250 m and a P.1411 environment covers f              p1812-p1411-hybrid (its P.1411 branch)
//	d < 250 m otherwise                                      fspl
//	30 ≤ f ≤ 6000 MHz, 1 ≤ p ≤ 50 %, heights in (0, 3000] m,
//	  d ≤ 3000 km                                            p1812
//	20 ≤ f ≤ 20000 MHz, heights in [0.5, 3000] m             itm
//	otherwise                                                fspl
//
// Choose does not validate in; the chosen engine does.
func (r *Registry) Choose(in appliance.LinkInput) (appliance.EngineID, string) {
	return r.choose(in, &extras{})
}

// choose is Choose with the P.1411 environment of the case extras x.
func (r *Registry) choose(in appliance.LinkInput, x *extras) (appliance.EngineID, string) {
	p := in.Profile
	if p == nil || p.Len() < 2 {
		return appliance.EngineFSPL, "no terrain profile: free space is the only model that can answer"
	}
	d := p.LengthM()
	f := in.FreqMHz
	if d < HybridSwitchM {
		los := r.fspl.Compute(p, in.TxHeightM, in.RxHeightM, f).LOSClear
		prm := r.p1411.over(x.p1411)
		if env, err := pickP1411(prm.Environment, in, los); err == nil {
			return appliance.EngineHybrid, fmt.Sprintf("path of %.0f m is shorter than %g m: P.1411 (%s)", d, HybridSwitchM, env.name)
		}
		return appliance.EngineFSPL, fmt.Sprintf("path of %.0f m is shorter than %g m and no P.1411 model covers %g MHz", d, HybridSwitchM, f)
	}
	tp := pct(in.TimePct, 50)
	heightsIn := func(lo, hi float64, open bool) bool {
		for _, h := range []float64{in.TxHeightM, in.RxHeightM} {
			if h > hi || h < lo || (open && h == lo) {
				return false
			}
		}
		return true
	}
	if f >= 1000*p1812.MinFreqGHz && f <= 1000*p1812.MaxFreqGHz && tp >= p1812.MinTimePct && tp <= p1812.MaxTimePct &&
		heightsIn(0, p1812.MaxHeightM, true) && d <= 1000*P1812MaxDistKm {
		return appliance.EngineP1812, fmt.Sprintf("%g MHz, %.1f km, %g %% of time: inside P.1812-8's scope", f, d/1000, tp)
	}
	if f >= ITMMinFreqMHz && f <= ITMMaxFreqMHz && heightsIn(ITMMinHeightM, ITMMaxHeightM, false) {
		return appliance.EngineITM, fmt.Sprintf("%g MHz, %g %% of time: outside P.1812-8's scope, inside ITM's", f, tp)
	}
	return appliance.EngineFSPL, fmt.Sprintf("%g MHz with these heights is outside P.1812-8 and ITM: free space", f)
}

// runID runs the engine id with the case extras x.
func (r *Registry) runID(ctx context.Context, id appliance.EngineID, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	eng, err := r.Get(id)
	if err != nil {
		return appliance.LinkPrediction{}, err
	}
	if rn, ok := eng.(runner); ok {
		return rn.run(ctx, in, x)
	}
	return eng.Predict(ctx, in)
}
