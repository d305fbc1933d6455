package interference

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// Link check defaults and limits (package doc, "Link check").
const (
	DefaultLinkRadiusM        = 20000.0 // interferer search radius around each end, metres
	MaxLinkRadiusM            = 50000.0 // metres
	DefaultLinkTxPowerDBm     = 20.0    // each end's transmitter output, dBm
	DefaultLinkGainDBi        = 16.0    // each end's antenna gain, dBi
	DefaultLinkBeamwidthDeg   = 65.0    // each end's generic antenna, degrees
	DefaultMaxInterferers     = 10      // interferers listed per end
	MaxLinkInterferers        = 100     // per end
	MaxLinkCandidates         = 500     // towers evaluated per end, nearest first
	DefaultPublicBandwidthMHz = 20.0    // channel width assumed for a public tower's band, MHz
	linkStepM                 = 90.0    // profile step, metres
)

// Warning codes of a link check.
const (
	// WarnCIBelowRequirement: C/I at an end is below what the mode needs.
	WarnCIBelowRequirement = "ci_below_requirement"
	// WarnPublicChannelAssumed: public towers state a band, not a
	// channel: each is taken as a DefaultPublicBandwidthMHz channel
	// centred on its band.
	WarnPublicChannelAssumed = "public_channel_assumed"
	// WarnCandidatesDropped: more towers than MaxLinkCandidates were
	// within the radius; the farthest were not evaluated.
	WarnCandidatesDropped = "interferers_dropped"
)

// LinkEnd is one end of the checked link.
type LinkEnd struct {
	Pos     appliance.LatLon // WGS84 degrees
	HeightM float64          // antenna height above ground, metres
	// GainDBi is the antenna's peak gain, dBi; 0 means DefaultLinkGainDBi
	// (or the catalogue antenna's).
	GainDBi float64
	// BeamwidthDeg is the horizontal beamwidth of a generic antenna,
	// degrees; 0 means DefaultLinkBeamwidthDeg.
	BeamwidthDeg float64
	// Antenna is a catalogue antenna, pointed at the other end (its
	// pattern replaces the generic one); nil for the generic antenna.
	Antenna *appliance.Antenna
}

// LinkRequest is one link interference check.
type LinkRequest struct {
	TenantID     string // scopes the tenant's own towers
	A, B         LinkEnd
	FreqMHz      float64 // MHz
	BandwidthMHz float64 // MHz; 0: DefaultBandwidthMHz
	TxPowerDBm   float64 // each end's transmitter output, dBm; 0: DefaultLinkTxPowerDBm
	// RequiredCIDB is the C/I the link's modulation needs, dB; NaN: none
	// given (no ci_below_requirement check).
	RequiredCIDB  float64
	RadiusM       float64 // metres; 0: DefaultLinkRadiusM
	ACSDB         float64 // the link radios' selectivity, dB; 0: DefaultACSDB
	NoiseFigureDB float64 // dB; 0: DefaultNoiseFigureDB
	Engine        appliance.EngineID
	// MaxInterferers is the number listed per end; 0: DefaultMaxInterferers.
	MaxInterferers int
}

// Interferer is one tower's signal at a link end.
type Interferer struct {
	TowerID   string
	Operator  string
	DistanceM float64 // from the end, metres
	BandMHz   float64 // the tower's band that couples, MHz
	Coupling  string  // "co_channel" or "adjacent"
	// LevelDBm is its power in the receiver's channel, dBm: EIRP − its
	// pattern loss toward the end − path loss + the end's gain − the end's
	// pattern loss toward it + 10·log10(coupling fraction).
	LevelDBm        float64
	EIRPDBm         float64 // dBm
	TxPatternLossDB float64 // dB
	RxPatternLossDB float64 // dB
	PathLossDB      float64 // dB
	CouplingLossDB  float64 // dB, −10·log10 of the coupling fraction
	EngineVersion   string
}

// EndResult is the check at one receiving end.
type EndResult struct {
	CarrierDBm      float64 // the other end's signal, dBm
	PathLossDB      float64 // of the link, dB
	InterferenceDBm float64 // sum of every coupling interferer, dBm; NaN: none
	NoiseDBm        float64 // kTB + NF, dBm
	CIDB            float64 // dB; NaN: no interferer
	SINRDB          float64 // dB
	// Interferers are the strongest, strongest first (ties by id).
	Interferers []Interferer
	// Evaluated counts the towers evaluated; Coupled those that couple.
	Evaluated, Coupled int
}

// LinkResult is a finished link check.
type LinkResult struct {
	A, B         EndResult
	RequiredCIDB float64 // dB; NaN when not given
	Warnings     []appliance.Warning
}

// LinkService checks links against the towers of an index.
type LinkService struct {
	Terrain  appliance.Terrain
	Towers   func() appliance.TowerIndex
	Engines  coverage.EngineLookup
	Antennas appliance.AntennaCatalogue // a tower's catalogue antenna; nil: generic antennas
}

// Validate names every bad field (JSON paths of POST /links/interference).
func (r LinkRequest) Validate() error {
	v := &appliance.ValidationError{}
	for _, e := range []struct {
		name string
		end  LinkEnd
	}{{"a", r.A}, {"b", r.B}} {
		if !e.end.Pos.Valid() {
			v.Add(e.name, "must be a position in WGS84 degrees, got %v", e.end.Pos)
		}
		if !finite(e.end.HeightM) || e.end.HeightM < 0 || e.end.HeightM > coverage.MaxAntennaHeightM {
			v.Add(e.name+".height_m", "must be 0..%g m above ground, got %g", coverage.MaxAntennaHeightM, e.end.HeightM)
		}
		if !finite(e.end.GainDBi) || e.end.GainDBi < -20 || e.end.GainDBi > 70 {
			v.Add(e.name+".gain_dbi", "must be -20..70 dBi (0: default %g), got %g", DefaultLinkGainDBi, e.end.GainDBi)
		}
		if !finite(e.end.BeamwidthDeg) || e.end.BeamwidthDeg < 0 || e.end.BeamwidthDeg > 360 {
			v.Add(e.name+".beamwidth_deg", "must be 0 (default %g°) or within (0, 360], got %g", DefaultLinkBeamwidthDeg, e.end.BeamwidthDeg)
		}
	}
	if r.A.Pos.Valid() && r.B.Pos.Valid() && r.A.Pos.DistanceM(r.B.Pos) < 1 {
		v.Add("b", "must be at least 1 m from a")
	}
	if !finite(r.FreqMHz) || r.FreqMHz < coverage.MinFreqMHz || r.FreqMHz > coverage.MaxFreqMHz {
		v.Add("frequency_mhz", "must be %g..%g MHz, got %g", coverage.MinFreqMHz, coverage.MaxFreqMHz, r.FreqMHz)
	}
	if !finite(r.BandwidthMHz) || r.BandwidthMHz != 0 && (r.BandwidthMHz < MinBandwidthMHz || r.BandwidthMHz > MaxBandwidthMHz) {
		v.Add("bandwidth_mhz", "must be 0 (default %g MHz) or %g..%g MHz, got %g", DefaultBandwidthMHz, MinBandwidthMHz, MaxBandwidthMHz, r.BandwidthMHz)
	}
	if !finite(r.TxPowerDBm) || r.TxPowerDBm < -30 || r.TxPowerDBm > 60 {
		v.Add("tx_power_dbm", "must be -30..60 dBm (0: default %g), got %g", DefaultLinkTxPowerDBm, r.TxPowerDBm)
	}
	if math.IsInf(r.RequiredCIDB, 0) || r.RequiredCIDB < -20 || r.RequiredCIDB > 80 {
		v.Add("required_ci_db", "must be -20..80 dB, got %g", r.RequiredCIDB)
	}
	if !finite(r.RadiusM) || r.RadiusM < 0 || r.RadiusM > MaxLinkRadiusM {
		v.Add("radius_km", "must be 0 (default %g km) or up to %g km, got %g km", DefaultLinkRadiusM/1000, MaxLinkRadiusM/1000, r.RadiusM/1000)
	}
	if !finite(r.ACSDB) || r.ACSDB < 0 || r.ACSDB > MaxACSDB {
		v.Add("acs_db", "must be 0 (default %g dB) or up to %g dB, got %g", DefaultACSDB, MaxACSDB, r.ACSDB)
	}
	if !finite(r.NoiseFigureDB) || r.NoiseFigureDB < 0 || r.NoiseFigureDB > MaxNoiseFigureDB {
		v.Add("noise_figure_db", "must be 0 (default %g dB) or up to %g dB, got %g", DefaultNoiseFigureDB, MaxNoiseFigureDB, r.NoiseFigureDB)
	}
	if r.MaxInterferers < 0 || r.MaxInterferers > MaxLinkInterferers {
		v.Add("max_interferers", "must be 0 (default %d) or up to %d, got %d", DefaultMaxInterferers, MaxLinkInterferers, r.MaxInterferers)
	}
	return v.Err()
}

// radiator returns the end's antenna pointed at azimuthDeg: the catalogue
// antenna, else a generic sector of its beamwidth (no vertical pattern).
func (e LinkEnd) lossToward(azimuthDeg, bearingDeg, elevDownDeg float64) float64 {
	if e.Antenna != nil {
		r := e.Antenna.Radiator(azimuthDeg, math.NaN())
		return r.LossDB(bearingDeg, elevDownDeg)
	}
	bw := e.BeamwidthDeg
	if bw == 0 {
		bw = DefaultLinkBeamwidthDeg
	}
	return coverage.Request{AzimuthDeg: azimuthDeg, BeamwidthDeg: bw}.PatternLossDB(bearingDeg)
}

func (e LinkEnd) gain() float64 {
	switch {
	case e.GainDBi != 0:
		return e.GainDBi
	case e.Antenna != nil:
		return e.Antenna.GainDBi
	}
	return DefaultLinkGainDBi
}

// Check computes the link check of req (package doc, "Link check").
func (s *LinkService) Check(ctx context.Context, req LinkRequest) (*LinkResult, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("link interference: %w", err)
	}
	eng, err := s.Engines(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("link interference: %w", err)
	}
	if req.BandwidthMHz == 0 {
		req.BandwidthMHz = DefaultBandwidthMHz
	}
	if req.TxPowerDBm == 0 {
		req.TxPowerDBm = DefaultLinkTxPowerDBm
	}
	if req.RadiusM == 0 {
		req.RadiusM = DefaultLinkRadiusM
	}
	acs := req.ACSDB
	if acs == 0 {
		acs = DefaultACSDB
	}
	nf := req.NoiseFigureDB
	if nf == 0 {
		nf = DefaultNoiseFigureDB
	}
	if req.MaxInterferers == 0 {
		req.MaxInterferers = DefaultMaxInterferers
	}
	out := &LinkResult{RequiredCIDB: req.RequiredCIDB, Warnings: []appliance.Warning{}}
	ix := s.Towers()
	warned := map[string]bool{}
	warn := func(w appliance.Warning) {
		if !warned[w.Code] {
			warned[w.Code] = true
			out.Warnings = append(out.Warnings, w)
		}
	}
	for _, side := range []struct {
		rx, tx LinkEnd
		res    *EndResult
		name   string
	}{{req.B, req.A, &out.B, "b"}, {req.A, req.B, &out.A, "a"}} {
		r, err := s.checkEnd(ctx, eng, ix, req, side.rx, side.tx, acs, nf, warn)
		if err != nil {
			return nil, fmt.Errorf("link interference: end %s: %w", side.name, err)
		}
		*side.res = *r
		if !math.IsNaN(req.RequiredCIDB) && !math.IsNaN(r.CIDB) && r.CIDB < req.RequiredCIDB {
			out.Warnings = append(out.Warnings, appliance.Warning{Code: WarnCIBelowRequirement, Message: fmt.Sprintf(
				"at end %s C/I is %.1f dB, below the %.1f dB the modulation needs", side.name, r.CIDB, req.RequiredCIDB)})
		}
	}
	return out, nil
}

// predict returns the engine's prediction from tx to rx (antenna heights
// above ground) and the elevation below the horizontal at which tx's
// antenna sees rx's, degrees.
func (s *LinkService) predict(ctx context.Context, eng appliance.Engine, tx, rx appliance.LatLon, txH, rxH, freq float64) (appliance.LinkPrediction, float64, float64, error) {
	prof, err := s.Terrain.Profile(tx, rx, linkStepM)
	if err != nil {
		return appliance.LinkPrediction{}, 0, 0, err
	}
	pred, err := eng.Predict(ctx, appliance.LinkInput{Tx: tx, Rx: rx, TxHeightM: txH, RxHeightM: rxH, FreqMHz: freq, Profile: prof})
	if err != nil {
		return appliance.LinkPrediction{}, 0, 0, err
	}
	n := prof.Len()
	zt, zr := prof.HeightsM[0]+txH, prof.HeightsM[n-1]+rxH
	return pred, appliance.ElevationDownDeg(zt, zr, prof.LengthM()), appliance.ElevationDownDeg(zr, zt, prof.LengthM()), nil
}

func (s *LinkService) checkEnd(ctx context.Context, eng appliance.Engine, ix appliance.TowerIndex, req LinkRequest, rx, tx LinkEnd,
	acs, nf float64, warn func(appliance.Warning)) (*EndResult, error) {
	res := &EndResult{NoiseDBm: NoiseDBm(req.BandwidthMHz, nf), InterferenceDBm: math.NaN(), CIDB: math.NaN()}
	pred, _, _, err := s.predict(ctx, eng, tx.Pos, rx.Pos, tx.HeightM, rx.HeightM, req.FreqMHz)
	if err != nil {
		return nil, fmt.Errorf("link path: %w", err)
	}
	res.PathLossDB = pred.PathLossDB
	res.CarrierDBm = req.TxPowerDBm + tx.gain() + rx.gain() - pred.PathLossDB
	rxAz := rx.Pos.BearingDeg(tx.Pos) // the end's antenna points at the other end
	victim := Channel{req.FreqMHz, req.BandwidthMHz}
	towers := ix.Within(rx.Pos, req.RadiusM)
	cands := towers[:0:0]
	for _, t := range towers {
		if t.VisibleTo(req.TenantID) && t.Pos().Valid() && t.Pos().DistanceM(rx.Pos) >= 1 {
			cands = append(cands, t)
		}
	}
	if len(cands) > MaxLinkCandidates {
		warn(appliance.Warning{Code: WarnCandidatesDropped, Message: fmt.Sprintf(
			"%d towers lie within %.0f km of an end: only the nearest %d were evaluated", len(cands), req.RadiusM/1000, MaxLinkCandidates)})
		cands = cands[:MaxLinkCandidates]
	}
	var sumMW float64
	for _, t := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// the tower's strongest coupling among its bands
		kind, frac, band := None, 0.0, 0.0
		for _, b := range t.BandsMHz {
			k, f := CouplingOf(victim, Channel{b, DefaultPublicBandwidthMHz}, acs)
			if f > frac {
				kind, frac, band = k, f, b
			}
		}
		if kind == None {
			continue
		}
		res.Evaluated++
		h := t.HeightM
		if !(h > 0) {
			h = appliance.DefaultTowerHeightM
		}
		p, elevT, elevR, err := s.predict(ctx, eng, t.Pos(), rx.Pos, h, rx.HeightM, req.FreqMHz)
		var tme *appliance.TileMissingError
		if errors.As(err, &tme) || errors.Is(err, appliance.ErrOutsideEnvelope) {
			continue // no terrain toward it, or outside the engine: not evaluated
		}
		if err != nil {
			return nil, fmt.Errorf("tower %s: %w", t.ID, err)
		}
		eirp := coverage.DefaultEIRPDBm
		if !math.IsNaN(t.ERPDBm) {
			eirp = t.ERPDBm + 2.15
		}
		rad, w := appliance.TowerRadiator(t, s.Antennas)
		if w != nil {
			warn(*w)
		}
		txLoss := rad.LossDB(t.Pos().BearingDeg(rx.Pos), elevT)
		rxLoss := rx.lossToward(rxAz, rx.Pos.BearingDeg(t.Pos()), elevR)
		cl := -10 * math.Log10(frac)
		lvl := eirp - txLoss - p.PathLossDB + rx.gain() - rxLoss - cl
		if t.Source != appliance.SourceUser {
			warn(appliance.Warning{Code: WarnPublicChannelAssumed, Message: fmt.Sprintf(
				"public towers state a band, not a channel: each is taken as a %g MHz channel centred on its band", DefaultPublicBandwidthMHz)})
		}
		c := "co_channel"
		if kind == Adjacent {
			c = "adjacent"
		}
		res.Coupled++
		sumMW += math.Pow(10, lvl/10)
		res.Interferers = append(res.Interferers, Interferer{TowerID: t.ID, Operator: t.Operator, DistanceM: t.Pos().DistanceM(rx.Pos),
			BandMHz: band, Coupling: c, LevelDBm: lvl, EIRPDBm: eirp, TxPatternLossDB: txLoss, RxPatternLossDB: rxLoss,
			PathLossDB: p.PathLossDB, CouplingLossDB: cl, EngineVersion: p.EngineVersion})
	}
	slices.SortFunc(res.Interferers, func(a, b Interferer) int {
		return cmp.Or(cmp.Compare(b.LevelDBm, a.LevelDBm), cmp.Compare(a.TowerID, b.TowerID))
	})
	if len(res.Interferers) > req.MaxInterferers {
		res.Interferers = res.Interferers[:req.MaxInterferers]
	}
	noiseMW := math.Pow(10, res.NoiseDBm/10)
	res.SINRDB = res.CarrierDBm - 10*math.Log10(sumMW+noiseMW)
	if sumMW > 0 {
		res.InterferenceDBm = 10 * math.Log10(sumMW)
		res.CIDB = res.CarrierDBm - res.InterferenceDBm
	}
	return res, nil
}

// LinkAntennas names the catalogue antennas of the two ends ("" for a
// generic antenna).
type LinkAntennas struct{ A, B string }

// CheckFor is Check for an API key: the ends' catalogue antennas are read
// as the key's tenant sees them (a foreign or unknown id is
// appliance.ErrInvalid naming a.antenna_id or b.antenna_id), the tenant's
// own towers count and other tenants' do not, and the search radius is
// capped by the tier's map radius (coverage.CapsFor; the default is
// DefaultLinkRadiusM or that cap, the smaller).
func (s *LinkService) CheckFor(ctx context.Context, k *appliance.APIKey, req LinkRequest, ants LinkAntennas) (*LinkResult, error) {
	req.TenantID = k.TenantID
	v := &appliance.ValidationError{}
	for _, e := range []struct {
		id, field string
		dst       **appliance.Antenna
	}{{ants.A, "a.antenna_id", &req.A.Antenna}, {ants.B, "b.antenna_id", &req.B.Antenna}} {
		if e.id == "" {
			continue
		}
		if s.Antennas == nil {
			v.Add(e.field, "the equipment catalogue is not available")
			continue
		}
		a, err := s.Antennas.Antenna(k.TenantID, e.id)
		if err != nil {
			v.Add(e.field, "no antenna %q in the catalogue", e.id)
			continue
		}
		*e.dst = a
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("link interference: %w", err)
	}
	maxR := math.Min(MaxLinkRadiusM, coverage.CapsFor(k.Tier).MaxRadiusM)
	if !(maxR > 0) {
		return nil, fmt.Errorf("link interference: tier %s: %w", k.Tier, appliance.ErrForbidden)
	}
	if req.RadiusM == 0 {
		req.RadiusM = math.Min(DefaultLinkRadiusM, maxR)
	}
	if req.RadiusM > maxR {
		return nil, fmt.Errorf("link interference: %w", appliance.Invalid("radius_km",
			"%g km exceeds the %s tier's cap of %g km", req.RadiusM/1000, k.Tier, maxR/1000))
	}
	return s.Check(ctx, req)
}
