package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/planner"
)

// Transmitter is what a map's caveats say of one transmitter (package
// doc, "Caveats").
type Transmitter struct {
	TowerID string // catalogue tower id; "" for an explicit site
	// EIRPAssumed is true when the tower's source gives no ERP and the map
	// assumed DefaultEIRPDBm.
	EIRPAssumed  bool
	Synthetic    bool                // synthetic sample data, not real infrastructure
	Placement    appliance.Placement // how the tower's position was obtained
	UncertaintyM float64             // radius of its position uncertainty (about 95 %), metres; 0 when none is given
	// AntennaWarning says the tower's catalogue antenna could not be read
	// and its generic antenna stood in; "" normally.
	AntennaWarning string
	// Calibration is the tenant's calibration applied to the map's levels
	// (Request.Calibration), nil none.
	Calibration *MapCalibration
}

// MapCalibration is what a map says of the tenant's calibration of one of
// its transmitters (the "calibration" object of a transmitter): every
// pixel's level got offset_db + slope_db_per_decade·log10(d / 1 km), plus
// the local correction inside the calibrated area (area_squares squares of
// grid_m metres around the tenant's measurements).
type MapCalibration struct {
	OffsetDB       float64            `json:"offset_db"`
	SlopeDB        float64            `json:"slope_db_per_decade"`
	N              int                `json:"n"`
	CVRMSEBeforeDB float64            `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64            `json:"cv_rmse_after_db"`
	Engine         appliance.EngineID `json:"engine"`
	Cell           string             `json:"cell"`
	AreaSquares    int                `json:"area_squares"`
	GridM          float64            `json:"grid_m"`
	FittedAtUnix   float64            `json:"fitted_at"` // epoch seconds
}

// MapCalibrationOf returns what a map says of calibration t.
func MapCalibrationOf(t *appliance.CalibrationTarget) *MapCalibration {
	if t == nil {
		return nil
	}
	if c := t.Cell; c != nil {
		return &MapCalibration{OffsetDB: r3(c.OffsetDB), SlopeDB: r3(c.SlopeDB), N: c.N, CVRMSEBeforeDB: r3(c.CVRMSEBeforeDB), CVRMSEAfterDB: r3(c.CVRMSEAfterDB),
			Engine: t.Engine, Cell: c.Key, AreaSquares: len(c.Area), GridM: c.GridM, FittedAtUnix: t.FittedAtUnix}
	}
	b := t.Band
	return &MapCalibration{OffsetDB: r3(b.OffsetDB), SlopeDB: r3(b.SlopeDB), N: b.N, CVRMSEBeforeDB: r3(b.CVRMSEBeforeDB), CVRMSEAfterDB: r3(b.CVRMSEAfterDB),
		Engine: t.Engine, Cell: "band@" + strconv.Itoa(b.BandMHz) + "MHz", FittedAtUnix: t.FittedAtUnix}
}

// TowerTransmitter returns the caveats of tower t as a map's transmitter.
func TowerTransmitter(t *appliance.Tower) Transmitter {
	return Transmitter{TowerID: t.ID, EIRPAssumed: !t.HasERP(), Synthetic: t.Synthetic, Placement: t.Placement, UncertaintyM: t.UncertaintyM}
}

// TransmitterData is one transmitter of a map as its events and exports
// give it.
type TransmitterData struct {
	TowerID     string  `json:"tower_id,omitempty"` // absent for an explicit site
	Lat         float64 `json:"lat"`                // WGS84 degrees
	Lon         float64 `json:"lon"`                // WGS84 degrees
	HeightM     float64 `json:"height_m"`           // antenna height above ground, metres
	EIRPDBm     float64 `json:"eirp_dbm"`           // EIRP toward the main lobe, dBm
	EIRPAssumed bool    `json:"eirp_assumed"`       // the tower has no ERP: DefaultEIRPDBm was assumed
	Synthetic   bool    `json:"synthetic"`          // synthetic sample data, not real infrastructure
	// PositionUncertaintyM is the tower's position uncertainty, metres;
	// null for an explicit site or a tower whose source gives none.
	PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
	// Antenna names the antenna model the map used, e.g. "generic 65°
	// sector" (Request.AntennaLabel).
	Antenna string `json:"antenna"`
	// Calibration is the tenant's calibration applied to this
	// transmitter's levels; absent when none.
	Calibration *MapCalibration `json:"calibration,omitempty"`
}

// TransmittersData returns the transmitters of reqs, in request order.
func TransmittersData(reqs []Request) []TransmitterData {
	out := make([]TransmitterData, len(reqs))
	for i, r := range reqs {
		t := r.Transmitter
		out[i] = TransmitterData{TowerID: t.TowerID, Lat: r.Tx.Lat, Lon: r.Tx.Lon, HeightM: r3(r.TxHeightM), EIRPDBm: r3(r.EIRPDBm),
			EIRPAssumed: t.EIRPAssumed, Synthetic: t.Synthetic, Antenna: r.AntennaLabel(), Calibration: t.Calibration}
		if t.UncertaintyM > 0 {
			u := r3(t.UncertaintyM)
			out[i].PositionUncertaintyM = &u
		}
	}
	return out
}

// anyAssumed reports whether some transmitter's EIRP was assumed.
func anyAssumed(reqs []Request) bool {
	for _, r := range reqs {
		if r.Transmitter.EIRPAssumed {
			return true
		}
	}
	return false
}

// which names the transmitters of reqs for which pick is true: "the
// transmitter" (or its tower id) for a single map, else "k of n
// transmitters (ids…)" with at most 5 ids.
func which(reqs []Request, pick func(Request) bool) (string, int) {
	var ids []string
	n := 0
	for i, r := range reqs {
		if !pick(r) {
			continue
		}
		n++
		if len(ids) < 5 {
			id := r.Transmitter.TowerID
			if id == "" {
				id = "site " + strconv.Itoa(i)
			}
			ids = append(ids, id)
		}
	}
	if len(reqs) == 1 {
		if reqs[0].Transmitter.TowerID != "" {
			return "the transmitter " + reqs[0].Transmitter.TowerID, n
		}
		return "the transmitter", n
	}
	more := ""
	if n > len(ids) {
		more = ", …"
	}
	return fmt.Sprintf("%d of the %d transmitters (%s%s)", n, len(reqs), strings.Join(ids, ", "), more), n
}

// positionUncertain reports whether r's transmitter position is less
// certain than the map's pixel: the rule of the map's position_uncertainty
// warning.
func positionUncertain(r Request) bool {
	return r.Transmitter.UncertaintyM > r.ResolutionM
}

// TransmitterWarnings returns the warnings of a map that its requests
// alone decide, in this order (package doc, "Caveats"): engine_resolved,
// eirp_assumed, synthetic_tower, position_uncertainty,
// calibration_outside_area. It never returns nil.
func TransmitterWarnings(reqs []Request) []appliance.Warning {
	out := []appliance.Warning{}
	if len(reqs) == 0 {
		return out
	}
	if note := reqs[0].EngineNote; note != "" {
		out = append(out, appliance.Warning{Code: appliance.WarnEngineResolved, Message: note})
	}
	verbs := [2]string{"has", "its"}
	if len(reqs) > 1 {
		verbs = [2]string{"have", "their"}
	}
	if who, n := which(reqs, func(r Request) bool { return r.Transmitter.EIRPAssumed }); n > 0 {
		out = append(out, appliance.Warning{Code: appliance.WarnEIRPAssumed, Message: fmt.Sprintf(
			"%s %s no ERP in %s source: the map assumes an EIRP of %.1f dBm; every level moves dB for dB with the real EIRP",
			who, verbs[0], verbs[1], DefaultEIRPDBm)})
	}
	if who, n := which(reqs, func(r Request) bool { return r.Transmitter.Synthetic }); n > 0 {
		verb := "is"
		if len(reqs) > 1 {
			verb = "are"
		}
		out = append(out, appliance.Warning{Code: appliance.WarnSyntheticTower, Message: who + " " + verb + " synthetic sample data, not real infrastructure"})
	}
	if who, n := which(reqs, positionUncertain); n > 0 {
		u, placement := 0.0, appliance.Placement("")
		for _, r := range reqs {
			if positionUncertain(r) && r.Transmitter.UncertaintyM > u {
				u, placement = r.Transmitter.UncertaintyM, r.Transmitter.Placement
			}
		}
		if placement == "" {
			placement = "unknown"
		}
		out = append(out, appliance.Warning{Code: appliance.WarnPositionUncertainty, Message: fmt.Sprintf(
			"the position of %s is uncertain by up to %.0f m (%s placement), more than the %g m pixel: the map may be shifted by that much, and within %.1f km of the transmitter the uncertainty exceeds 10 %% of the path length",
			who, u, placement, reqs[0].ResolutionM, u/planner.PositionUncertaintyFraction/1000)})
	}
	if who, n := which(reqs, func(r Request) bool { return r.Transmitter.Calibration != nil }); n > 0 {
		out = append(out, appliance.Warning{Code: appliance.WarnCalibrationOutsideArea, Message: fmt.Sprintf(
			"the tenant's calibration of %s applies to the whole map, but its local correction only within the calibrated area around the tenant's measurements (the calibration object's area_squares squares, none for a band-wide offset): beyond it only the transmitter-wide offset (or the band's) applies, fitted elsewhere",
			who)})
	}
	for _, r := range reqs {
		if m := r.Transmitter.AntennaWarning; m != "" {
			out = append(out, appliance.Warning{Code: appliance.WarnAntennaUnavailable, Message: m})
		}
	}
	return out
}

// terrainWarnings returns the warnings the computation found (package
// doc, "Caveats"), in this order: void_filled_terrain, missing_terrain,
// no_land_cover. It never returns nil.
func terrainWarnings(s *Summary) []appliance.Warning {
	out := []appliance.Warning{}
	if s.VoidFilledRadials > 0 {
		out = append(out, appliance.Warning{Code: appliance.WarnVoidFilledTerrain, Message: fmt.Sprintf(
			"%d of the %d radials cross terrain interpolated across voids of the source DEM (%d samples, largest interpolated span %.0f m): the real ground there can be much higher, so levels behind it can be optimistic",
			s.VoidFilledRadials, s.Radials, s.VoidFilledSamples, s.VoidMaxSpanM)})
	}
	if s.NoDataMissingTerrain > 0 || len(s.MissingTiles) > 0 {
		tiles := s.MissingTiles
		more := ""
		if len(tiles) > 10 {
			tiles, more = tiles[:10], fmt.Sprintf(" and %d more", len(s.MissingTiles)-10)
		}
		out = append(out, appliance.Warning{Code: appliance.WarnMissingTerrain, Message: fmt.Sprintf(
			"%d pixels within the radius have no value because terrain toward them is in no loaded terrain pack (tiles %s%s); missing terrain is never taken as sea level",
			s.NoDataMissingTerrain, strings.Join(tiles, ", "), more)})
	}
	switch {
	case s.NoLandCoverRadials > 0 && s.NoLandCoverRadials >= s.ProfiledRadials:
		out = append(out, appliance.Warning{Code: appliance.WarnNoLandCover, Message: "no land-cover layer covers this map: clutter losses near the receivers are not modelled"})
	case s.NoLandCoverRadials > 0:
		out = append(out, appliance.Warning{Code: appliance.WarnNoLandCover, Message: fmt.Sprintf(
			"%d of the %d radials have no land-cover class along them: clutter losses near the receivers there are not modelled",
			s.NoLandCoverRadials, s.ProfiledRadials)})
	}
	return out
}

// finishCaveats fills the caveats of a finished map's summary from its
// requests: the first transmitter's EIRP, whether any EIRP was assumed,
// the transmitters and the warnings (TransmitterWarnings, then the
// terrain's).
func (s *Summary) finishCaveats(reqs []Request) {
	s.EIRPDBm = reqs[0].EIRPDBm
	s.EIRPAssumed = anyAssumed(reqs)
	s.Transmitters = TransmittersData(reqs)
	s.Warnings = append(TransmitterWarnings(reqs), terrainWarnings(s)...)
}

// noLandCover reports whether a profile has no land-cover class: no layer,
// or every sample unknown (class 0).
func noLandCover(p *appliance.PathProfile) bool {
	for _, c := range p.ClutterClass {
		if c != 0 {
			return false
		}
	}
	return true
}

// GeoTIFFMetadata returns the GDAL metadata of a map's GeoTIFF export
// (package doc, "Caveats"): the received power band in dBm, and the
// engine, the EIRP and the warnings of s as dataset items.
func GeoTIFFMetadata(s *Summary) *geoexport.GeoTIFFMetadata {
	m := &geoexport.GeoTIFFMetadata{BandUnit: "dBm", BandDescription: "received power, dBm (isotropic receiver, 0 dBi)"}
	m.Items = append(m.Items,
		geoexport.MetadataItem{Name: "UNITS", Value: "dBm"},
		geoexport.MetadataItem{Name: "ENGINE", Value: string(s.Engine)},
		geoexport.MetadataItem{Name: "ENGINE_VERSION", Value: s.EngineVersion},
		geoexport.MetadataItem{Name: "EIRP_DBM", Value: strconv.FormatFloat(r3(s.EIRPDBm), 'f', -1, 64)},
		geoexport.MetadataItem{Name: "EIRP_ASSUMED", Value: strconv.FormatBool(s.EIRPAssumed)},
		geoexport.MetadataItem{Name: "THRESHOLD_DBM", Value: strconv.FormatFloat(s.ThresholdDBm, 'f', -1, 64)},
		geoexport.MetadataItem{Name: "WARNINGS", Value: strings.Join(appliance.WarningCodes(s.Warnings), ";")},
	)
	m.Items = append(m.Items, PixelMetadataItems(s.Pixel)...) // what a pixel stands for (package doc, "Pixels")
	if sc := TracedScene(s); sc.LayerID != "" {
		m.Items = append(m.Items,
			geoexport.MetadataItem{Name: "LAYER_ID", Value: sc.LayerID},
			geoexport.MetadataItem{Name: "SCENE_HASH", Value: sc.SceneHash},
			geoexport.MetadataItem{Name: "RAYTRACE_OPTIONS", Value: sc.Options})
	}
	for i, w := range s.Warnings {
		m.Items = append(m.Items, geoexport.MetadataItem{Name: fmt.Sprintf("WARNING_%d", i+1), Value: w.Code + ": " + w.Message})
	}
	return m
}

// Scene is how a map traced on a building layer was traced (package doc,
// "Caveats"): the layer, the hex SHA-256 of its scene and the options as
// compact JSON, from Summary.Detail (a raytrace map's layer_id,
// scene_hash and options); zero for the maps of other kinds.
type Scene struct {
	LayerID   string
	SceneHash string
	Options   string // compact JSON object
}

// TracedScene returns the scene of s (zero when its Detail names none).
func TracedScene(s *Summary) Scene {
	if s == nil || len(s.Detail) == 0 {
		return Scene{}
	}
	var d struct {
		LayerID   string          `json:"layer_id"`
		SceneHash string          `json:"scene_hash"`
		Options   json.RawMessage `json:"options"`
	}
	if json.Unmarshal(s.Detail, &d) != nil || d.LayerID == "" {
		return Scene{}
	}
	var opt bytes.Buffer
	if len(d.Options) > 0 && json.Compact(&opt, d.Options) != nil {
		opt.Reset()
	}
	return Scene{LayerID: d.LayerID, SceneHash: d.SceneHash, Options: opt.String()}
}

// caveatValues are the caveat properties of a contour feature
// (ContourSchema: engine, eirp_dbm, eirp_assumed, warnings,
// warning_messages, layer_id, scene_hash, rt_options); nulls without a
// summary, the last three null for a map not traced on a layer.
func caveatValues(s *Summary) []geoexport.Value {
	if s == nil {
		return []geoexport.Value{geoexport.Null(), geoexport.Null(), geoexport.Null(), geoexport.Null(), geoexport.Null(),
			geoexport.Null(), geoexport.Null(), geoexport.Null()}
	}
	str := func(v string) geoexport.Value {
		if v == "" {
			return geoexport.Null()
		}
		return geoexport.String(v)
	}
	sc := TracedScene(s)
	msgs := make([]string, len(s.Warnings))
	for i, w := range s.Warnings {
		msgs[i] = w.Code + ": " + w.Message
	}
	eirp := geoexport.Float(r3(s.EIRPDBm))
	if math.IsNaN(s.EIRPDBm) {
		eirp = geoexport.Null()
	}
	return []geoexport.Value{str(string(s.Engine)), eirp, geoexport.Bool(s.EIRPAssumed),
		str(strings.Join(appliance.WarningCodes(s.Warnings), ";")), str(strings.Join(msgs, " | ")),
		str(sc.LayerID), str(sc.SceneHash), str(sc.Options)}
}
