package appliance

import (
	"fmt"
	"math"
	"sort"
)

// Antenna radiation patterns (issue 25 scope 2). A pattern is two
// principal-plane cuts of attenuation relative to the antenna's peak gain,
// in the angle conventions of the Planet/MSI format, which every importer
// converts to:
//
//   - H, the horizontal cut: the azimuth offset from the boresight,
//     degrees clockwise seen from above (0 the boresight, 90 to the right,
//     180 the back), 0 ≤ angle < 360.
//   - V, the vertical cut in the plane of the boresight: the elevation
//     below the horizon, degrees (0 the front horizon, 90 the nadir, 180
//     the back horizon, 270 the zenith), 0 ≤ angle < 360. A downtilted
//     beam peaks at a small positive angle (the B800A065-18 4E file peaks
//     at 4°, its 0E twin at 0°: engines/antfile tests).
//
// Between samples the attenuation is interpolated linearly in dB, with
// wrap-around at 360°.

// MaxPatternPoints is the most samples one pattern cut may hold (0.05°
// over the whole circle).
const MaxPatternPoints = 7200

// PatternCut is one principal-plane cut: attenuation relative to the peak
// gain, dB (positive: below the peak), at ascending angles in [0, 360)
// degrees.
type PatternCut struct {
	AnglesDeg []float64 // ascending, 0 ≤ angle < 360, degrees
	AttDB     []float64 // attenuation at each angle, dB relative to the peak gain
}

// Validate checks the cut and names its bad parts under field (the JSON
// name of the cut).
func (c *PatternCut) Validate(field string, v *ValidationError) {
	n := len(c.AnglesDeg)
	switch {
	case n != len(c.AttDB):
		v.Add(field, "angles_deg has %d values but attenuation_db has %d", n, len(c.AttDB))
		return
	case n < 4:
		v.Add(field, "needs at least 4 samples, got %d", n)
		return
	case n > MaxPatternPoints:
		v.Add(field, "has %d samples; at most %d", n, MaxPatternPoints)
		return
	}
	for i, a := range c.AnglesDeg {
		if math.IsNaN(a) || a < 0 || a >= 360 {
			v.Add(fmt.Sprintf("%s.angles_deg[%d]", field, i), "must be an angle 0 ≤ a < 360 degrees, got %g", a)
			return
		}
		if i > 0 && a <= c.AnglesDeg[i-1] {
			v.Add(fmt.Sprintf("%s.angles_deg[%d]", field, i), "angles must be strictly ascending (%g after %g)", a, c.AnglesDeg[i-1])
			return
		}
	}
	for i, x := range c.AttDB {
		if math.IsNaN(x) || x < -60 || x > 200 {
			v.Add(fmt.Sprintf("%s.attenuation_db[%d]", field, i), "must be an attenuation of -60..200 dB, got %g", x)
			return
		}
	}
	if gap := c.maxGapDeg(); gap > 45 {
		v.Add(field, "leaves a gap of %.4g° without samples; the cut must cover the whole circle with gaps of at most 45°", gap)
	}
}

// maxGapDeg returns the largest angle between neighbouring samples,
// wrap-around included.
func (c *PatternCut) maxGapDeg() float64 {
	n := len(c.AnglesDeg)
	gap := c.AnglesDeg[0] + 360 - c.AnglesDeg[n-1]
	for i := 1; i < n; i++ {
		gap = math.Max(gap, c.AnglesDeg[i]-c.AnglesDeg[i-1])
	}
	return gap
}

// wrap360 returns a in [0, 360).
func wrap360(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if a >= 360 { // math.Mod of a tiny negative number
		a = 0
	}
	return a
}

// At returns the attenuation at angleDeg (any real angle), dB: linear in
// dB between the neighbouring samples, wrapping around 360°.
func (c *PatternCut) At(angleDeg float64) float64 {
	a := wrap360(angleDeg)
	as := c.AnglesDeg
	n := len(as)
	i := sort.SearchFloat64s(as, a) // first sample at or after a
	if i < n && as[i] == a {
		return c.AttDB[i]
	}
	var a0, a1, v0, v1 float64
	switch {
	case i == 0:
		a0, v0 = as[n-1]-360, c.AttDB[n-1]
		a1, v1 = as[0], c.AttDB[0]
	case i == n:
		a0, v0 = as[n-1], c.AttDB[n-1]
		a1, v1 = as[0]+360, c.AttDB[0]
	default:
		a0, v0 = as[i-1], c.AttDB[i-1]
		a1, v1 = as[i], c.AttDB[i]
	}
	return v0 + (v1-v0)*(a-a0)/(a1-a0)
}

// Min returns the smallest attenuation of the cut and its angle, over the
// samples whose angle satisfies keep (nil: all). It returns NaN when none
// does.
func (c *PatternCut) Min(keep func(angleDeg float64) bool) (attDB, angleDeg float64) {
	attDB, angleDeg = math.NaN(), math.NaN()
	for i, a := range c.AnglesDeg {
		if keep != nil && !keep(a) {
			continue
		}
		if math.IsNaN(attDB) || c.AttDB[i] < attDB {
			attDB, angleDeg = c.AttDB[i], a
		}
	}
	return attDB, angleDeg
}

// Max returns the largest attenuation of the cut, dB.
func (c *PatternCut) Max() float64 {
	m := math.Inf(-1)
	for _, x := range c.AttDB {
		m = math.Max(m, x)
	}
	return m
}

// HalfPowerWidthDeg returns the 3 dB beamwidth of the lobe around
// centreDeg, degrees: the angles on either side where the attenuation
// first reaches the attenuation at centreDeg plus 3 dB, found on the
// interpolated cut. It returns 360 when the cut never falls 3 dB below
// the centre (an omnidirectional cut).
func (c *PatternCut) HalfPowerWidthDeg(centreDeg float64) float64 {
	level := c.At(centreDeg) + 3
	right := c.crossing(centreDeg, level, +1)
	left := c.crossing(centreDeg, level, -1)
	if math.IsNaN(right) || math.IsNaN(left) {
		return 360
	}
	return math.Min(360, right+left)
}

// crossing walks from centre in direction dir (+1 clockwise) along the
// interpolated cut and returns the angular distance, degrees, at which the
// attenuation first reaches level; NaN when it never does within 180°.
func (c *PatternCut) crossing(centre, level float64, dir float64) float64 {
	// The breakpoints after centre in the walking direction, as angular
	// distances from centre.
	n := len(c.AnglesDeg)
	ds := make([]float64, 0, n+1)
	for _, a := range c.AnglesDeg {
		d := wrap360(dir * (a - centre))
		if d > 0 && d <= 180 {
			ds = append(ds, d)
		}
	}
	ds = append(ds, 180)
	sort.Float64s(ds)
	prevD, prevV := 0.0, c.At(centre)
	for _, d := range ds {
		v := c.At(centre + dir*d)
		if v >= level {
			if v == prevV {
				return d
			}
			return prevD + (d-prevD)*(level-prevV)/(v-prevV)
		}
		prevD, prevV = d, v
	}
	return math.NaN()
}

// AntennaPattern is an antenna's radiation pattern: the horizontal and
// vertical principal cuts (conventions above).
type AntennaPattern struct {
	H PatternCut // horizontal: azimuth offset clockwise from the boresight
	V PatternCut // vertical: elevation below the horizon in the boresight plane
}

// Validate checks both cuts (JSON names pattern.horizontal and
// pattern.vertical under prefix).
func (p *AntennaPattern) Validate(prefix string, v *ValidationError) {
	p.H.Validate(prefix+"horizontal", v)
	p.V.Validate(prefix+"vertical", v)
}

// frontHalf keeps the vertical angles of the front half-plane (from the
// zenith through the front horizon to the nadir).
func frontHalf(a float64) bool { return a <= 90 || a >= 270 }

// PatternStats are the figures of a pattern an engineer reads off a data
// sheet.
type PatternStats struct {
	// HPeakDeg is the horizontal angle of least attenuation, degrees
	// (0 for a pattern steered at its boresight).
	HPeakDeg float64
	// VPeakDeg is the vertical angle of least attenuation in the front
	// half-plane, degrees below the horizon: the electrical downtilt.
	VPeakDeg float64
	// HPeakAttDB and VPeakAttDB are the least attenuations of the cuts,
	// dB (0 for a normalised pattern).
	HPeakAttDB, VPeakAttDB float64
	// HBeamwidthDeg and VBeamwidthDeg are the 3 dB beamwidths around the
	// peaks, degrees (360: no 3 dB fall, omnidirectional).
	HBeamwidthDeg, VBeamwidthDeg float64
	// FrontToBackDB is the horizontal attenuation 180° from the peak
	// less the peak's, dB.
	FrontToBackDB float64
}

// Stats returns the pattern's figures.
func (p *AntennaPattern) Stats() PatternStats {
	var s PatternStats
	s.HPeakAttDB, s.HPeakDeg = p.H.Min(nil)
	s.VPeakAttDB, s.VPeakDeg = p.V.Min(frontHalf)
	if s.VPeakDeg > 180 {
		s.VPeakDeg -= 360 // an up-tilted beam: negative
	}
	s.HBeamwidthDeg = p.H.HalfPowerWidthDeg(s.HPeakDeg)
	s.VBeamwidthDeg = p.V.HalfPowerWidthDeg(s.VPeakDeg)
	s.FrontToBackDB = p.H.At(s.HPeakDeg+180) - s.HPeakAttDB
	return s
}

// EffectiveEarthRadius43M is the effective earth radius k·a with k = 4/3
// and a = 6 371 000 m, metres (the frame of the path checks).
const EffectiveEarthRadius43M = 6371000.0 * 4 / 3

// ElevationDownDeg returns the angle below the horizontal at which an
// antenna at altitude fromM sees a point at altitude toM at great-circle
// distance distM, degrees (negative: above the horizontal), on the
// k = 4/3 effective earth: atan((from − to)/d) + d/(2·k·a).
func ElevationDownDeg(fromM, toM, distM float64) float64 {
	if distM <= 0 {
		if fromM >= toM {
			return 90
		}
		return -90
	}
	return (math.Atan2(fromM-toM, distM) + distM/(2*EffectiveEarthRadius43M)) * 180 / math.Pi
}

// Generic sector defaults: the 3GPP TR 36.814 (Table A.2.1.1-2) macro
// sector that planner.PatternLossDB has always used horizontally, with
// its vertical part for towers whose tilt is known.
const (
	GenericHBeamwidthDeg = 65.0 // horizontal 3 dB beamwidth, degrees
	GenericFrontBackDB   = 25.0 // front-to-back ratio (3GPP A_m), dB
	GenericVBeamwidthDeg = 10.0 // vertical 3 dB beamwidth when the gain is unknown, degrees (3GPP θ3dB)
	GenericVSideLobeDB   = 20.0 // vertical side-lobe attenuation (3GPP SLA_v), dB
)

// VBeamwidthFromGainDeg returns the vertical 3 dB beamwidth, degrees, of a
// sector antenna of peak gain gainDBi and horizontal 3 dB beamwidth
// hBeamwidthDeg, by ITU-R F.1336-5 eq. (2b): θ3 = 31 000 × 10^(−0.1·G0) /
// φ3 (for an omnidirectional antenna, hBeamwidthDeg 360, F.1336 eq. (1b):
// 107.6 × 10^(−0.1·G0)), clamped to 1..90°.
func VBeamwidthFromGainDeg(gainDBi, hBeamwidthDeg float64) float64 {
	var th float64
	if hBeamwidthDeg >= 360 {
		th = 107.6 * math.Pow(10, -0.1*gainDBi)
	} else {
		th = 31000 * math.Pow(10, -0.1*gainDBi) / hBeamwidthDeg
	}
	return math.Min(90, math.Max(1, th))
}

// Radiator is a mounted transmitting (or, by reciprocity, receiving)
// antenna: its pattern, the bearing of its boresight and its mechanical
// downtilt. LossDB gives its attenuation relative to the main-lobe gain
// toward a direction of the world (a bearing and an elevation below the
// horizontal).
//
// The rule (a composite in the manner of ITU-R F.1336-5 §3.1.2, where the
// vertical pattern weighs less as the horizontal one falls toward the
// back lobe):
//
//	A(φ, θ) = min( H(φ) + R(φ)·(V(θ′) − V_peak), A_cap )
//	R(φ)    = clamp( (H_back − H(φ)) / (H_back − H_peak), 0, 1 )   (1 when H_back − H_peak < 3 dB)
//	sin θ′  = sin θ·cos t − cos θ·cos φ·sin t                      (mechanical downtilt t)
//
// φ is the bearing less the boresight azimuth, θ the elevation below the
// horizontal, t the mechanical downtilt; H and V the cuts, H_back the
// horizontal attenuation 180° from the horizontal peak, V_peak the least
// vertical attenuation of the front half-plane, and A_cap the deepest
// attenuation of either cut. At the horizon of the peak's plane A = H;
// along the boresight A = V; toward the back the horizontal back lobe
// rules alone, so the front-to-back ratio is never counted twice, which a
// plain sum H(φ) + V(θ) does; an omnidirectional horizontal cut (no 3 dB
// fall toward the back) keeps the full vertical pattern in every
// direction (F.1336 §2.1). The rotation of the mechanical tilt is exact
// in elevation; its small effect on the azimuth (below 0.5° within 10° of
// the horizon for tilts up to 10°) is neglected, which makes H(φ) a lower
// bound of A over every elevation (HorizontalLossDB): the planner prunes
// with it before the terrain gives the elevation.
//
// Without a pattern file the generic 3GPP TR 36.814 sector stands in:
// H(φ) = min(12(φ/φ3)², A_m) and V(θ′) = min(12(θ′/θ3)², SLA_v), with φ3
// 65°, A_m 25 dB and SLA_v 20 dB unless the tower's record says otherwise,
// θ3 from the gain (VBeamwidthFromGainDeg) or 10°. A generic antenna whose
// tilt is unknown has no vertical part at all: its loss is the horizontal
// one exactly as before patterns existed. An omnidirectional tower (no
// azimuth) with a known tilt gets the vertical part as a cone
// (θ′ = θ − t in every direction), which is what a multi-sector site whose
// sectors share a tilt radiates.
type Radiator struct {
	azimuth  float64 // boresight bearing, degrees; NaN: omnidirectional
	tilt     float64 // mechanical downtilt, degrees
	vertical bool    // a vertical pattern applies
	sinT     float64
	cosT     float64

	pattern *AntennaPattern // nil: generic
	// generic
	hbw, fb, vbw, sla float64
	// from the pattern
	hPeak, hPeakAz, hBack, vPeak, capDB float64
	directional                         bool

	name string // a pattern antenna's name
}

// GenericSector describes the generic antenna of a tower without a pattern
// file. Zero fields take the Generic* defaults.
type GenericSector struct {
	HBeamwidthDeg float64 // horizontal 3 dB beamwidth, degrees
	FrontBackDB   float64 // front-to-back ratio, dB
	VBeamwidthDeg float64 // vertical 3 dB beamwidth, degrees
}

// NewGenericRadiator returns the generic antenna pointing at azimuthDeg
// (NaN: omnidirectional) with mechanical downtilt tiltDeg (NaN: unknown,
// no vertical pattern). It allocates nothing: the planner makes one per
// candidate tower.
func NewGenericRadiator(g GenericSector, azimuthDeg, tiltDeg float64) Radiator {
	r := Radiator{azimuth: azimuthDeg, hbw: g.HBeamwidthDeg, fb: g.FrontBackDB, vbw: g.VBeamwidthDeg, sla: GenericVSideLobeDB}
	if r.hbw <= 0 {
		r.hbw = GenericHBeamwidthDeg
	}
	if r.fb <= 0 {
		r.fb = GenericFrontBackDB
	}
	if r.vbw <= 0 {
		r.vbw = GenericVBeamwidthDeg
	}
	r.setTilt(tiltDeg)
	return r
}

// NewPatternRadiator returns the antenna of pattern p pointing at
// azimuthDeg (NaN: 0, for an omnidirectional antenna) with mechanical
// downtilt tiltDeg (NaN: none); name names it in explanations (Label).
func NewPatternRadiator(p *AntennaPattern, azimuthDeg, tiltDeg float64, name string) Radiator {
	if math.IsNaN(azimuthDeg) {
		azimuthDeg = 0
	}
	if math.IsNaN(tiltDeg) {
		tiltDeg = 0
	}
	r := Radiator{azimuth: azimuthDeg, pattern: p, name: name}
	r.setTilt(tiltDeg)
	r.vertical = true
	r.hPeak, r.hPeakAz = p.H.Min(nil)
	r.hBack = p.H.At(r.hPeakAz + 180)
	r.vPeak, _ = p.V.Min(frontHalf)
	if math.IsNaN(r.vPeak) {
		r.vPeak = 0
	}
	r.directional = r.hBack-r.hPeak >= 3
	r.capDB = math.Max(p.H.Max(), p.V.Max())
	return r
}

func (r *Radiator) setTilt(t float64) {
	if math.IsNaN(t) {
		return
	}
	r.vertical = true
	r.tilt = t
	r.sinT, r.cosT = math.Sincos(t * math.Pi / 180)
}

// Label names the antenna model in explanations, e.g. "generic 65°
// sector" or "B800A065-18-4E, 4° mechanical downtilt".
func (r *Radiator) Label() string {
	tilt := ""
	if r.vertical && r.tilt != 0 {
		tilt = fmt.Sprintf(", %.3g° mechanical downtilt", r.tilt)
	}
	switch {
	case r.pattern != nil:
		return r.name + tilt
	case math.IsNaN(r.azimuth) && !r.vertical:
		return "omnidirectional"
	case math.IsNaN(r.azimuth):
		return fmt.Sprintf("generic omnidirectional, %.3g° vertical beamwidth, %.3g° downtilt", r.vbw, r.tilt)
	case !r.vertical:
		return fmt.Sprintf("generic %.3g° sector", r.hbw)
	}
	return fmt.Sprintf("generic %.3g° sector, %.3g° vertical beamwidth%s", r.hbw, r.vbw, tilt)
}

// HasVertical reports whether the loss depends on the elevation.
func (r *Radiator) HasVertical() bool { return r.vertical }

// Omni reports whether the antenna radiates alike in every azimuth (a
// generic antenna without azimuth).
func (r *Radiator) Omni() bool { return r.pattern == nil && math.IsNaN(r.azimuth) }

// offset returns the bearing less the boresight azimuth, in [0, 180]
// degrees for the generic antenna (symmetric) and in [0, 360) for a
// pattern.
func (r *Radiator) offset(bearingDeg float64) float64 {
	if r.pattern == nil {
		// planner.PatternLossDB's expression, bit for bit
		return math.Abs(math.Mod(bearingDeg-r.azimuth+540, 360) - 180)
	}
	return wrap360(bearingDeg - r.azimuth)
}

func (r *Radiator) genericH(d float64) float64 {
	return math.Min(12*(d/r.hbw)*(d/r.hbw), r.fb)
}

// HorizontalLossDB returns the attenuation toward bearingDeg at the
// horizon of the peak's plane, dB: a lower bound of LossDB over every
// elevation, and LossDB itself when HasVertical is false.
func (r *Radiator) HorizontalLossDB(bearingDeg float64) float64 {
	switch {
	case r.pattern != nil:
		return math.Min(r.pattern.H.At(r.offset(bearingDeg)), r.capDB)
	case math.IsNaN(r.azimuth):
		return 0
	}
	return r.genericH(r.offset(bearingDeg))
}

// LossDB returns the attenuation relative to the main-lobe gain toward
// bearingDeg (degrees clockwise from north) at elevDownDeg below the
// horizontal (ElevationDownDeg), dB, by the rule of the type's doc.
func (r *Radiator) LossDB(bearingDeg, elevDownDeg float64) float64 {
	if !r.vertical {
		return r.HorizontalLossDB(bearingDeg)
	}
	if math.IsNaN(r.azimuth) { // generic omnidirectional: a cone
		x := elevDownDeg - r.tilt
		return math.Min(12*(x/r.vbw)*(x/r.vbw), r.sla)
	}
	phi := r.offset(bearingDeg)
	th := elevDownDeg
	if r.sinT != 0 {
		s, c := math.Sincos(elevDownDeg * math.Pi / 180)
		x := s*r.cosT - c*math.Cos(phi*math.Pi/180)*r.sinT
		th = math.Asin(math.Max(-1, math.Min(1, x))) * 180 / math.Pi
	}
	if r.pattern == nil {
		h := r.genericH(phi)
		v := math.Min(12*(th/r.vbw)*(th/r.vbw), r.sla)
		return math.Min(h+(r.fb-h)/r.fb*v, math.Max(r.fb, r.sla))
	}
	h := r.pattern.H.At(phi)
	rw := 1.0
	if r.directional {
		rw = math.Max(0, math.Min(1, (r.hBack-h)/(r.hBack-r.hPeak)))
	}
	v := r.pattern.V.At(th) - r.vPeak
	return math.Min(h+rw*v, r.capDB)
}
