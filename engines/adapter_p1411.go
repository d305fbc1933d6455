package engines

import (
	"context"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/p1411"
)

var _ appliance.Engine = (*p1411Engine)(nil)

// HybridSwitchM is the path length below which P.1411 is used (SPEC §2.5),
// metres. The p1411 engine refuses paths at least this long.
const HybridSwitchM = 250.0

// P1411LowHeightMaxM is the antenna height above ground at or below which
// both terminals count as "near street level" for the auto environment
// (§4.3.1 was fitted for about 1.9–3 m), metres.
const P1411LowHeightMaxM = 3.0

// p1411Engine adapts engines/p1411 to appliance.Engine.
type p1411Engine struct{ reg *Registry }

func (e *p1411Engine) ID() appliance.EngineID { return appliance.EngineP1411 }

// LossAtLeastFreeSpace is false: the fitted lines (and the location
// correction of §4.3.1) can fall below free space.
func (e *p1411Engine) LossAtLeastFreeSpace() bool { return false }

func (e *p1411Engine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	return e.run(ctx, in, &extras{})
}

// p1411Env is one resolved environment.
type p1411Env struct {
	name  string
	code  int // Intermediate "p1411_env_code"
	above p1411.AboveRooftopEnv
	below p1411.BelowRooftopEnv
	low   p1411.LowHeightEnv
}

func (v p1411Env) rng() p1411.Range {
	switch {
	case v.above != 0:
		return v.above.Range()
	case v.below != 0:
		return v.below.Range()
	default:
		return v.low.Range()
	}
}

func envByName(name string) p1411Env {
	switch name {
	case P1411AboveLoS:
		return p1411Env{name: name, code: p1411EnvCodeAboveBase + int(p1411.AboveLoS), above: p1411.AboveLoS}
	case P1411AboveNLoSUrbanHighRise:
		return p1411Env{name: name, code: p1411EnvCodeAboveBase + int(p1411.AboveNLoSUrbanHighRise), above: p1411.AboveNLoSUrbanHighRise}
	case P1411BelowLoS:
		return p1411Env{name: name, code: p1411EnvCodeBelowBase + int(p1411.BelowLoS), below: p1411.BelowLoS}
	case P1411BelowNLoSUrbanHighRise:
		return p1411Env{name: name, code: p1411EnvCodeBelowBase + int(p1411.BelowNLoSUrbanHighRise), below: p1411.BelowNLoSUrbanHighRise}
	case P1411BelowNLoSUrbanLowRiseSub:
		return p1411Env{name: name, code: p1411EnvCodeBelowBase + int(p1411.BelowNLoSUrbanLowRiseSuburban), below: p1411.BelowNLoSUrbanLowRiseSuburban}
	case P1411BelowNLoSResidential:
		return p1411Env{name: name, code: p1411EnvCodeBelowBase + int(p1411.BelowNLoSResidential), below: p1411.BelowNLoSResidential}
	case P1411LowHeightSuburban:
		return p1411Env{name: name, code: p1411EnvCodeLowBase + int(p1411.LowSuburban), low: p1411.LowSuburban}
	case P1411LowHeightUrban:
		return p1411Env{name: name, code: p1411EnvCodeLowBase + int(p1411.LowUrban), low: p1411.LowUrban}
	case P1411LowHeightDenseUrban:
		return p1411Env{name: name, code: p1411EnvCodeLowBase + int(p1411.LowDenseUrban), low: p1411.LowDenseUrban}
	}
	return p1411Env{name: name, code: p1411EnvCodeUnknown}
}

// inFreq reports whether freqMHz lies in the environment's fitted range.
func (v p1411Env) inFreq(freqMHz float64) bool {
	r := v.rng()
	return freqMHz >= r.MinFreqMHz && freqMHz <= r.MaxFreqMHz
}

// pickP1411 resolves the environment for in: the named one, or by the auto
// criteria (see the package documentation) when name is "" or "auto". los
// is the terrain line-of-sight status at k = 4/3. It refuses
// (EnvelopeError) a frequency outside the environment's fitted range.
func pickP1411(name string, in appliance.LinkInput, los bool) (p1411Env, error) {
	id := appliance.EngineP1411
	if name != "" && name != P1411Auto {
		v := envByName(name)
		if !v.inFreq(in.FreqMHz) {
			r := v.rng()
			return v, outside(id, "frequency_mhz", "P.1411 environment %s covers %g–%g MHz, got %g", name, r.MinFreqMHz, r.MaxFreqMHz, in.FreqMHz)
		}
		return v, nil
	}
	var cands []string
	switch {
	case in.TxHeightM <= P1411LowHeightMaxM && in.RxHeightM <= P1411LowHeightMaxM:
		cands = []string{P1411LowHeightUrban}
	case los:
		cands = []string{P1411AboveLoS, P1411BelowLoS}
	default:
		cands = []string{P1411BelowNLoSUrbanHighRise}
	}
	for _, c := range cands {
		if v := envByName(c); v.inFreq(in.FreqMHz) {
			return v, nil
		}
	}
	v := envByName(cands[0])
	return v, outside(id, "frequency_mhz", "no P.1411 site-general model for this geometry covers %g MHz (tried %v)", in.FreqMHz, cands)
}

// invNorm returns the inverse of the standard normal distribution at q,
// 0 < q < 1.
func invNorm(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }

func (e *p1411Engine) run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	if err := ctx.Err(); err != nil {
		return appliance.LinkPrediction{}, err
	}
	if err := ValidateLink(in); err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("p1411 predict: %w", err)
	}
	id := appliance.EngineP1411
	if d := lengthM(in); d >= HybridSwitchM {
		return appliance.LinkPrediction{}, fmt.Errorf("p1411 predict: %w",
			outside(id, "distance_km", "P.1411 is used for paths shorter than %g m, got %.1f m", HybridSwitchM, d))
	}
	prm := e.reg.p1411.over(x.p1411)
	pred := appliance.LinkPrediction{Engine: id, EngineVersion: P1411Version}
	e.reg.geometry(in, &pred)
	env, err := pickP1411(prm.Environment, in, pred.LOSClear)
	if err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("p1411 predict: %w", err)
	}
	d3 := slantM(in)
	lp := pct(in.LocationPct, 50)
	var median, sigma, loss float64
	var warn p1411.Warning
	switch {
	case env.above != 0:
		median, warn, err = p1411.AboveRooftop(env.above, in.FreqMHz, d3)
		sigma = env.above.SigmaDB()
		loss = median + sigma*invNorm(lp/100)
	case env.below != 0:
		median, warn, err = p1411.BelowRooftop(env.below, in.FreqMHz, d3)
		sigma = env.below.SigmaDB()
		loss = median + sigma*invNorm(lp/100)
	default:
		loss, warn, err = p1411.LowHeight(env.low, in.FreqMHz, d3, lp, p1411DefaultTransitionWidthM)
		median = math.NaN()
		if err == nil {
			median, _, err = p1411.LowHeight(env.low, in.FreqMHz, d3, 50, p1411DefaultTransitionWidthM)
		}
	}
	if err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("p1411 predict: %w", err)
	}
	pred.PathLossDB = loss
	pred.Intermediate = map[string]float64{
		"median_db":      median,
		"sigma_db":       sigma,
		"location_pct":   lp,
		"distance_3d_m":  d3,
		"p1411_env_code": float64(env.code),
		"warning_bits":   float64(warn),
	}
	for _, w := range warn.Strings() {
		pred.Warnings = append(pred.Warnings, appliance.Warning{Code: appliance.WarnOutsideValidity, Message: "P.1411 " + env.name + ": " + w})
	}
	if tp := pct(in.TimePct, 50); tp != 50 {
		pred.Warnings = append(pred.Warnings, appliance.Warning{Code: appliance.WarnParameterIgnored,
			Message: fmt.Sprintf("P.1411 site-general models have no time variability: time_pct %g was ignored", tp)})
	}
	return pred, nil
}

// P1411EnvironmentName returns the environment name of an Intermediate
// "p1411_env_code" value, or "" for an unknown code.
func P1411EnvironmentName(code float64) string {
	for _, n := range P1411Environments() {
		if v := envByName(n); v.code != p1411EnvCodeUnknown && float64(v.code) == code {
			return n
		}
	}
	return ""
}
