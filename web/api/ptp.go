package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/ptp"
	"linkplan/appliance/report"
)

// PTPPlanner plans point-to-point links (appliance/ptp).
type PTPPlanner interface {
	Plan(ctx context.Context, req appliance.PTPRequest) (*appliance.PTPLink, error)
}

var errNoPTP = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "point-to-point planning is not configured"}

// Point-to-point links: the JSON answer, its PDF report and its geo
// export take the same body (appliance/ptp package doc, "Request").
func (a *API) registerPTP(r *mux.Router) {
	r.HandleFunc("/links/ptp", a.wrap(a.ready(a.authed(a.planPTP)))).Methods(http.MethodPost)
	r.HandleFunc("/reports/ptp", a.wrap(a.ready(a.authed(a.reportPTP)))).Methods(http.MethodPost)
	r.HandleFunc("/exports/ptp", a.wrap(a.ready(a.authed(a.exportPTP)))).Methods(http.MethodPost)
}

// ptpEndJSON is one end of a point-to-point request.
type ptpEndJSON struct {
	Name          *string         `json:"name"`
	Lat           *float64        `json:"lat"`
	Lon           *float64        `json:"lon"`
	HeightM       *float64        `json:"height_m"`
	RadioID       *string         `json:"radio_id"`
	Radio         *radioRequest   `json:"radio"`
	AntennaID     *string         `json:"antenna_id"`
	Antenna       *antennaRequest `json:"antenna"`
	AzimuthDeg    *float64        `json:"azimuth_deg"`
	TiltDeg       *float64        `json:"tilt_deg"`
	CableLossDB   *float64        `json:"cable_loss_db"`
	AnatelStation *string         `json:"anatel_station"`
}

// ptpRequest is the body of POST /links/ptp and /exports/ptp.
type ptpRequest struct {
	A                     *ptpEndJSON `json:"a"`
	B                     *ptpEndJSON `json:"b"`
	FrequencyMHz          *float64    `json:"frequency_mhz"`
	ChannelMHz            *float64    `json:"channel_mhz"`
	Polarization          *string     `json:"polarization"`
	Engine                *string     `json:"engine"`
	AvailabilityTargetPct *float64    `json:"availability_target_pct"`
	R001MMH               *float64    `json:"r001_mmh"`
}

// ptpReportRequest is the body of POST /reports/ptp: a /links/ptp body
// and the report's own fields.
type ptpReportRequest struct {
	ptpRequest
	Language             *string `json:"language"`
	ART                  *string `json:"art"`
	EngineerName         *string `json:"engineer_name"`
	EngineerRegistration *string `json:"engineer_registration"`
}

// domain maps the body onto the domain request of the calling key
// (catalogue read as its tenant, engine resolved for its tier); note is
// the engine_resolved message. Every bad field is named in one answer.
func (a *API) ptpDomain(r *http.Request, q *ptpRequest) (appliance.PTPRequest, string, error) {
	k := keyFrom(r.Context())
	v := &appliance.ValidationError{}
	req := appliance.PTPRequest{TenantID: k.TenantID}
	inline := map[string]bool{} // "a.radio" etc.: an inline record the API refused
	for _, e := range []struct {
		name string
		in   *ptpEndJSON
		out  *appliance.PTPEnd
	}{{"a", q.A, &req.A}, {"b", q.B, &req.B}} {
		e.out.AzimuthDeg, e.out.TiltDeg = math.NaN(), math.NaN()
		if e.in == nil {
			v.Add(e.name, "is required: an object with lat, lon, height_m, radio_id (or radio) and antenna_id (or antenna)")
			continue
		}
		in, p := e.in, e.name+"."
		req := func(x *float64, field string, dst *float64) {
			if x == nil {
				v.Add(p+field, "is required")
				return
			}
			*dst = *x
		}
		req(in.Lat, "lat", &e.out.Pos.Lat)
		req(in.Lon, "lon", &e.out.Pos.Lon)
		req(in.HeightM, "height_m", &e.out.HeightM)
		opt := func(x *float64, dst *float64) {
			if x != nil {
				*dst = *x
			}
		}
		opt(in.AzimuthDeg, &e.out.AzimuthDeg)
		opt(in.TiltDeg, &e.out.TiltDeg)
		opt(in.CableLossDB, &e.out.CableLossDB)
		if in.Name != nil {
			e.out.Name = *in.Name
		}
		if in.AnatelStation != nil {
			e.out.AnatelStation = strings.TrimSpace(*in.AnatelStation)
		}
		if in.RadioID != nil {
			e.out.RadioID = *in.RadioID
			if e.out.RadioID == "" {
				v.Add(p+"radio_id", "must not be empty")
				inline[p+"radio"] = true
			}
		}
		if in.Radio != nil {
			rad, err := in.Radio.input().Build()
			if err != nil {
				prefixed(v, p+"radio.", err)
				inline[p+"radio"] = true
			} else {
				e.out.Radio = rad
			}
		}
		if in.AntennaID != nil {
			e.out.AntennaID = *in.AntennaID
			if e.out.AntennaID == "" {
				v.Add(p+"antenna_id", "must not be empty")
				inline[p+"antenna"] = true
			}
		}
		if in.Antenna != nil {
			ant, err := in.Antenna.input().Build()
			if err != nil {
				prefixed(v, p+"antenna.", err)
				inline[p+"antenna"] = true
			} else {
				e.out.Antenna = ant
			}
		}
	}
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	} else {
		req.FreqMHz = *q.FrequencyMHz
	}
	if q.ChannelMHz == nil {
		v.Add("channel_mhz", "is required: the channel width, MHz, one of the radios' widths")
	} else {
		req.ChannelMHz = *q.ChannelMHz
	}
	if q.Polarization != nil {
		req.Polarization = appliance.Polarization(*q.Polarization)
		if req.Polarization == "" {
			v.Add("polarization", "must be vertical, horizontal or dual (absent: vertical)")
		}
	}
	if q.AvailabilityTargetPct != nil {
		req.AvailabilityTargetPct = *q.AvailabilityTargetPct
		if req.AvailabilityTargetPct == 0 {
			v.Add("availability_target_pct", "must be a percentage of the year, 50 <= p < 100 (absent: %g)", appliance.DefaultPTPTargetPct)
		}
	}
	if q.R001MMH != nil {
		req.R001MMH = *q.R001MMH
	}
	var asked appliance.EngineID
	if q.Engine != nil {
		asked = appliance.EngineID(*q.Engine)
	}
	id, note, err := a.resolveEngine(k, asked)
	if err != nil {
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) {
			return req, "", err // a tier refusal (403)
		}
		v.Merge(ve)
	} else {
		req.Engine = id
	}
	// The service's own checks, so that one answer names every bad field;
	// "x.radio_id is required" is left out where the API refused x.radio.
	if v.Len() > 0 {
		seen := map[string]bool{}
		for _, f := range v.Fields {
			seen[f.Field] = true
		}
		chk := req
		ptp.Defaults(&chk)
		var pv *appliance.ValidationError
		if errors.As(ptp.Validate(&chk), &pv) {
			// The distance between the ends means nothing when a
			// coordinate is missing (it reads as 0).
			noPos := seen["a.lat"] || seen["a.lon"] || seen["b.lat"] || seen["b.lon"]
			for _, f := range pv.Fields {
				if seen[f.Field] || inline[strings.TrimSuffix(f.Field, "_id")] || noPos && f.Field == "b" {
					continue
				}
				seen[f.Field] = true
				v.Fields = append(v.Fields, f)
			}
		}
		return req, "", v.Err()
	}
	return req, note, nil
}

// prefixed adds the fields of err (a validation error) to v under prefix.
func prefixed(v *appliance.ValidationError, prefix string, err error) {
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		v.Add(strings.TrimSuffix(prefix, "."), "%s", truncate(err.Error(), 200))
		return
	}
	for _, f := range ve.Fields {
		v.Add(prefix+f.Field, "%s", f.Reason)
	}
}

// planFor plans the body q for the calling key.
func (a *API) planFor(r *http.Request, q *ptpRequest) (*appliance.PTPLink, string, error) {
	if a.PTP == nil {
		return nil, "", errNoPTP
	}
	req, note, err := a.ptpDomain(r, q)
	if err != nil {
		return nil, "", err
	}
	l, err := a.PTP.Plan(r.Context(), req)
	if err != nil {
		return nil, "", err
	}
	l.Warnings = withEngineNote(l.Warnings, note)
	return l, note, nil
}

func (a *API) planPTP(w http.ResponseWriter, r *http.Request) (any, error) {
	var q ptpRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	l, _, err := a.planFor(r, &q)
	if err != nil {
		return nil, err
	}
	return PTPResponseOf(l, string(l.Request.Engine)), nil
}

// reportPTP is POST /reports/ptp: the PDF report of the link, in the
// branding of the key's tenant. Each report counts one PDF of the
// tenant's monthly quota, as POST /reports/link.
func (a *API) reportPTP(w http.ResponseWriter, r *http.Request) (any, error) {
	var q ptpReportRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	v := &appliance.ValidationError{}
	lang := report.English
	if q.Language != nil {
		switch l := report.Language(*q.Language); l {
		case report.English, report.Portuguese:
			lang = l
		default:
			v.Add("language", "must be %q or %q, got %q", report.English, report.Portuguese, truncate(*q.Language, 40))
		}
	}
	text := func(p *string, field string) string {
		if p == nil {
			return ""
		}
		s := strings.TrimSpace(*p)
		if len([]rune(s)) > report.MaxPTPFieldRunes || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			v.Add(field, "must be at most %d characters on one line", report.MaxPTPFieldRunes)
		}
		return s
	}
	in := report.PTPInput{ART: text(q.ART, "art"), EngineerName: text(q.EngineerName, "engineer_name"),
		EngineerRegistration: text(q.EngineerRegistration, "engineer_registration")}
	if err := v.Err(); err != nil {
		return nil, err
	}
	l, _, err := a.planFor(r, &q.ptpRequest)
	if err != nil {
		return nil, err
	}
	in.Link = l
	in.Terrain = a.TerrainDescription
	brand, err := a.reportBranding(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := report.WritePTP(&buf, in, report.Options{Language: lang, Branding: brand, Created: time.Now().UTC()}); err != nil {
		// The input came from the planner: a renderer error is a bug.
		return nil, fmt.Errorf("point-to-point report: %v", err)
	}
	if a.PDFs != nil {
		if err := a.PDFs.ReservePDF(r.Context(), keyFrom(r.Context()), "rpt_"+newID()); err != nil {
			return nil, err
		}
	}
	writeFile(w, "application/pdf", "ptp-report.pdf", buf.Bytes())
	return nil, nil
}

// exportPTP is POST /exports/ptp: the link as a GeoJSON, KML or KMZ file
// (geoexport.PTPFeatures: both sites and the line between them).
func (a *API) exportPTP(w http.ResponseWriter, r *http.Request) (any, error) {
	f, err := exportFormat(r)
	if err != nil {
		return nil, err
	}
	if f == geoexport.FormatShapefile {
		return nil, appliance.Invalid("format", "must be geojson, kml or kmz for a point-to-point link (a Shapefile holds one geometry type)")
	}
	var q ptpRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	l, _, err := a.planFor(r, &q)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := geoexport.WritePTPLink(&buf, f, l, time.Now()); err != nil {
		return nil, fmt.Errorf("export point-to-point link: %v", err)
	}
	writeFile(w, f.ContentType(), "ptp"+f.Extension(), buf.Bytes())
	return nil, nil
}

// PTPEndResultJSON is one end of a point-to-point answer.
type PTPEndResultJSON struct {
	Name           string   `json:"name"`
	Lat            float64  `json:"lat"`
	Lon            float64  `json:"lon"`
	HeightM        float64  `json:"height_m"`           // antenna above ground, metres
	GroundM        float64  `json:"ground_elevation_m"` // metres AMSL
	AntennaAMSLM   float64  `json:"antenna_amsl_m"`     // antenna tip, metres AMSL
	BearingDeg     float64  `json:"bearing_deg"`        // toward the other end, degrees from true north
	ElevationDeg   float64  `json:"elevation_deg"`      // below the horizontal toward the other end's antenna, degrees
	AzimuthDeg     float64  `json:"azimuth_deg"`        // antenna azimuth used
	AzimuthAligned bool     `json:"azimuth_aligned"`
	TiltDeg        float64  `json:"tilt_deg"` // mechanical downtilt used, degrees (positive down)
	TiltAligned    bool     `json:"tilt_aligned"`
	CableLossDB    float64  `json:"cable_loss_db"`
	AnatelStation  *string  `json:"anatel_station"`
	Radio          EquipRef `json:"radio"`
	Antenna        EquipRef `json:"antenna"`
	AntennaGainDBi float64  `json:"antenna_gain_dbi"`
	AntennaLossDB  float64  `json:"antenna_pattern_loss_db"` // toward the other end
	AntennaLabel   string   `json:"antenna_label"`
}

// EquipRef names the radio or antenna an end used: its catalogue id
// (null when given inline) and name.
type EquipRef struct {
	ID      *string `json:"id"`
	Name    string  `json:"name"`
	Builtin bool    `json:"builtin"`
}

// PTPDirectionJSON is the budget of one direction of one mode.
type PTPDirectionJSON struct {
	TxPowerDBm     float64 `json:"tx_power_dbm"`
	EIRPDBm        float64 `json:"eirp_dbm"`
	RxLevelDBm     float64 `json:"rx_level_dbm"`
	SensitivityDBm float64 `json:"sensitivity_dbm"`
	FadeMarginDB   float64 `json:"fade_margin_db"`
}

// PTPAvailabilityJSON is the ITU-R availability of one mode. Percentages
// have 6 decimals (an availability of 99.9999 % is 0.5 min a year).
type PTPAvailabilityJSON struct {
	AvailabilityPct      float64             `json:"availability_pct"`
	UnavailabilityPct    float64             `json:"unavailability_pct"`
	OutageMinutesPerYear float64             `json:"outage_minutes_per_year"`
	RainPct              float64             `json:"rain_pct"`
	RainRange            string              `json:"rain_range"`
	MultipathPct         float64             `json:"multipath_pct"`
	MultipathWorstMonth  float64             `json:"multipath_worst_month_pct"`
	Bound                string              `json:"bound"`
	MeetsTarget          bool                `json:"meets_target"`
	Warnings             []appliance.Warning `json:"warnings"`
}

// PTPModeJSON is one mode of a point-to-point answer.
type PTPModeJSON struct {
	Name           string               `json:"name"`
	ThroughputMbps float64              `json:"throughput_mbps"`
	AtoB           PTPDirectionJSON     `json:"a_to_b"`
	BtoA           PTPDirectionJSON     `json:"b_to_a"`
	FadeMarginDB   float64              `json:"fade_margin_db"` // the weaker direction's
	Availability   *PTPAvailabilityJSON `json:"availability"`   // null when not computed
}

// PTPRequiredJSON is the fade margin an availability target needs.
type PTPRequiredJSON struct {
	AvailabilityPct float64  `json:"availability_pct"`
	FadeMarginDB    float64  `json:"fade_margin_db"`
	Bound           string   `json:"bound"`
	RainOnlyDB      *float64 `json:"rain_only_db"` // null outside P.530's 0.001-1 %
	MultipathOnlyDB float64  `json:"multipath_only_db"`
}

// PTPClearanceJSON is one clearance rule.
type PTPClearanceJSON struct {
	KFactor     float64       `json:"k_factor"`
	F1Fraction  float64       `json:"f1_fraction"`
	Basis       string        `json:"basis"`
	ClearanceF1 *float64      `json:"clearance_f1"` // null without an intermediate sample
	Met         bool          `json:"met"`
	MinHeightA  MinHeightJSON `json:"min_height_a"`
	MinHeightB  MinHeightJSON `json:"min_height_b"`
}

// PTPClimateJSON is the climate behind the availability.
type PTPClimateJSON struct {
	Lat             float64 `json:"lat"`
	Lon             float64 `json:"lon"`
	R001MMH         float64 `json:"r001_mmh"`
	R001Source      string  `json:"r001_source"`
	P0RainPct       float64 `json:"rain_probability_pct"`
	GammaRDBPerKm   float64 `json:"rain_specific_attenuation_db_per_km"`
	A001DB          float64 `json:"rain_attenuation_001_db"`
	DN1             float64 `json:"dn1"`
	SaM             float64 `json:"terrain_roughness_m"`
	GeoclimaticK    float64 `json:"geoclimatic_factor"`
	InclinationMrad float64 `json:"path_inclination_mrad"`
	GasDBPerKm      float64 `json:"gas_specific_attenuation_db_per_km"`
	TemperatureK    float64 `json:"temperature_k"`
	WaterVapourGM3  float64 `json:"water_vapour_g_m3"`
}

// PTPResponse is the body of POST /links/ptp.
type PTPResponse struct {
	A                     PTPEndResultJSON    `json:"a"`
	B                     PTPEndResultJSON    `json:"b"`
	DistanceKm            float64             `json:"distance_km"`
	FrequencyMHz          float64             `json:"frequency_mhz"`
	ChannelMHz            float64             `json:"channel_mhz"`
	Polarization          string              `json:"polarization"`
	EngineRequested       string              `json:"engine_requested"`
	EngineUsed            string              `json:"engine_used"`
	EngineVersion         string              `json:"engine_version"`
	PathLossDB            float64             `json:"path_loss_db"`
	DiffractionDB         float64             `json:"diffraction_db"`
	GasAttenuationDB      float64             `json:"gas_attenuation_db"`
	LOSClear              bool                `json:"los_clear"`
	FresnelOK             bool                `json:"fresnel_ok"`
	Path                  *PathCheckJSON      `json:"path"`
	Clearance             []PTPClearanceJSON  `json:"clearance"`
	Modes                 []PTPModeJSON       `json:"modes"`
	RecommendedMode       *string             `json:"recommended_mode"` // null when no mode meets the target
	RecommendedIndex      int                 `json:"recommended_index"`
	AvailabilityTargetPct float64             `json:"availability_target_pct"`
	AvailabilityComputed  bool                `json:"availability_computed"`
	RequiredFadeMargins   []PTPRequiredJSON   `json:"required_fade_margins"`
	Climate               *PTPClimateJSON     `json:"climate"`
	Sources               []string            `json:"sources"`
	Warnings              []appliance.Warning `json:"warnings"`
}

func r6pct(x float64) float64 { return roundTo(x, 1e6) }

func ptpEndJSONOf(e *appliance.PTPEnd, r *appliance.PTPEndResult) PTPEndResultJSON {
	out := PTPEndResultJSON{Name: e.Name, Lat: r6(e.Pos.Lat), Lon: r6(e.Pos.Lon), HeightM: r3(e.HeightM), GroundM: r3(r.GroundM),
		AntennaAMSLM: r3(r.TipM), BearingDeg: r3(r.BearingDeg), ElevationDeg: r3(r.ElevationDeg), AzimuthDeg: r3(r.AzimuthDeg),
		AzimuthAligned: r.AzimuthAligned, TiltDeg: r3(r.TiltDeg), TiltAligned: r.TiltAligned, CableLossDB: r3(e.CableLossDB),
		AntennaGainDBi: r3(r.AntennaGainDBi), AntennaLossDB: r3(r.AntennaLossDB), AntennaLabel: r.AntennaLabel}
	if e.AnatelStation != "" {
		s := e.AnatelStation
		out.AnatelStation = &s
	}
	ref := func(id, name string, builtin bool) EquipRef {
		r := EquipRef{Name: name, Builtin: builtin}
		if id != "" {
			r.ID = &id
		}
		return r
	}
	if e.Radio != nil {
		out.Radio = ref(e.RadioID, e.Radio.Name, e.Radio.Builtin)
	}
	if e.Antenna != nil {
		out.Antenna = ref(e.AntennaID, e.Antenna.Name, e.Antenna.Builtin)
	}
	return out
}

func nonNilWarnings(ws []appliance.Warning) []appliance.Warning {
	if ws == nil {
		return []appliance.Warning{}
	}
	return ws
}

// PTPResponseOf is the wire form of a link (the body of POST /links/ptp,
// also printed by `linkplan ptp --json`); asked is the engine requested
// (after the tier rules).
func PTPResponseOf(l *appliance.PTPLink, asked string) PTPResponse {
	req := &l.Request
	out := PTPResponse{A: ptpEndJSONOf(&req.A, &l.A), B: ptpEndJSONOf(&req.B, &l.B), DistanceKm: r3(l.DistanceKm),
		FrequencyMHz: r3(req.FreqMHz), ChannelMHz: r3(req.ChannelMHz), Polarization: string(req.Polarization),
		EngineRequested: asked, EngineUsed: string(l.Prediction.Engine), EngineVersion: l.Prediction.EngineVersion,
		PathLossDB: r3(l.Prediction.PathLossDB), DiffractionDB: r3(l.Prediction.DiffractionDB), GasAttenuationDB: r3(l.GasAttenuationDB),
		LOSClear: l.Prediction.LOSClear, FresnelOK: l.Prediction.FresnelOK, Path: pathCheckJSON(l.Path),
		Clearance: []PTPClearanceJSON{}, Modes: []PTPModeJSON{}, RecommendedIndex: l.Recommended,
		AvailabilityTargetPct: req.AvailabilityTargetPct, AvailabilityComputed: l.Availability,
		RequiredFadeMargins: []PTPRequiredJSON{}, Sources: l.Sources, Warnings: nonNilWarnings(l.Warnings)}
	if out.Sources == nil {
		out.Sources = []string{}
	}
	for _, c := range l.Clearance {
		out.Clearance = append(out.Clearance, PTPClearanceJSON{KFactor: r3(c.KFactor), F1Fraction: r3(c.F1Fraction), Basis: c.Basis,
			ClearanceF1: round3(c.ClearanceF1), Met: c.Met, MinHeightA: minHeightJSON(c.MinHeightA), MinHeightB: minHeightJSON(c.MinHeightB)})
	}
	dir := func(d appliance.PTPDirection) PTPDirectionJSON {
		return PTPDirectionJSON{TxPowerDBm: r3(d.TxPowerDBm), EIRPDBm: r3(d.EIRPDBm), RxLevelDBm: r3(d.RxLevelDBm),
			SensitivityDBm: r3(d.SensitivityDBm), FadeMarginDB: r3(d.FadeMarginDB)}
	}
	for _, m := range l.Modes {
		mj := PTPModeJSON{Name: m.Name, ThroughputMbps: r3(m.ThroughputMbps), AtoB: dir(m.AB), BtoA: dir(m.BA), FadeMarginDB: r3(m.FadeMarginDB)}
		if av := m.Availability; av != nil {
			mj.Availability = &PTPAvailabilityJSON{AvailabilityPct: r6pct(av.AvailabilityPct), UnavailabilityPct: r6pct(av.UnavailabilityPct),
				OutageMinutesPerYear: r3(av.OutageMinutesPerYear), RainPct: r6pct(av.RainPct), RainRange: av.RainRange,
				MultipathPct: r6pct(av.MultipathPct), MultipathWorstMonth: r6pct(av.MultipathWorstMonth), Bound: av.Bound,
				MeetsTarget: av.MeetsTarget, Warnings: nonNilWarnings(av.Warnings)}
		}
		out.Modes = append(out.Modes, mj)
	}
	if l.Recommended >= 0 && l.Recommended < len(l.Modes) {
		name := l.Modes[l.Recommended].Name
		out.RecommendedMode = &name
	}
	for _, r := range l.Required {
		out.RequiredFadeMargins = append(out.RequiredFadeMargins, PTPRequiredJSON{AvailabilityPct: r.AvailabilityPct,
			FadeMarginDB: r3(r.FadeMarginDB), Bound: r.Bound, RainOnlyDB: round3(r.RainOnlyDB), MultipathOnlyDB: r3(r.MultipathOnlyDB)})
	}
	if c := l.Climate; c != nil {
		out.Climate = &PTPClimateJSON{Lat: r6(c.LatDeg), Lon: r6(c.LonDeg), R001MMH: r3(c.R001MMH), R001Source: c.R001Source,
			P0RainPct: r3(c.P0RainPct), GammaRDBPerKm: r3(c.GammaRDBPerKm), A001DB: r3(c.A001DB), DN1: r3(c.DN1), SaM: r3(c.SaM),
			GeoclimaticK: c.GeoclimaticK, InclinationMrad: r3(c.InclinationMrad), GasDBPerKm: roundTo(c.GasDBPerKm, 1e5),
			TemperatureK: r3(c.TemperatureK), WaterVapourGM3: r3(c.WaterVapourGM3)}
	}
	return out
}
