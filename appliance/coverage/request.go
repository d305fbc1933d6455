package coverage

import (
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// Limits of a Request, checked by Validate.
const (
	MinFreqMHz        = 30.0     // lowest frequency accepted, MHz (the fspl engine's range; engines with a narrower range refuse on the first prediction)
	MaxFreqMHz        = 100000.0 // highest frequency accepted, MHz
	MaxRadiusM        = 200000.0 // largest radius, metres
	MinResolutionM    = 1.0      // finest resolution, metres (the grid rounds to at least one arc-second)
	MaxResolutionM    = 10000.0  // coarsest resolution, metres
	MaxAntennaHeightM = 1000.0   // highest antenna above ground, metres
	MinEIRPDBm        = -50.0    // lowest EIRP, dBm
	MaxEIRPDBm        = 100.0    // highest EIRP, dBm
)

// Request is one coverage map: a transmitter, a radius and a grid.
type Request struct {
	Tx        appliance.LatLon // transmitter position, WGS84 degrees
	TxHeightM float64          // transmitter antenna height above ground, metres
	EIRPDBm   float64          // EIRP toward the main lobe, dBm
	// AzimuthDeg is the main-lobe bearing, degrees clockwise from true
	// north; NaN means an omnidirectional antenna (no pattern loss).
	AzimuthDeg float64
	// BeamwidthDeg is the horizontal half-power beamwidth of a sector,
	// degrees in (0, 360]; 0 means the planner's sector
	// (planner.SectorBeamwidthDeg, 65°). Ignored for an omni antenna.
	BeamwidthDeg float64
	// Radiator is the transmitter's antenna when it is more than the
	// generic sector of AzimuthDeg and BeamwidthDeg: a catalogue antenna,
	// or a known tilt (package doc, "Antenna pattern"); nil for the
	// generic sector, which has no vertical pattern.
	Radiator    *appliance.Radiator
	FreqMHz     float64            // carrier frequency, MHz
	RadiusM     float64            // map radius around the transmitter, metres
	RxHeightM   float64            // receiver antenna height above ground, metres (isotropic receiver, 0 dBi)
	Engine      appliance.EngineID // propagation engine; "" is the lookup's default
	ResolutionM float64            // wanted pixel size, metres (see the package doc for the grid rule)
	// TimePct and LocationPct are passed to the engine (0 = its default, 50 %).
	TimePct, LocationPct float64
	// Transmitter is what the map's caveats say of the transmitter (tower id,
	// assumed EIRP, synthetic, position uncertainty; caveats.go). The
	// computation does not read it.
	Transmitter Transmitter
	// EngineNote says why Engine is not the engine asked for (e.g. auto →
	// fspl below Pro), "" when it is; the map warns engine_resolved.
	EngineNote string
	// Exact evaluates every pixel on its own profile (package doc,
	// "Pixels": the exact mode), for small maps and audits.
	Exact bool
	// Calibration is the tenant's calibration of this transmitter and
	// engine (appliance/calibration): every pixel gets its correction at
	// the pixel's centre. nil: none. Not persisted (a finished raster
	// holds the calibrated levels; Transmitter.Calibration says what was
	// applied).
	Calibration *appliance.CalibrationTarget `json:"-"`
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks the request and names every bad field (the JSON names
// of the heatmap request). Its error matches appliance.ErrInvalid.
func (r Request) Validate() error {
	v := &appliance.ValidationError{}
	if !r.Tx.Valid() {
		v.Add("site", "must be a position in WGS84 degrees (lat −90..90, lon −180..180), got %v", r.Tx)
	} else if math.Abs(r.Tx.Lat) > 85 {
		v.Add("site.lat", "must be within ±85° for a map grid, got %g", r.Tx.Lat)
	}
	if !finite(r.TxHeightM) || r.TxHeightM < 0 || r.TxHeightM > MaxAntennaHeightM {
		v.Add("site.height_m", "must be a height of 0..%g m above ground, got %g", MaxAntennaHeightM, r.TxHeightM)
	}
	if !finite(r.EIRPDBm) || r.EIRPDBm < MinEIRPDBm || r.EIRPDBm > MaxEIRPDBm {
		v.Add("site.eirp_dbm", "must be %g..%g dBm, got %g", MinEIRPDBm, MaxEIRPDBm, r.EIRPDBm)
	}
	if math.IsInf(r.AzimuthDeg, 0) {
		v.Add("site.azimuth_deg", "must be a finite bearing in degrees or absent (omni), got %g", r.AzimuthDeg)
	}
	if !finite(r.BeamwidthDeg) || r.BeamwidthDeg < 0 || r.BeamwidthDeg > 360 {
		v.Add("site.beamwidth_deg", "must be 0 (default %g°) or within (0, 360] degrees, got %g", planner.SectorBeamwidthDeg, r.BeamwidthDeg)
	}
	if !finite(r.FreqMHz) || r.FreqMHz < MinFreqMHz || r.FreqMHz > MaxFreqMHz {
		v.Add("frequency_mhz", "must be %g..%g MHz, got %g", MinFreqMHz, MaxFreqMHz, r.FreqMHz)
	}
	if !finite(r.RadiusM) || r.RadiusM <= 0 || r.RadiusM > MaxRadiusM {
		v.Add("radius_km", "must be > 0 and at most %g km, got %g km", MaxRadiusM/1000, r.RadiusM/1000)
	}
	if !finite(r.RxHeightM) || r.RxHeightM < 0 || r.RxHeightM > MaxAntennaHeightM {
		v.Add("rx_height_m", "must be a height of 0..%g m above ground, got %g", MaxAntennaHeightM, r.RxHeightM)
	}
	if !finite(r.ResolutionM) || r.ResolutionM < MinResolutionM || r.ResolutionM > MaxResolutionM {
		v.Add("resolution_m", "must be %g..%g m, got %g", MinResolutionM, MaxResolutionM, r.ResolutionM)
	}
	for _, c := range []struct {
		name string
		val  float64
	}{{"time_pct", r.TimePct}, {"location_pct", r.LocationPct}} {
		if !finite(c.val) || c.val < 0 || c.val >= 100 {
			v.Add(c.name, "must be within (0, 100) %% (0 = 50), got %g", c.val)
		}
	}
	return v.Err()
}

// PatternLossDB returns the horizontal pattern attenuation of the
// request's antenna toward bearingDeg, dB: the Radiator's horizontal loss
// when it has one (the whole loss unless its vertical pattern applies:
// PatternLossAtDB), 0 for an omni antenna, else
// planner.PatternLossDB (12·(Δ/θ)² capped at the front-to-back ratio)
// with the angle Δ off the main lobe scaled from the request's beamwidth θ
// to the planner's 65°.
func (r Request) PatternLossDB(bearingDeg float64) float64 {
	if r.Radiator != nil {
		return r.Radiator.HorizontalLossDB(bearingDeg)
	}
	if math.IsNaN(r.AzimuthDeg) {
		return 0
	}
	bw := r.BeamwidthDeg
	if bw == 0 || bw == planner.SectorBeamwidthDeg {
		return planner.PatternLossDB(r.AzimuthDeg, bearingDeg)
	}
	d := math.Abs(math.Mod(bearingDeg-r.AzimuthDeg+540, 360) - 180)
	d = math.Min(d*planner.SectorBeamwidthDeg/bw, 180)
	return planner.PatternLossDB(0, d)
}

// PatternLossAtDB returns the attenuation of the request's antenna toward
// bearingDeg at elevDownDeg below the horizontal, dB: the Radiator's
// LossDB, or PatternLossDB without one.
func (r Request) PatternLossAtDB(bearingDeg, elevDownDeg float64) float64 {
	if r.Radiator != nil {
		return r.Radiator.LossDB(bearingDeg, elevDownDeg)
	}
	return r.PatternLossDB(bearingDeg)
}

// AntennaLabel names the request's antenna in caveats and exports.
func (r Request) AntennaLabel() string {
	switch {
	case r.Radiator != nil:
		return r.Radiator.Label()
	case math.IsNaN(r.AzimuthDeg):
		return "omnidirectional"
	case r.BeamwidthDeg == 0:
		return fmt.Sprintf("generic %.3g° sector", planner.SectorBeamwidthDeg)
	}
	return fmt.Sprintf("generic %.3g° sector", r.BeamwidthDeg)
}
