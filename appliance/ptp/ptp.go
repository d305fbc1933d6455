package ptp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/engines/itur"
)

// Catalogue reads the equipment catalogue as a tenant sees it
// (appliance/equipment): a built-in or one of the tenant's own; another
// tenant's id, like a missing one, is an appliance.ErrNotFound error.
type Catalogue interface {
	Radio(tenantID, id string) (*appliance.Radio, error)
	Antenna(tenantID, id string) (*appliance.Antenna, error)
}

// EngineLookup returns the engine for an id ("" is the default engine).
type EngineLookup func(id appliance.EngineID) (appliance.Engine, error)

// Limits and defaults of a request.
const (
	MaxHeightM         = 500.0 // antenna height above ground, metres
	MaxDistanceKm      = 200.0 // path length, km
	MinDistanceM       = 10.0  // path length, metres
	MaxCableLossDB     = 50.0
	MaxStationRunes    = 20 // characters of an Anatel station number
	MaxNameRunes       = 100
	MisalignedDB       = 3.0  // antenna loss toward the other end that raises antenna_misaligned, dB
	AntennaBandSlack   = 0.15 // relative distance from an antenna's stated frequency that raises antenna_band_mismatch
	MinKFactor         = 2.0 / 3.0
	DefaultProfileStep = planner.DefaultProfileStepM
)

// Engines a point-to-point link may ask for: the terrain engines of
// SPEC §2.5 (and auto, which picks one of them).
var Engines = []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineAuto}

// Service plans point-to-point links. Its fields are set once, before
// use; it is safe for concurrent use.
type Service struct {
	Terrain   appliance.Terrain
	Engine    EngineLookup
	Equipment Catalogue
	// Maps are the ITU-R maps of the availability (itur.LoadMaps); nil:
	// no availability, with the availability_not_computed warning.
	Maps *itur.Maps
	// StepM is the profile spacing, metres.
	StepM float64
	// TerrainDescription names the terrain for the answer's sources.
	TerrainDescription string
}

// New returns a service with the default profile spacing.
func New(ter appliance.Terrain, engines EngineLookup, equip Catalogue, maps *itur.Maps) *Service {
	return &Service{Terrain: ter, Engine: engines, Equipment: equip, Maps: maps, StepM: DefaultProfileStep}
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// Validate checks a request's own fields (not the catalogue ids) and
// names every bad one by its JSON path (package doc, "Request").
func Validate(r *appliance.PTPRequest) error {
	v := &appliance.ValidationError{}
	for _, e := range []struct {
		name string
		end  *appliance.PTPEnd
	}{{"a", &r.A}, {"b", &r.B}} {
		validateEnd(v, e.name+".", e.end)
	}
	if bad(r.FreqMHz) || r.FreqMHz < appliance.MinEquipmentFreqMH || r.FreqMHz > appliance.MaxEquipmentFreqMH {
		v.Add("frequency_mhz", "must be %g..%g MHz, got %g", appliance.MinEquipmentFreqMH, appliance.MaxEquipmentFreqMH, r.FreqMHz)
	}
	if bad(r.ChannelMHz) || r.ChannelMHz < 0.01 || r.ChannelMHz > 2000 {
		v.Add("channel_mhz", "must be a channel width of 0.01..2000 MHz (one of the radios' widths), got %g", r.ChannelMHz)
	}
	switch r.Polarization {
	case appliance.PolarizationVertical, appliance.PolarizationHorizontal, appliance.PolarizationDual:
	default:
		v.Add("polarization", "must be vertical, horizontal or dual, got %q", truncate(string(r.Polarization), 40))
	}
	if !slices.Contains(Engines, r.Engine) {
		v.Add("engine", "must be one of fspl, p1812, itm or auto for a point-to-point link, got %q", truncate(string(r.Engine), 40))
	}
	if t := r.AvailabilityTargetPct; bad(t) || t < 50 || t >= 100 {
		v.Add("availability_target_pct", "must be a percentage of the year, 50 <= p < 100 (absent: %g), got %g", appliance.DefaultPTPTargetPct, t)
	}
	if bad(r.R001MMH) || r.R001MMH < 0 || r.R001MMH > 1000 {
		v.Add("r001_mmh", "must be a rain rate of 0..1000 mm/h (absent or 0: from the ITU-R maps), got %g", r.R001MMH)
	}
	if r.A.Pos.Valid() && r.B.Pos.Valid() && !bad(r.A.Pos.Lat+r.A.Pos.Lon+r.B.Pos.Lat+r.B.Pos.Lon) {
		switch d := r.A.Pos.DistanceM(r.B.Pos); {
		case d < MinDistanceM:
			v.Add("b", "is %.1f m from a: the ends must be at least %g m apart", d, MinDistanceM)
		case d > MaxDistanceKm*1000:
			v.Add("b", "is %.1f km from a: at most %g km", d/1000, MaxDistanceKm)
		}
	}
	return v.Err()
}

func validateEnd(v *appliance.ValidationError, p string, e *appliance.PTPEnd) {
	if bad(e.Pos.Lat) || e.Pos.Lat < -90 || e.Pos.Lat > 90 {
		v.Add(p+"lat", "must be a latitude in degrees between -90 and 90, got %g", e.Pos.Lat)
	}
	if bad(e.Pos.Lon) || e.Pos.Lon < -180 || e.Pos.Lon > 180 {
		v.Add(p+"lon", "must be a longitude in degrees between -180 and 180, got %g", e.Pos.Lon)
	}
	if bad(e.HeightM) || e.HeightM <= 0 || e.HeightM > MaxHeightM {
		v.Add(p+"height_m", "must be the antenna height above ground in metres, 0 < h <= %g, got %g", MaxHeightM, e.HeightM)
	}
	if math.IsInf(e.AzimuthDeg, 0) || !math.IsNaN(e.AzimuthDeg) && (e.AzimuthDeg < 0 || e.AzimuthDeg >= 360) {
		v.Add(p+"azimuth_deg", "must be a bearing in degrees, 0 <= a < 360 (absent: aligned on the other end), got %g", e.AzimuthDeg)
	}
	if math.IsInf(e.TiltDeg, 0) || !math.IsNaN(e.TiltDeg) && (e.TiltDeg < -90 || e.TiltDeg > 90) {
		v.Add(p+"tilt_deg", "must be a mechanical downtilt in degrees, -90..90 (absent: aligned on the other end), got %g", e.TiltDeg)
	}
	if bad(e.CableLossDB) || e.CableLossDB < 0 || e.CableLossDB > MaxCableLossDB {
		v.Add(p+"cable_loss_db", "must be 0..%g dB, got %g", MaxCableLossDB, e.CableLossDB)
	}
	checkText(v, p+"name", e.Name, MaxNameRunes)
	checkText(v, p+"anatel_station", e.AnatelStation, MaxStationRunes)
	switch {
	case e.RadioID == "" && e.Radio == nil:
		v.Add(p+"radio_id", "a radio is required: radio_id (a catalogue id) or radio (inline)")
	case e.RadioID != "" && e.Radio != nil:
		v.Add(p+"radio", "give either radio_id or radio, not both")
	case e.Radio != nil:
		var ve *appliance.ValidationError
		if errors.As(e.Radio.Validate(), &ve) {
			for _, f := range ve.Fields {
				v.Add(p+"radio."+f.Field, "%s", f.Reason)
			}
		}
	}
	switch {
	case e.AntennaID == "" && e.Antenna == nil:
		v.Add(p+"antenna_id", "an antenna is required: antenna_id (a catalogue id) or antenna (inline)")
	case e.AntennaID != "" && e.Antenna != nil:
		v.Add(p+"antenna", "give either antenna_id or antenna, not both")
	case e.Antenna != nil:
		var ve *appliance.ValidationError
		if errors.As(e.Antenna.Validate(), &ve) {
			for _, f := range ve.Fields {
				v.Add(p+"antenna."+f.Field, "%s", f.Reason)
			}
		}
	}
}

func checkText(v *appliance.ValidationError, field, s string, max int) {
	switch {
	case !utf8.ValidString(s):
		v.Add(field, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		v.Add(field, "must be at most %d characters", max)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		v.Add(field, "must not hold control characters")
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Defaults fills the zero-valued optional fields of a request:
// polarisation vertical, engine fspl, the default availability target.
// Absent azimuths and tilts must already be NaN.
func Defaults(r *appliance.PTPRequest) {
	if r.Polarization == "" {
		r.Polarization = appliance.PolarizationVertical
	}
	if r.Engine == "" {
		r.Engine = appliance.EngineFSPL
	}
	if r.AvailabilityTargetPct == 0 {
		r.AvailabilityTargetPct = appliance.DefaultPTPTargetPct
	}
}

// resolve reads the ends' catalogue radios and antennas for the tenant.
// An unknown id (another tenant's included) is a 422 naming the field;
// a store failure is returned as is.
func (s *Service) resolve(req *appliance.PTPRequest) error {
	v := &appliance.ValidationError{}
	for _, e := range []struct {
		name string
		end  *appliance.PTPEnd
	}{{"a", &req.A}, {"b", &req.B}} {
		if id := e.end.RadioID; id != "" {
			r, err := s.readRadio(req.TenantID, id)
			switch {
			case errors.Is(err, appliance.ErrNotFound):
				v.Add(e.name+".radio_id", "unknown radio %q: not a built-in nor one of your tenant's radios (GET /equipment/radios lists them)", truncate(id, 60))
			case err != nil:
				return fmt.Errorf("read radio of %s: %w", e.name, err)
			default:
				e.end.Radio = r
			}
		}
		if id := e.end.AntennaID; id != "" {
			a, err := s.readAntenna(req.TenantID, id)
			switch {
			case errors.Is(err, appliance.ErrNotFound):
				v.Add(e.name+".antenna_id", "unknown antenna %q: not a built-in nor one of your tenant's antennas (GET /equipment/antennas lists them)", truncate(id, 60))
			case err != nil:
				return fmt.Errorf("read antenna of %s: %w", e.name, err)
			default:
				e.end.Antenna = a
			}
		}
	}
	return v.Err()
}

func (s *Service) readRadio(tenantID, id string) (*appliance.Radio, error) {
	if s.Equipment == nil {
		return nil, fmt.Errorf("radio %q: %w", id, appliance.ErrNotFound)
	}
	return s.Equipment.Radio(tenantID, id)
}

func (s *Service) readAntenna(tenantID, id string) (*appliance.Antenna, error) {
	if s.Equipment == nil {
		return nil, fmt.Errorf("antenna %q: %w", id, appliance.ErrNotFound)
	}
	return s.Equipment.Antenna(tenantID, id)
}

// modePair is one mode of the link: A's and B's rows of the same name.
type modePair struct{ a, b appliance.RadioMode }

// pairModes matches the modes of both radios at the channel width by
// name (package doc, "Modes").
func pairModes(req *appliance.PTPRequest) ([]modePair, error) {
	v := &appliance.ValidationError{}
	chA, okA := req.A.Radio.Channel(req.ChannelMHz)
	chB, okB := req.B.Radio.Channel(req.ChannelMHz)
	widths := func(r *appliance.Radio) string {
		var ws []string
		for _, c := range r.Channels {
			ws = append(ws, fmt.Sprintf("%g", c.WidthMHz))
		}
		return strings.Join(ws, ", ")
	}
	if !okA {
		v.Add("channel_mhz", "radio %q of a has no %g MHz channel (its widths: %s MHz)", truncate(req.A.Radio.Name, 60), req.ChannelMHz, widths(req.A.Radio))
	}
	if !okB && (okA || req.B.Radio != req.A.Radio) {
		v.Add("channel_mhz", "radio %q of b has no %g MHz channel (its widths: %s MHz)", truncate(req.B.Radio.Name, 60), req.ChannelMHz, widths(req.B.Radio))
	}
	for _, e := range []struct {
		name string
		r    *appliance.Radio
	}{{"a", req.A.Radio}, {"b", req.B.Radio}} {
		if !e.r.Tunes(req.FreqMHz) {
			var bs []string
			for _, b := range e.r.Bands {
				bs = append(bs, fmt.Sprintf("%g-%g", b.MinMHz, b.MaxMHz))
			}
			v.Add("frequency_mhz", "radio %q of %s does not tune %g MHz (its bands: %s MHz)", truncate(e.r.Name, 60), e.name, req.FreqMHz, strings.Join(bs, ", "))
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	key := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	out := make([]modePair, 0, len(chA.Modes))
	var missing []string
	for _, m := range chA.Modes {
		i := slices.IndexFunc(chB.Modes, func(x appliance.RadioMode) bool { return key(x.Name) == key(m.Name) })
		if i < 0 {
			missing = append(missing, m.Name)
			continue
		}
		out = append(out, modePair{a: m, b: chB.Modes[i]})
	}
	if len(missing) > 0 {
		return nil, appliance.Invalid("b.radio_id", "the radio of b has no mode named %s at %g MHz: both ends run the same modes, matched by name",
			strings.Join(quoteAll(missing, 4), ", "), req.ChannelMHz)
	}
	return out, nil
}

func quoteAll(ss []string, max int) []string {
	out := make([]string, 0, min(len(ss), max)+1)
	for i, s := range ss {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more", len(ss)-max))
			break
		}
		out = append(out, fmt.Sprintf("%q", truncate(s, 40)))
	}
	return out
}

// Plan computes a point-to-point link (package doc). Bad input is an
// appliance.ErrInvalid error naming the fields; missing terrain under the
// path an appliance.TileMissingError (ErrTerrainMissing).
func (s *Service) Plan(ctx context.Context, req appliance.PTPRequest) (*appliance.PTPLink, error) {
	Defaults(&req)
	if err := Validate(&req); err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}
	if err := s.resolve(&req); err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}
	pairs, err := pairModes(&req)
	if err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}
	eng, err := s.Engine(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}
	step := s.StepM
	if step <= 0 {
		step = DefaultProfileStep
	}
	prof, err := s.Terrain.Profile(req.A.Pos, req.B.Pos, step)
	if err != nil {
		return nil, fmt.Errorf("point-to-point link: terrain: %w", err)
	}
	if prof.Len() < 2 {
		return nil, appliance.Invalid("b", "is too close to a for a terrain profile")
	}
	pred, err := eng.Predict(ctx, appliance.LinkInput{Tx: req.A.Pos, Rx: req.B.Pos, TxHeightM: req.A.HeightM, RxHeightM: req.B.HeightM,
		FreqMHz: req.FreqMHz, Profile: prof})
	if err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}
	out := &appliance.PTPLink{Request: req, Prediction: pred, Recommended: -1, AvailabilityTargetPct: req.AvailabilityTargetPct,
		Warnings: []appliance.Warning{}}
	distM := req.A.Pos.DistanceM(req.B.Pos)
	out.DistanceKm = distM / 1000
	last := prof.Len() - 1
	out.A.GroundM, out.B.GroundM = prof.HeightsM[0], prof.HeightsM[last]
	out.A.TipM, out.B.TipM = out.A.GroundM+req.A.HeightM, out.B.GroundM+req.B.HeightM
	out.A.BearingDeg, out.B.BearingDeg = req.A.Pos.BearingDeg(req.B.Pos), req.B.Pos.BearingDeg(req.A.Pos)
	out.A.ElevationDeg = appliance.ElevationDownDeg(out.A.TipM, out.B.TipM, distM)
	out.B.ElevationDeg = appliance.ElevationDownDeg(out.B.TipM, out.A.TipM, distM)
	mount(&out.A, &req.A)
	mount(&out.B, &req.B)

	if out.Path, err = planner.CheckPath(prof, req.A.HeightM, req.B.HeightM, req.FreqMHz); err != nil {
		return nil, fmt.Errorf("point-to-point link: path check: %w", err)
	}
	if out.Clearance, err = clearanceRules(prof, &req); err != nil {
		return nil, fmt.Errorf("point-to-point link: %w", err)
	}

	// Path and engine warnings first (the planner's order), then the
	// equipment's, the clearance rules', the availability's.
	out.Warnings = append(out.Warnings, appliance.PathWarnings(&pred, prof)...)
	out.Warnings = append(out.Warnings, pred.Warnings...)
	out.Warnings = append(out.Warnings, equipmentWarnings(&req, out)...)
	out.Warnings = append(out.Warnings, clearanceWarnings(out.Clearance)...)

	link, avail := s.availability(&req, out, distM)
	out.Availability = link != nil
	if out.Availability {
		out.GasAttenuationDB = link.GasAttenuationDB
	}
	out.Modes = budget(&req, out, pairs, link)
	s.conclude(out, link, avail)
	out.Sources = s.sources(out, link)
	return out, nil
}

// mount points an end's antenna: the request's azimuth and tilt, or the
// aligned ones (package doc, "Antennas"), and its loss toward the other
// end.
func mount(r *appliance.PTPEndResult, e *appliance.PTPEnd) {
	a := e.Antenna
	st := a.Pattern.Stats()
	r.AntennaGainDBi = a.GainDBi
	r.AzimuthDeg, r.TiltDeg = e.AzimuthDeg, e.TiltDeg
	if math.IsNaN(r.AzimuthDeg) {
		r.AzimuthDeg, r.AzimuthAligned = math.Mod(r.BearingDeg-st.HPeakDeg+720, 360), true
	}
	if math.IsNaN(r.TiltDeg) {
		r.TiltDeg, r.TiltAligned = r.ElevationDeg-st.VPeakDeg, true
	}
	rad := a.Radiator(r.AzimuthDeg, r.TiltDeg)
	r.AntennaLossDB = rad.LossDB(r.BearingDeg, r.ElevationDeg)
	r.AntennaLabel = rad.Label()
}

// clearanceRules are the rules of the package doc ("Clearance").
func clearanceRules(prof *appliance.PathProfile, req *appliance.PTPRequest) ([]appliance.PTPClearanceRule, error) {
	rules := []appliance.PTPClearanceRule{
		{KFactor: planner.KFactor, F1Fraction: 0, Basis: "line of sight, median atmosphere (k = 4/3)"},
		{KFactor: planner.KFactor, F1Fraction: planner.FresnelRule, Basis: "60 % of F1 at k = 4/3, the rule of thumb of the link results"},
		{KFactor: planner.KFactor, F1Fraction: 1, Basis: "ITU-R P.530-17 §2.2.2: 100 % of F1 at the median k"},
		{KFactor: MinKFactor, F1Fraction: 0, Basis: "ITU-R P.530-17 §2.2.2: grazing at the minimum k (2/3), a single isolated obstruction"},
		{KFactor: MinKFactor, F1Fraction: 0.3, Basis: "ITU-R P.530-17 §2.2.2: 30 % of F1 at the minimum k (2/3), an obstruction extended along the path"},
	}
	for i := range rules {
		r, err := planner.ClearanceRule(prof, req.A.HeightM, req.B.HeightM, req.FreqMHz, rules[i].KFactor, rules[i].F1Fraction)
		if err != nil {
			return nil, fmt.Errorf("clearance: %w", err)
		}
		rules[i].ClearanceF1 = r.ClearanceF1
		rules[i].Met = r.ClearanceF1 >= rules[i].F1Fraction
		rules[i].MinHeightA, rules[i].MinHeightB = r.MinTx, r.MinRx
	}
	return rules, nil
}

// clearanceWarnings: the P.530 rules missed (the design rule is the
// higher of the median-k and the minimum-k heights), and the fading
// methods' line-of-sight assumption when 60 % of F1 is not clear.
func clearanceWarnings(rules []appliance.PTPClearanceRule) []appliance.Warning {
	var out []appliance.Warning
	var missed []string
	for _, r := range rules {
		if strings.HasPrefix(r.Basis, "ITU-R P.530") && !r.Met {
			missed = append(missed, fmt.Sprintf("%.0f %% of F1 at k = %s (clearance %.2f F1; heights for it: a %s, b %s)",
				100*r.F1Fraction, kName(r.KFactor), r.ClearanceF1, heightText(r.MinHeightA), heightText(r.MinHeightB)))
		}
	}
	if len(missed) > 0 {
		out = append(out, appliance.Warning{Code: appliance.WarnClearanceRule, Message: "the path misses the ITU-R P.530-17 §2.2.2 clearance criteria: " +
			strings.Join(missed, "; ") + ". P.530 sizes the antennas for the higher of the median-k and minimum-k heights; the minimum k depends on the climate and the path length"})
	}
	if len(rules) > 1 && !rules[1].Met {
		out = append(out, appliance.Warning{Code: appliance.WarnAvailabilityObstructed, Message: fmt.Sprintf(
			"the first Fresnel zone is %.2f F1 clear at k = 4/3 (under 0.6): the ITU-R P.530 fading methods behind the availability assume a line-of-sight path, and the path loss of an obstructed path varies with the refractivity",
			rules[1].ClearanceF1)})
	}
	return out
}

func kName(k float64) string {
	if math.Abs(k-4.0/3) < 1e-9 {
		return "4/3"
	}
	if math.Abs(k-2.0/3) < 1e-9 {
		return "2/3"
	}
	return fmt.Sprintf("%.3g", k)
}

func heightText(h appliance.MinHeight) string {
	if !h.Achievable {
		return fmt.Sprintf("not achievable below %g m", h.HeightM)
	}
	return fmt.Sprintf("%.2f m", h.HeightM)
}

// equipmentWarnings: antennas used far from their band, antennas
// pointed away from the other end.
func equipmentWarnings(req *appliance.PTPRequest, out *appliance.PTPLink) []appliance.Warning {
	var ws []appliance.Warning
	for _, e := range []struct {
		name string
		end  *appliance.PTPEnd
		res  *appliance.PTPEndResult
	}{{"a", &req.A, &out.A}, {"b", &req.B, &out.B}} {
		a, f := e.end.Antenna, req.FreqMHz
		for _, w := range a.Warnings { // what the antenna's import noticed travels with it
			ws = append(ws, appliance.Warning{Code: w.Code, Message: fmt.Sprintf("the antenna of %s (%s): %s", e.name, a.Name, w.Message)})
		}
		switch {
		case a.MinMHz > 0 && a.MaxMHz > 0 && (f < a.MinMHz || f > a.MaxMHz):
			ws = append(ws, appliance.Warning{Code: appliance.WarnAntennaBand, Message: fmt.Sprintf(
				"the antenna of %s (%s) is meant for %g-%g MHz, not %g MHz: its gain and pattern there are unknown", e.name, a.Name, a.MinMHz, a.MaxMHz, f)})
		case !(a.MinMHz > 0 && a.MaxMHz > 0) && a.FreqMHz > 0 && math.Abs(f-a.FreqMHz) > AntennaBandSlack*a.FreqMHz:
			ws = append(ws, appliance.Warning{Code: appliance.WarnAntennaBand, Message: fmt.Sprintf(
				"the pattern of the antenna of %s (%s) was measured at %g MHz, %.0f %% from the link's %g MHz: its gain and pattern there may differ",
				e.name, a.Name, a.FreqMHz, 100*math.Abs(f-a.FreqMHz)/a.FreqMHz, f)})
		}
		if e.res.AntennaLossDB > MisalignedDB {
			ws = append(ws, appliance.Warning{Code: appliance.WarnAntennaMisaligned, Message: fmt.Sprintf(
				"the antenna of %s, pointed at azimuth %.1f° and downtilt %.1f°, is %.1f dB below its peak toward %s (bearing %.1f°, %.2f° below the horizontal): realign it or leave azimuth_deg and tilt_deg out",
				e.name, e.res.AzimuthDeg, e.res.TiltDeg, e.res.AntennaLossDB, other(e.name), e.res.BearingDeg, e.res.ElevationDeg)})
		}
	}
	return ws
}

func other(end string) string {
	if end == "a" {
		return "b"
	}
	return "a"
}

// availability prepares the ITU-R model of the path, or says why it
// cannot (nil link and the warning in avail).
func (s *Service) availability(req *appliance.PTPRequest, out *appliance.PTPLink, distM float64) (*itur.Link, *appliance.Warning) {
	why := ""
	var link *itur.Link
	mid := req.A.Pos.Intermediate(req.B.Pos, 0.5)
	switch {
	case s.Maps == nil:
		why = "the ITU-R maps are not loaded on this appliance"
	case req.FreqMHz < 1000:
		why = fmt.Sprintf("the ITU-R availability methods used (P.530-17, P.676) start at 1 GHz; the link is at %g MHz", req.FreqMHz)
	default:
		var err error
		link, err = s.Maps.PrepareLink(itur.LinkInput{LatDeg: mid.Lat, LonDeg: mid.Lon, DistKm: distM / 1000, FreqGHz: req.FreqMHz / 1000,
			PolTiltDeg: req.Polarization.TiltDeg(), HTxAmslM: out.A.TipM, HRxAmslM: out.B.TipM, R001MMH: req.R001MMH})
		switch {
		case errors.Is(err, appliance.ErrOutsideEnvelope):
			why = fmt.Sprintf("the path's mid-point (%.4f, %.4f) is outside the embedded ITU-R maps (Brazil, latitude %g..%g, longitude %g..%g)",
				mid.Lat, mid.Lon, itur.BrazilMinLatDeg, itur.BrazilMaxLatDeg, itur.BrazilMinLonDeg, itur.BrazilMaxLonDeg)
			link = nil
		case err != nil:
			why = "the ITU-R availability could not be computed: " + err.Error()
			link = nil
		}
	}
	if link == nil {
		return nil, &appliance.Warning{Code: appliance.WarnAvailabilityNotComputed, Message: why +
			": no availability, no gaseous absorption; the recommended mode is the fastest whose fade margin is positive in clear air"}
	}
	return link, nil
}

// budget computes every mode's budget both ways and its availability.
func budget(req *appliance.PTPRequest, out *appliance.PTPLink, pairs []modePair, link *itur.Link) []appliance.PTPMode {
	common := out.Prediction.PathLossDB + out.GasAttenuationDB
	dir := func(txP, sens float64, tx, rx *appliance.PTPEndResult, txEnd, rxEnd *appliance.PTPEnd) appliance.PTPDirection {
		d := appliance.PTPDirection{TxPowerDBm: txP, SensitivityDBm: sens}
		d.EIRPDBm = txP - txEnd.CableLossDB + tx.AntennaGainDBi - tx.AntennaLossDB
		d.RxLevelDBm = d.EIRPDBm - common + rx.AntennaGainDBi - rx.AntennaLossDB - rxEnd.CableLossDB
		d.FadeMarginDB = d.RxLevelDBm - sens
		return d
	}
	modes := make([]appliance.PTPMode, len(pairs))
	for i, p := range pairs {
		m := appliance.PTPMode{Name: p.a.Name, ThroughputMbps: math.Min(p.a.ThroughputMbps, p.b.ThroughputMbps)}
		m.AB = dir(p.a.TxPowerDBm, p.b.SensitivityDBm, &out.A, &out.B, &req.A, &req.B)
		m.BA = dir(p.b.TxPowerDBm, p.a.SensitivityDBm, &out.B, &out.A, &req.B, &req.A)
		m.FadeMarginDB = math.Min(m.AB.FadeMarginDB, m.BA.FadeMarginDB)
		if link != nil {
			o := link.Outage(m.FadeMarginDB)
			av := &appliance.PTPAvailability{AvailabilityPct: o.AvailabilityPct, UnavailabilityPct: o.UnavailabilityPct,
				OutageMinutesPerYear: o.OutageMinutesPerYear, RainPct: o.RainAnnualPct, RainRange: string(o.RainRange),
				MultipathPct: o.MultipathAnnualPct, MultipathWorstMonth: o.MultipathWorstMonthPct, Bound: string(o.Bound),
				Warnings: []appliance.Warning{}}
			av.MeetsTarget = o.Bound != itur.AtMost && o.AvailabilityPct >= req.AvailabilityTargetPct
			for _, c := range o.Warnings {
				av.Warnings = append(av.Warnings, outageWarning(c, &o))
			}
			m.Availability = av
		}
		modes[i] = m
	}
	return modes
}

// outageWarning is the warning of one itur outage code at one margin.
func outageWarning(code string, o *itur.Outage) appliance.Warning {
	switch code {
	case itur.WarnNoFadeMargin:
		return appliance.Warning{Code: appliance.WarnNoFadeMargin, Message: fmt.Sprintf(
			"the fade margin is %.2f dB: the mode does not close in clear air, availability 0", o.FadeMarginDB)}
	case itur.WarnRainBelowRange:
		return appliance.Warning{Code: appliance.WarnAvailabilityBound, Message: fmt.Sprintf(
			"rain exceeds the %.2f dB margin for less than 0.001 %% of the year, outside ITU-R P.530-17's range: 0.001 %% is counted, so the availability is at least the figure", o.FadeMarginDB)}
	case itur.WarnRainAboveRange:
		return appliance.Warning{Code: appliance.WarnAvailabilityBound, Message: fmt.Sprintf(
			"rain exceeds the %.2f dB margin for more than 1 %% of the year, outside ITU-R P.530-17's range: 1 %% is counted, so the availability is at most the figure", o.FadeMarginDB)}
	}
	return appliance.Warning{Code: appliance.WarnAvailabilityOutsideRange, Message: "availability caveat " + code}
}

// conclude picks the recommended mode, the margins the targets need and
// the availability warnings of the whole link.
func (s *Service) conclude(out *appliance.PTPLink, link *itur.Link, notComputed *appliance.Warning) {
	if link == nil {
		out.Warnings = append(out.Warnings, *notComputed)
		for i := range out.Modes {
			if out.Modes[i].FadeMarginDB > 0 {
				out.Recommended = i
			}
		}
		return
	}
	req := &out.Request
	for i := range out.Modes {
		if out.Modes[i].Availability.MeetsTarget {
			out.Recommended = i
		}
	}
	targets := slices.Clone(itur.StandardTargets)
	if !slices.Contains(targets, req.AvailabilityTargetPct) {
		targets = append(targets, req.AvailabilityTargetPct)
		slices.Sort(targets)
	}
	for _, t := range targets {
		r, err := link.RequiredFadeMargin(t)
		if err != nil {
			continue // targets are validated to [50, 100): cannot happen
		}
		out.Required = append(out.Required, appliance.PTPRequiredMargin{AvailabilityPct: t, FadeMarginDB: r.CombinedDB,
			Bound: string(r.CombinedBound), RainOnlyDB: r.RainOnlyDB, MultipathOnlyDB: r.MultipathOnlyDB})
	}
	c := link.Climate
	out.Climate = &appliance.PTPClimate{LatDeg: c.LatDeg, LonDeg: c.LonDeg, R001MMH: link.Rain.R001MMH, R001Source: link.R001Source,
		P0RainPct: link.P0RainPct, GammaRDBPerKm: link.Rain.GammaRDBPerKm, A001DB: link.Rain.A001DB, DN1: c.DN1, SaM: c.SaM,
		GeoclimaticK: link.Multipath.K, InclinationMrad: link.Multipath.EpsPMrad,
		GasDBPerKm: link.GammaOxygenDBPerKm + link.GammaWaterDBPerKm, TemperatureK: link.Atmosphere.TemperatureK,
		WaterVapourGM3: link.Atmosphere.WaterVapourGM3}

	// The link's own availability caveats.
	for _, code := range link.Warnings {
		switch code {
		case itur.WarnR001Annex1:
			out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnR001Annex1, Message: fmt.Sprintf(
				"R0.01 = %.2f mm/h comes from the ITU-R P.837-7 Annex 1 method (monthly rainfall and temperature maps): the P.837-7 R0.01 map is not embedded; give r001_mmh for a local measurement",
				link.Rain.R001MMH)})
		case itur.WarnRainPathRange:
			out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnAvailabilityOutsideRange, Message: fmt.Sprintf(
				"the rain method of ITU-R P.530-17 §2.4.1 was tested up to 100 GHz and 60 km; this path is %.1f km at %.3g GHz: the rain attenuation is an extrapolation",
				out.DistanceKm, req.FreqMHz/1000)})
		case itur.WarnMultipathRange:
			mp := &link.Multipath
			out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnAvailabilityOutsideRange, Message: fmt.Sprintf(
				"the multipath method of ITU-R P.530-17 §2.3 was fitted on paths of 7.5-185 km, 0.45-37 GHz, |εp| up to 37 mrad, lower antenna 17-2300 m above sea level, dN1 -860..-150 and s_a 6-850 m; this path has %s: the multipath outage is an extrapolation",
				multipathOutside(mp, link.Climate))})
		}
	}
	var noMargin, atLeast, atMost []string
	for _, m := range out.Modes {
		switch {
		case m.FadeMarginDB <= 0:
			noMargin = append(noMargin, m.Name)
		case m.Availability.Bound == string(itur.AtLeast):
			atLeast = append(atLeast, m.Name)
		case m.Availability.Bound == string(itur.AtMost):
			atMost = append(atMost, m.Name)
		}
	}
	if len(noMargin) > 0 {
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnNoFadeMargin, Message: fmt.Sprintf(
			"%d of the %d modes do not close in clear air (fade margin at or below 0 dB in the weaker direction): %s",
			len(noMargin), len(out.Modes), strings.Join(quoteAll(noMargin, 6), ", "))})
	}
	if len(atLeast)+len(atMost) > 0 {
		var parts []string
		if len(atLeast) > 0 {
			parts = append(parts, "at least the figure for "+strings.Join(quoteAll(atLeast, 6), ", ")+" (rain below 0.001 % of the year counted as 0.001 %)")
		}
		if len(atMost) > 0 {
			parts = append(parts, "at most the figure for "+strings.Join(quoteAll(atMost, 6), ", ")+" (rain above 1 % of the year counted as 1 %)")
		}
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnAvailabilityBound, Message: "ITU-R P.530-17 predicts rain for 0.001-1 % of the year; the availability is " +
			strings.Join(parts, "; ")})
	}
	if out.Recommended < 0 && len(out.Modes) > 0 {
		msg := fmt.Sprintf("no mode meets the %g %% availability target", req.AvailabilityTargetPct)
		for _, r := range out.Required {
			if r.AvailabilityPct == req.AvailabilityTargetPct {
				msg += fmt.Sprintf(": it needs a fade margin of %.2f dB (%s), the most robust mode has %.2f dB", r.FadeMarginDB, boundText(r.Bound), out.Modes[0].FadeMarginDB)
			}
		}
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnNoModeMeetsTarget, Message: msg})
	}
}

func boundText(b string) string {
	switch b {
	case string(itur.AtLeast):
		return "at least"
	case string(itur.AtMost):
		return "at most"
	}
	return "exact"
}

// multipathOutside says which inputs of the multipath method are outside
// its fitted ranges.
func multipathOutside(mp *itur.Multipath, c itur.Climate) string {
	var out []string
	if mp.DistKm < 7.5 || mp.DistKm > 185 {
		out = append(out, fmt.Sprintf("d = %.2f km", mp.DistKm))
	}
	if mp.FreqGHz < 0.45 || mp.FreqGHz > 37 {
		out = append(out, fmt.Sprintf("f = %.3g GHz", mp.FreqGHz))
	}
	if mp.EpsPMrad > 37 {
		out = append(out, fmt.Sprintf("|εp| = %.1f mrad", mp.EpsPMrad))
	}
	if mp.HLM < 17 || mp.HLM > 2300 {
		out = append(out, fmt.Sprintf("lower antenna %.0f m above sea level", mp.HLM))
	}
	if c.DN1 < -860 || c.DN1 > -150 {
		out = append(out, fmt.Sprintf("dN1 = %.0f", c.DN1))
	}
	if c.SaM < 6 || c.SaM > 850 {
		out = append(out, fmt.Sprintf("s_a = %.0f m", c.SaM))
	}
	return strings.Join(out, ", ")
}

// sources names what the figures come from.
func (s *Service) sources(out *appliance.PTPLink, link *itur.Link) []string {
	ter := s.TerrainDescription
	if ter == "" {
		ter = "the appliance's terrain packs"
	}
	req := &out.Request
	src := []string{
		fmt.Sprintf("terrain: %s; profile every %.0f m or less (%d samples)", ter, s.step(), out.Path.SamplesTotal),
		fmt.Sprintf("path loss: engine %s %s (median, 50 %% of time and locations)", out.Prediction.Engine, out.Prediction.EngineVersion),
		"clearance: first Fresnel zone and earth bulge at k = 4/3 and k = 2/3, ITU-R P.530-17 §2.2.2 criteria",
		"radio a: " + equipmentName(req.A.RadioID, req.A.Radio.Name, req.A.Radio.Builtin),
		"radio b: " + equipmentName(req.B.RadioID, req.B.Radio.Name, req.B.Radio.Builtin),
		"antenna a: " + antennaName(req.A.AntennaID, req.A.Antenna),
		"antenna b: " + antennaName(req.B.AntennaID, req.B.Antenna),
	}
	if link != nil {
		src = append(src, link.Sources...)
		src = append(src, "availability: rain and multipath outages added (P.530-17 §2.3.4 to the average year); selective (dispersive) fading and cross-polar outage are not included")
	}
	return src
}

func (s *Service) step() float64 {
	if s.StepM > 0 {
		return s.StepM
	}
	return DefaultProfileStep
}

func equipmentName(id, name string, builtin bool) string {
	switch {
	case id == "":
		return name + " (given in the request)"
	case builtin:
		return name + " (" + id + ", a built-in generic example, not a vendor's data sheet)"
	}
	return name + " (" + id + ", the tenant's catalogue)"
}

func antennaName(id string, a *appliance.Antenna) string {
	s := equipmentName(id, a.Name, a.Builtin)
	switch src := a.Source; {
	case src.Format == "parametric":
		s += ", pattern " + src.Model
	case src.FileName != "":
		s += ", pattern file " + src.FileName + " (" + src.Format + ")"
	case src.Format != "":
		s += ", pattern " + src.Format
	}
	return s + fmt.Sprintf(", %.1f dBi", a.GainDBi)
}
