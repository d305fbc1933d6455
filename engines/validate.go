package engines

import (
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/fspl"
)

// EnvelopeError says that a well-formed input lies outside the validity
// range of one engine (frequency, distance, heights, time percentage). It
// matches appliance.ErrOutsideEnvelope; PredictWithFallback answers such
// inputs with fspl.
type EnvelopeError struct {
	Engine appliance.EngineID // the engine that refused
	Field  string             // request field, e.g. "frequency_mhz"
	Reason string
}

func (e *EnvelopeError) Error() string {
	return fmt.Sprintf("%s outside validity envelope: %s: %s", e.Engine, e.Field, e.Reason)
}

// Is reports that an EnvelopeError is an appliance.ErrOutsideEnvelope.
func (e *EnvelopeError) Is(target error) bool { return target == appliance.ErrOutsideEnvelope }

func outside(id appliance.EngineID, field, format string, args ...any) error {
	return &EnvelopeError{Engine: id, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// ValidateLink checks what every engine needs, whatever its validity range:
// finite positive frequency, finite non-negative antenna heights, valid
// positions, percentages 0 (default) or within (0, 100), and a profile of
// at least 2 points starting at 0 with strictly increasing finite distances
// and finite heights (and a Sea slice of the same length when set). Its
// error is a *appliance.ValidationError (appliance.ErrInvalid) naming every
// bad field; PredictWithFallback never falls back on it.
func ValidateLink(in appliance.LinkInput) error {
	v := &appliance.ValidationError{}
	if !finite(in.FreqMHz) || in.FreqMHz <= 0 {
		v.Add("frequency_mhz", "must be a finite frequency > 0 MHz, got %g", in.FreqMHz)
	}
	if !finite(in.TxHeightM) || in.TxHeightM < 0 {
		v.Add("tx_height_m", "must be a finite height ≥ 0 m, got %g", in.TxHeightM)
	}
	if !finite(in.RxHeightM) || in.RxHeightM < 0 {
		v.Add("rx_height_m", "must be a finite height ≥ 0 m, got %g", in.RxHeightM)
	}
	if !in.Tx.Valid() {
		v.Add("tx", "must be a position in degrees (lat −90..90, lon −180..180), got %v", in.Tx)
	}
	if !in.Rx.Valid() {
		v.Add("rx", "must be a position in degrees (lat −90..90, lon −180..180), got %v", in.Rx)
	}
	for _, c := range []struct {
		name string
		val  float64
	}{{"time_pct", in.TimePct}, {"location_pct", in.LocationPct}} {
		if !finite(c.val) || c.val < 0 || c.val >= 100 {
			v.Add(c.name, "must be within (0, 100) %% (0 = 50), got %g", c.val)
		}
	}
	validateProfile(in.Profile, v)
	return v.Err()
}

func validateProfile(p *appliance.PathProfile, v *appliance.ValidationError) {
	if p == nil {
		v.Add("profile", "a terrain profile is required")
		return
	}
	n := p.Len()
	if n < 2 {
		v.Add("profile.distances_m", "needs at least 2 points, got %d", n)
		return
	}
	if len(p.HeightsM) != n {
		v.Add("profile.heights_m", "has %d points, distances_m has %d", len(p.HeightsM), n)
	}
	if p.DistancesM[0] != 0 {
		v.Add("profile.distances_m", "must start at 0 (the transmitter), got %g", p.DistancesM[0])
	}
	for i := 1; i < n; i++ {
		if !(p.DistancesM[i] > p.DistancesM[i-1]) || !finite(p.DistancesM[i]) {
			v.Add("profile.distances_m", "must be finite and strictly increasing (index %d: %g after %g)", i, p.DistancesM[i], p.DistancesM[i-1])
			break
		}
	}
	for i, h := range p.HeightsM {
		if !finite(h) {
			v.Add("profile.heights_m", "must be finite (index %d)", i)
			break
		}
	}
	if p.Sea != nil && len(p.Sea) != n {
		v.Add("profile.sea", "has %d points, distances_m has %d", len(p.Sea), n)
	}
}

// pct returns p, or def when p is 0 (the LinkInput convention).
func pct(p, def float64) float64 {
	if p == 0 {
		return def
	}
	return p
}

// geometry fills the LOSClear, FresnelOK and MinClearanceRatio fields of
// pred the way fspl does (k = 4/3, 60 % of F1), from the bare profile, so
// that every engine's result carries them.
func (r *Registry) geometry(in appliance.LinkInput, pred *appliance.LinkPrediction) {
	g := r.fspl.Compute(in.Profile, in.TxHeightM, in.RxHeightM, in.FreqMHz)
	pred.LOSClear = g.LOSClear
	pred.FresnelOK = g.FresnelOK
	pred.MinClearanceRatio = g.MinClearanceRatio
}

// lengthM returns the path length of in, metres: the profile's.
func lengthM(in appliance.LinkInput) float64 { return in.Profile.LengthM() }

// slantM returns the 3-D distance between the antennas, metres.
func slantM(in appliance.LinkInput) float64 {
	p := in.Profile
	n := p.Len()
	dh := (p.HeightsM[0] + in.TxHeightM) - (p.HeightsM[n-1] + in.RxHeightM)
	return math.Hypot(p.LengthM(), dh)
}

// fsplValid reports whether the fallback accepts in.
func fsplValid(in appliance.LinkInput) error { return fspl.Validate(in) }

// b2f turns a flag into an Intermediate value (1 true, 0 false).
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
