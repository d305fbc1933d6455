package engines

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

// Limits of the case format (CASE_FORMAT.md).
const (
	MaxCaseBytes        = 16 << 20 // largest accepted case document, bytes
	MaxCaseProfilePts   = 200000   // most profile points
	CaseMinFreqMHz      = 20.0     // MHz, the lowest frequency any engine takes (ITM)
	CaseMaxFreqMHz      = 100000.0 // MHz, the highest (fspl)
	CaseMaxAntennaM     = 3000.0   // metres above ground
	CaseMinPathM        = 1.0      // metres: the least terminal separation of a terrain-mode case
	CaseMinTerrainM     = -500.0   // metres above sea level
	CaseMaxTerrainM     = 9000.0   // metres above sea level
	CaseMaxClutterM     = 500.0    // metres
	DefaultCaseStepM    = 90.0     // metres, terrain-mode profile spacing (the 3" grid)
	CaseMinStepM        = 1.0      // metres
	CaseMaxStepM        = 10000.0  // metres
	DefaultCaseEngineID = appliance.EngineAuto
)

// Terminal is one end of a case: position (degrees) and antenna height
// above ground (metres).
type Terminal struct {
	Lat     float64 `json:"lat"`      // degrees, north positive
	Lon     float64 `json:"lon"`      // degrees, east positive
	HeightM float64 `json:"height_m"` // antenna height above ground, metres
}

// CaseProfile is an explicit terrain profile from TX (index 0) to RX.
type CaseProfile struct {
	DistancesM []float64 `json:"distances_m"` // from TX, metres, 0 first, strictly increasing
	HeightsM   []float64 `json:"heights_m"`   // ground height, metres above sea level
	// ClutterHeightsM is the representative clutter height of each point,
	// metres (P.1812 R; other engines ignore it); omitted = 0.
	ClutterHeightsM []float64 `json:"clutter_heights_m,omitempty"`
	// Zones is the P.1812 radio-climatic zone of each point: 1 sea,
	// 3 coastal land, 4 inland; omitted = all inland. Sea points also
	// set the profile's Sea flags for the other engines.
	Zones []int `json:"zones,omitempty"`
}

// Case is one explicit prediction request: the input of `linkplan predict
// --input CASE.json` and of POST /coverage/engines/predict. Its JSON form is
// documented in CASE_FORMAT.md; decode it with ParseCase, which also
// catches missing required fields.
type Case struct {
	Engine       appliance.EngineID `json:"engine,omitempty"` // "" = auto
	Tx           Terminal           `json:"tx"`
	Rx           Terminal           `json:"rx"`
	FrequencyMHz float64            `json:"frequency_mhz"`          // MHz
	TimePct      float64            `json:"time_pct,omitempty"`     // %, 0 = 50
	LocationPct  float64            `json:"location_pct,omitempty"` // %, 0 = 50
	// StepM is the profile spacing in terrain mode, metres; 0 = 90.
	StepM   float64      `json:"step_m,omitempty"`
	Profile *CaseProfile `json:"profile,omitempty"` // nil = terrain mode
	P1812   P1812Params  `json:"p1812,omitzero"`
	ITM     ITMParams    `json:"itm,omitzero"`
	P1411   P1411Params  `json:"p1411,omitzero"`
}

// presence mirrors the required fields of Case as pointers, to tell a
// missing field from a zero.
type presence struct {
	Tx           *presenceTerminal `json:"tx"`
	Rx           *presenceTerminal `json:"rx"`
	FrequencyMHz *float64          `json:"frequency_mhz"`
}

type presenceTerminal struct {
	Lat     *float64 `json:"lat"`
	Lon     *float64 `json:"lon"`
	HeightM *float64 `json:"height_m"`
}

// ParseCase decodes one case document strictly (unknown fields, trailing
// data and documents over MaxCaseBytes are errors) and validates it. Every
// error matches appliance.ErrInvalid; a validation error is a
// *appliance.ValidationError naming each bad field with its JSON path.
func ParseCase(r io.Reader) (Case, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxCaseBytes+1))
	if err != nil {
		return Case{}, fmt.Errorf("parse case: %w", appliance.Invalid("body", "read: %v", err))
	}
	if len(b) > MaxCaseBytes {
		return Case{}, fmt.Errorf("parse case: %w", appliance.Invalid("body", "larger than %d bytes", MaxCaseBytes))
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("parse case: %w", decodeError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Case{}, fmt.Errorf("parse case: %w", appliance.Invalid("body", "trailing data after the case object"))
	}
	var pr presence
	if err := json.Unmarshal(b, &pr); err != nil {
		return Case{}, fmt.Errorf("parse case: %w", decodeError(err))
	}
	v := &appliance.ValidationError{}
	for _, t := range []struct {
		name string
		p    *presenceTerminal
	}{{"tx", pr.Tx}, {"rx", pr.Rx}} {
		switch {
		case t.p == nil:
			v.Add(t.name, "is required: {\"lat\", \"lon\", \"height_m\"}")
		default:
			if t.p.Lat == nil {
				v.Add(t.name+".lat", "is required (degrees)")
			}
			if t.p.Lon == nil {
				v.Add(t.name+".lon", "is required (degrees)")
			}
			if t.p.HeightM == nil {
				v.Add(t.name+".height_m", "is required (metres above ground)")
			}
		}
	}
	if pr.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required (MHz)")
	}
	if err := v.Err(); err != nil {
		return Case{}, fmt.Errorf("parse case: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Case{}, fmt.Errorf("parse case: %w", err)
	}
	return c, nil
}

// jsonField names the field of a decoding error when encoding/json tells it.
func jsonField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field
	}
	return "body"
}

// decodeError is the refusal of a case document encoding/json could not
// decode, naming the field, in words without Go's type names ("cannot
// unmarshal string into Go struct field Terminal.tx.lat of type float64").
func decodeError(err error) error {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
	)
	switch {
	case errors.As(err, &te):
		want := "a JSON value"
		switch k := te.Type.Kind(); {
		case k == reflect.String:
			want = "a JSON string"
		case k == reflect.Bool:
			want = "true or false"
		case k == reflect.Struct || k == reflect.Map:
			want = "a JSON object"
		case k == reflect.Slice || k == reflect.Array:
			want = "a JSON array"
		case k >= reflect.Int && k <= reflect.Float64:
			if n, ok := strings.CutPrefix(te.Value, "number "); ok {
				if k <= reflect.Uint64 {
					return appliance.Invalid(jsonField(err), "must be a whole number within range, got %s", n)
				}
				return appliance.Invalid(jsonField(err), "%s is not a representable number", n)
			}
			want = "a JSON number"
		}
		got := te.Value // encoding/json's name of the JSON value: string, bool, array, object, number
		if got == "bool" {
			got = "boolean"
		}
		return appliance.Invalid(jsonField(err), "must be %s, got a %s", want, got)
	case errors.As(err, &se):
		return appliance.Invalid("body", "is not valid JSON at byte %d", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return appliance.Invalid("body", "is not valid JSON: it ends early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return appliance.Invalid(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "is not a known field of an engine case")
	}
	return appliance.Invalid("body", "could not be read as an engine case")
}

// knownEngineIDs are the engine ids a case may name.
func knownEngineIDs() []appliance.EngineID {
	return []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineP1411,
		appliance.EngineHybrid, appliance.EngineAuto, appliance.EngineRaytrace, appliance.EngineRaytraceML}
}

// Validate checks c and names every bad field with its JSON path.
func (c *Case) Validate() error {
	v := &appliance.ValidationError{}
	if c.Engine != "" {
		ok := false
		for _, id := range knownEngineIDs() {
			ok = ok || id == c.Engine
		}
		if !ok {
			v.Add("engine", "unknown engine %q", c.Engine)
		}
	}
	for _, t := range []struct {
		name string
		t    Terminal
	}{{"tx", c.Tx}, {"rx", c.Rx}} {
		if !finite(t.t.Lat) || t.t.Lat < -90 || t.t.Lat > 90 {
			v.Add(t.name+".lat", "must be a latitude within −90..90 degrees, got %g", t.t.Lat)
		}
		if !finite(t.t.Lon) || t.t.Lon < -180 || t.t.Lon > 180 {
			v.Add(t.name+".lon", "must be a longitude within −180..180 degrees, got %g", t.t.Lon)
		}
		if !finite(t.t.HeightM) || t.t.HeightM < 0 || t.t.HeightM > CaseMaxAntennaM {
			v.Add(t.name+".height_m", "must be an antenna height within 0–%g m above ground, got %g", CaseMaxAntennaM, t.t.HeightM)
		}
	}
	if !finite(c.FrequencyMHz) || c.FrequencyMHz < CaseMinFreqMHz || c.FrequencyMHz > CaseMaxFreqMHz {
		v.Add("frequency_mhz", "must be within %g–%g MHz, got %g", CaseMinFreqMHz, CaseMaxFreqMHz, c.FrequencyMHz)
	}
	for _, p := range []struct {
		name string
		val  float64
	}{{"time_pct", c.TimePct}, {"location_pct", c.LocationPct}} {
		if !finite(p.val) || p.val < 0 || p.val >= 100 {
			v.Add(p.name, "must be within (0, 100) %% (0 or omitted = 50), got %g", p.val)
		}
	}
	if c.StepM != 0 && (!finite(c.StepM) || c.StepM < CaseMinStepM || c.StepM > CaseMaxStepM) {
		v.Add("step_m", "must be within %g–%g m (0 or omitted = %g), got %g", CaseMinStepM, CaseMaxStepM, DefaultCaseStepM, c.StepM)
	}
	if c.Profile != nil {
		c.Profile.validate(v)
	} else if len(v.Fields) == 0 {
		step := c.StepM
		if step == 0 {
			step = DefaultCaseStepM
		}
		d := appliance.LatLon{Lat: c.Tx.Lat, Lon: c.Tx.Lon}.DistanceM(appliance.LatLon{Lat: c.Rx.Lat, Lon: c.Rx.Lon})
		if d < CaseMinPathM {
			v.Add("rx", "is %.2f m from tx: the terminals must be at least %g m apart to make a path", d, CaseMinPathM)
		} else if n := d/step + 2; n > MaxCaseProfilePts {
			v.Add("step_m", "a %.0f m step over %.1f km gives %.0f terrain samples, at most %d are accepted", step, d/1000, n, MaxCaseProfilePts)
		}
	}
	c.P1812.validate(v, "p1812")
	c.ITM.validate(v, "itm")
	c.P1411.validate(v, "p1411")
	return v.Err()
}

func (p *CaseProfile) validate(v *appliance.ValidationError) {
	n := len(p.DistancesM)
	switch {
	case n < 3:
		v.Add("profile.distances_m", "needs at least 3 points, got %d", n)
	case n > MaxCaseProfilePts:
		v.Add("profile.distances_m", "has %d points, at most %d are accepted", n, MaxCaseProfilePts)
	default:
		if p.DistancesM[0] != 0 {
			v.Add("profile.distances_m", "must start at 0 (the transmitter), got %g", p.DistancesM[0])
		}
		for i := 1; i < n; i++ {
			if !finite(p.DistancesM[i]) || !(p.DistancesM[i] > p.DistancesM[i-1]) {
				v.Add("profile.distances_m", "must be finite and strictly increasing: index %d is %g after %g", i, p.DistancesM[i], p.DistancesM[i-1])
				break
			}
		}
	}
	if len(p.HeightsM) != n {
		v.Add("profile.heights_m", "has %d points, distances_m has %d", len(p.HeightsM), n)
	} else {
		for i, h := range p.HeightsM {
			if !finite(h) || h < CaseMinTerrainM || h > CaseMaxTerrainM {
				v.Add("profile.heights_m", "index %d must be a ground height within %g–%g m, got %g", i, CaseMinTerrainM, CaseMaxTerrainM, h)
				break
			}
		}
	}
	if p.ClutterHeightsM != nil {
		if len(p.ClutterHeightsM) != n {
			v.Add("profile.clutter_heights_m", "has %d points, distances_m has %d", len(p.ClutterHeightsM), n)
		} else {
			for i, h := range p.ClutterHeightsM {
				if !finite(h) || h < 0 || h > CaseMaxClutterM {
					v.Add("profile.clutter_heights_m", "index %d must be within 0–%g m, got %g", i, CaseMaxClutterM, h)
					break
				}
			}
		}
	}
	if p.Zones != nil {
		if len(p.Zones) != n {
			v.Add("profile.zones", "has %d points, distances_m has %d", len(p.Zones), n)
		} else {
			for i, z := range p.Zones {
				if z != p1812.ZoneSea && z != p1812.ZoneCoastal && z != p1812.ZoneInland {
					v.Add("profile.zones", "index %d must be 1 (sea), 3 (coastal) or 4 (inland), got %d", i, z)
					break
				}
			}
		}
	}
}

// CaseResult is the answer to one Case (appliance.EngineCaseResult).
type CaseResult = appliance.EngineCaseResult

// LinkInput returns the engine input of c and the case extras. In terrain
// mode (no Profile) the profile is sampled from terrain every StepM metres
// (terrain errors, such as a missing tile, are returned wrapped); a nil
// terrain is then an error matching appliance.ErrUnavailable.
func (c *Case) linkInput(terrain appliance.Terrain) (appliance.LinkInput, *extras, string, error) {
	tx := appliance.LatLon{Lat: c.Tx.Lat, Lon: c.Tx.Lon}
	rx := appliance.LatLon{Lat: c.Rx.Lat, Lon: c.Rx.Lon}
	in := appliance.LinkInput{Tx: tx, Rx: rx, TxHeightM: c.Tx.HeightM, RxHeightM: c.Rx.HeightM,
		FreqMHz: c.FrequencyMHz, TimePct: c.TimePct, LocationPct: c.LocationPct}
	x := &extras{p1812: c.P1812, itm: c.ITM, p1411: c.P1411}
	if c.Profile != nil {
		p := c.Profile
		in.Profile = &appliance.PathProfile{DistancesM: p.DistancesM, HeightsM: p.HeightsM}
		if p.Zones != nil {
			in.Profile.Sea = make([]bool, len(p.Zones))
			for i, z := range p.Zones {
				in.Profile.Sea[i] = z == p1812.ZoneSea
			}
			x.zones = p.Zones
		}
		x.clutterM = p.ClutterHeightsM
		return in, x, "case", nil
	}
	if terrain == nil {
		return in, nil, "", fmt.Errorf("case without a profile needs terrain: %w", appliance.ErrUnavailable)
	}
	step := c.StepM
	if step == 0 {
		step = DefaultCaseStepM
	}
	prof, err := terrain.Profile(tx, rx, step)
	if err != nil {
		return in, nil, "", fmt.Errorf("terrain profile: %w", err)
	}
	in.Profile = prof
	return in, x, "terrain", nil
}

// PredictCase validates c, builds its path (the explicit profile, or the
// terrain profile between the terminals) and runs the case's engine (auto
// when omitted) with PredictWithFallback and the case's engine parameters.
// The warnings are the path's (appliance.PathWarnings: fspl_obstructed, and
// for a terrain profile no_land_cover and void_filled_terrain) then the
// engine's.
// Errors are those of Validate (appliance.ErrInvalid), of the terrain
// (appliance.ErrTerrainMissing, or appliance.ErrUnavailable when terrain is
// nil in terrain mode) and of PredictWithFallback.
func (r *Registry) PredictCase(ctx context.Context, c Case, terrain appliance.Terrain) (CaseResult, error) {
	if err := c.Validate(); err != nil {
		return CaseResult{}, fmt.Errorf("predict case: %w", err)
	}
	in, x, src, err := c.linkInput(terrain)
	if err != nil {
		return CaseResult{}, fmt.Errorf("predict case: %w", err)
	}
	id := c.Engine
	if id == "" {
		id = DefaultCaseEngineID
	}
	res := CaseResult{Engine: id, ProfileSource: src, ProfilePoints: in.Profile.Len(), DistanceKm: in.Profile.LengthM() / 1000}
	if id == appliance.EngineAuto {
		_, res.AutoReason = r.choose(in, x)
	}
	pred, fell, reason, err := r.predictFallback(ctx, id, in, x)
	if err != nil {
		return CaseResult{}, fmt.Errorf("predict case: %w", err)
	}
	res.UsedEngine, res.EngineVersion = pred.Engine, pred.EngineVersion
	res.PathLossDB, res.DiffractionDB = pred.PathLossDB, pred.DiffractionDB
	res.LOSClear, res.FresnelOK = pred.LOSClear, pred.FresnelOK
	if finite(pred.MinClearanceRatio) {
		m := pred.MinClearanceRatio
		res.MinClearanceRatio = &m
	}
	res.Intermediate = finiteOnly(pred.Intermediate)
	res.Warnings = append(appliance.PathWarnings(&pred, terrainProfile(in, src)), pred.Warnings...)
	res.FellBack, res.FallbackReason = fell, reason
	if code, ok := pred.Intermediate["p1411_env_code"]; ok {
		res.P1411Environment = P1411EnvironmentName(code)
	}
	return res, nil
}

// CaseSummary is the case's engine, positions, frequency and antenna heights
// (appliance.EngineCase).
func (c Case) CaseSummary() appliance.EngineCaseSummary {
	return appliance.EngineCaseSummary{Engine: c.Engine, Tx: appliance.LatLon{Lat: c.Tx.Lat, Lon: c.Tx.Lon}, Rx: appliance.LatLon{Lat: c.Rx.Lat, Lon: c.Rx.Lon},
		FrequencyMHz: c.FrequencyMHz, TxHeightM: c.Tx.HeightM, RxHeightM: c.Rx.HeightM, Tuning: c.tuning()}
}

// tuning names the optional members c gives (EngineCaseSummary.Tuning).
func (c Case) tuning() []string {
	var set []string
	for _, m := range []struct {
		name  string
		given bool
	}{
		{"time_pct", c.TimePct != 0}, {"location_pct", c.LocationPct != 0}, {"step_m", c.StepM != 0},
		{"p1812", c.P1812 != P1812Params{}}, {"itm", c.ITM != ITMParams{}}, {"p1411", c.P1411 != P1411Params{}},
	} {
		if m.given {
			set = append(set, m.name)
		}
	}
	return set
}

// engineCase is the Case behind an appliance.EngineCase a service or a
// handler passed through; op names the operation in the error.
func engineCase(c appliance.EngineCase, op string) (Case, error) {
	switch c := c.(type) {
	case Case:
		return c, nil
	case *Case:
		if c != nil {
			return *c, nil
		}
	}
	return Case{}, fmt.Errorf("%s: %T is not an engine case: %w", op, c, appliance.ErrInvalid)
}

// ZeroCase is an empty Case as an appliance.EngineCase: the JSON shape of
// a case document, for a handler that checks a body's members by
// reflection before ParseEngineCase.
func (r *Registry) ZeroCase() appliance.EngineCase { return Case{} }

// ParseEngineCase is ParseCase on a document already read, the case
// returned as an appliance.EngineCase (a Case).
func (r *Registry) ParseEngineCase(b []byte) (appliance.EngineCase, error) {
	c, err := ParseCase(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// PredictEngineCase is PredictCase for a case passed through as an
// appliance.EngineCase (a Case or *Case of this package), engine in place
// of the case's own engine.
func (r *Registry) PredictEngineCase(ctx context.Context, c appliance.EngineCase, engine appliance.EngineID, terrain appliance.Terrain) (CaseResult, error) {
	cc, err := engineCase(c, "predict case")
	if err != nil {
		return CaseResult{}, err
	}
	cc.Engine = engine
	return r.PredictCase(ctx, cc, terrain)
}

// CompareEngineCase is CompareCase for a case a service passed through as
// an appliance.EngineCase; it must be a Case (or *Case) of this package.
func (r *Registry) CompareEngineCase(ctx context.Context, c appliance.EngineCase, terrain appliance.Terrain) ([]appliance.EngineCompareRow, error) {
	cc, err := engineCase(c, "compare case")
	if err != nil {
		return nil, err
	}
	return r.CompareCase(ctx, cc, terrain)
}

// CompareCase is Compare for a Case (its engine field is ignored): every
// engine of CompareEngines on the case's path with the case's parameters.
// Each row's warnings start with the path's, as in PredictCase.
func (r *Registry) CompareCase(ctx context.Context, c Case, terrain appliance.Terrain) ([]CompareRow, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("compare case: %w", err)
	}
	in, x, src, err := c.linkInput(terrain)
	if err != nil {
		return nil, fmt.Errorf("compare case: %w", err)
	}
	// What every engine needs is checked once: a path no engine can take
	// is refused as a whole (as PredictCase does), not row by row.
	if err := ValidateLink(in); err != nil {
		return nil, fmt.Errorf("compare case: %w", err)
	}
	rows := r.compare(ctx, in, x, terrainProfile(in, src))
	for i := range rows {
		rows[i].Intermediate = finiteOnly(rows[i].Intermediate)
	}
	return rows, nil
}

// terrainProfile is the profile of in when it came from the terrain (src
// "terrain"), nil when the case gave it: the argument of
// appliance.PathWarnings.
func terrainProfile(in appliance.LinkInput, src string) *appliance.PathProfile {
	if src == "terrain" {
		return in.Profile
	}
	return nil
}

func finiteOnly(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[k] = v
		}
	}
	return out
}
