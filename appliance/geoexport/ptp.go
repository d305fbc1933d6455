package geoexport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"linkplan/appliance"
)

// Values of the "feature" field of PTPSchema.
const (
	FeatureSite = "site" // one end of a point-to-point link
	// FeatureLink ("link") is the line a → b.
)

// PTPFormats are the formats a point-to-point link is exported in: one
// line and two points, which a Shapefile would split into two sets.
func PTPFormats() []Format { return []Format{FormatGeoJSON, FormatKML, FormatKMZ} }

// PTPSchema returns the schema of a point-to-point link (PTPFeatures):
// both sites as points and the link as a line a → b, in one mixed
// schema; fields that do not apply to a feature are null.
func PTPSchema() Schema {
	return Schema{Geometry: KindMixed, Fields: []Field{
		{Name: "feature", Type: TypeString, Width: 8},
		{Name: "name", Type: TypeString, Width: 64},
		{Name: "end", Type: TypeString, Width: 1},
		{Name: "height_m", Type: TypeFloat, Width: 8, Decimals: 2},
		{Name: "ground_m", Type: TypeFloat, Width: 8, Decimals: 1},
		{Name: "azimuth_deg", Type: TypeFloat, Width: 7, Decimals: 2},
		{Name: "tilt_deg", Type: TypeFloat, Width: 7, Decimals: 2},
		{Name: "radio", Type: TypeString, Width: 100},
		{Name: "antenna", Type: TypeString, Width: 100},
		{Name: "anatel_station", Type: TypeString, Width: 20},
		{Name: "distance_km", Type: TypeFloat, Width: 10, Decimals: 3},
		{Name: "frequency_mhz", Type: TypeFloat, Width: 10, Decimals: 1},
		{Name: "engine", Type: TypeString, Width: 32},
		{Name: "mode", Type: TypeString, Width: 100},
		{Name: "throughput_mbps", Type: TypeFloat, Width: 10, Decimals: 1},
		{Name: "fade_margin_db", Type: TypeFloat, Width: 9, Decimals: 2},
		{Name: "availability_pct", Type: TypeFloat, Width: 11, Decimals: 5},
		{Name: "status", Type: TypeString, Width: 16},
		{Name: "warnings", Type: TypeString, Width: 200, ListSep: ";"},
	}}
}

// PTPKMLOptions returns the KML options of a point-to-point link:
// placemarks named by "name", styled by "status" like LinkStyles.
func PTPKMLOptions() KMLOptions {
	return KMLOptions{DocumentName: "Point-to-point link", NameField: "name", StyleField: "status", Styles: LinkStyles()}
}

// PTPFeatures returns the features of l (PTPSchema): site a, site b (named
// by their names, else "a" and "b"), then the line a → b named "a → b"
// with the recommended mode (the most robust when none meets the target:
// status low_margin; ok when the recommended mode meets it), its
// throughput, its fade margin and availability (null when not computed),
// and the link's warning codes (';'-separated).
func PTPFeatures(l *appliance.PTPLink) []Feature {
	str := func(s string) Value {
		if s == "" {
			return Null()
		}
		return String(s)
	}
	req := &l.Request
	name := func(e *appliance.PTPEnd, def string) string {
		if strings.TrimSpace(e.Name) != "" {
			return e.Name
		}
		return def
	}
	site := func(id string, e *appliance.PTPEnd, r *appliance.PTPEndResult) Feature {
		radio, antenna := "", ""
		if e.Radio != nil {
			radio = e.Radio.Name
		}
		if e.Antenna != nil {
			antenna = e.Antenna.Name
		}
		status := StatusOK
		if l.Recommended < 0 {
			status = StatusLowMargin
		}
		return Feature{Geometry: Point(e.Pos), Properties: []Value{
			String(FeatureSite), String(name(e, id)), String(id), Float(e.HeightM), Float(r.GroundM),
			Float(r.AzimuthDeg), Float(r.TiltDeg), str(radio), str(antenna), str(e.AnatelStation),
			Null(), Null(), Null(), Null(), Null(), Null(), Null(), String(status), Null(),
		}}
	}
	out := []Feature{site("a", &req.A, &l.A), site("b", &req.B, &l.B)}
	status, mode := StatusOK, l.Recommended
	if mode < 0 {
		status, mode = StatusLowMargin, 0
	}
	line := []Value{String(FeatureLink), String(name(&req.A, "a") + " → " + name(&req.B, "b")), Null(), Null(), Null(), Null(), Null(),
		Null(), Null(), Null(), Float(l.DistanceKm), Float(req.FreqMHz), str(string(l.Prediction.Engine)),
		Null(), Null(), Null(), Null(), String(status), str(strings.Join(appliance.WarningCodes(l.Warnings), ";"))}
	if mode < len(l.Modes) {
		m := &l.Modes[mode]
		line[13], line[14], line[15] = String(m.Name), Float(m.ThroughputMbps), Float(m.FadeMarginDB)
		if m.Availability != nil {
			line[16] = Float(m.Availability.AvailabilityPct)
		}
	}
	return append(out, Feature{Geometry: LineString(req.A.Pos, req.B.Pos), Properties: line})
}

// WritePTPLink writes the PTPFeatures of l in format f, one of PTPFormats.
func WritePTPLink(w io.Writer, f Format, l *appliance.PTPLink, modified time.Time) error {
	switch f {
	case FormatGeoJSON, FormatKML, FormatKMZ:
	default:
		return fmt.Errorf("point-to-point export: format %q: %w", f, appliance.ErrInvalid)
	}
	return Export(w, f, "ptp", PTPSchema(), Slice(PTPFeatures(l)), PTPKMLOptions(), modified)
}
