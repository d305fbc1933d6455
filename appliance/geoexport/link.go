package geoexport

import (
	"image/color"
	"strings"

	"linkplan/appliance"
)

// Link result statuses, the values of the "status" field.
const (
	StatusOK        = "ok"         // a best tower was found with a non-negative margin
	StatusLowMargin = "low_margin" // a best tower was found, margin below 0 dB
	StatusNoTower   = "no_tower"   // no tower could serve the receiver
	StatusError     = "error"      // the row could not be analysed
)

// LinkRow is one link analysis result as exported: the receiver and its
// best tower. Float fields that are NaN are written as null.
type LinkRow struct {
	ReceiverID  string           // caller's receiver id
	Row         int64            // 1-based input row
	Receiver    appliance.LatLon // receiver position, degrees WGS84
	TowerID     string           // best tower id; empty when none
	Operator    string           // best tower operator; empty when none
	DistanceKm  float64          // receiver to tower great-circle distance, km
	AzimuthDeg  float64          // receiver to tower bearing, degrees from true north
	MarginDB    float64          // link margin, dB
	RxPowerDBm  float64          // received power, dBm
	Engine      string           // engine id
	Status      string           // one of the Status constants
	Warnings    []string         // warning codes of the result, written ';'-separated (null when none)
	EIRPAssumed bool             // the tower EIRP was assumed
	Synthetic   bool             // the best tower is synthetic sample data
	// PositionUncertaintyM is the radius within which the best tower's
	// true position lies (about 95 %), metres; NaN (null) when unknown or
	// without a tower.
	PositionUncertaintyM float64
}

// LinkSchema returns the schema of LinkRow features (points). The dBase
// widths and decimals are chosen for the ranges of each quantity
// (FORMATS.md, "Link results").
func LinkSchema() Schema {
	return Schema{Geometry: KindPoint, Fields: []Field{
		{Name: "receiver_id", Type: TypeString, Width: 64},
		{Name: "row", Type: TypeInt, Width: 10},
		{Name: "lat", Type: TypeFloat, Width: 12, Decimals: 7},
		{Name: "lon", Type: TypeFloat, Width: 12, Decimals: 7},
		{Name: "tower_id", Type: TypeString, Width: 64},
		{Name: "operator", Type: TypeString, Width: 32},
		{Name: "distance_km", Type: TypeFloat, Width: 10, Decimals: 3},
		{Name: "azimuth_deg", Type: TypeFloat, Width: 7, Decimals: 2},
		{Name: "margin_db", Type: TypeFloat, Width: 9, Decimals: 2},
		{Name: "rx_power_dbm", Type: TypeFloat, Width: 9, Decimals: 2},
		{Name: "engine", Type: TypeString, Width: 32},
		{Name: "status", Type: TypeString, Width: 16},
		{Name: "warnings", Type: TypeString, Width: 200, ListSep: ";"},
		{Name: "eirp_assumed", Type: TypeBool},
		{Name: "synthetic", Type: TypeBool},
		{Name: "position_uncertainty_m", Type: TypeFloat, Width: 10, Decimals: 1},
	}}
}

// LinkStyles returns the KML styles of the link statuses: green, amber,
// red and purple for ok, low margin, no tower and error.
func LinkStyles() []StatusStyle {
	return []StatusStyle{
		{Value: StatusOK, Color: color.RGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}},
		{Value: StatusLowMargin, Color: color.RGBA{R: 0xfd, G: 0xae, B: 0x61, A: 0xff}},
		{Value: StatusNoTower, Color: color.RGBA{R: 0xd7, G: 0x30, B: 0x27, A: 0xff}},
		{Value: StatusError, Color: color.RGBA{R: 0x76, G: 0x2a, B: 0x83, A: 0xff}},
	}
}

// LinkKMLOptions returns the KML options of link results: placemarks named
// by receiver id and styled by status.
func LinkKMLOptions() KMLOptions {
	return KMLOptions{DocumentName: "Link results", NameField: "receiver_id", StyleField: "status", Styles: LinkStyles()}
}

// Feature returns r as a point feature of LinkSchema. Empty strings of a
// row without a tower are written as null.
func (r LinkRow) Feature() Feature {
	str := func(s string) Value {
		if s == "" {
			return Null()
		}
		return String(s)
	}
	return Feature{
		Geometry: Point(r.Receiver),
		Properties: []Value{
			String(r.ReceiverID), Int(r.Row),
			Float(r.Receiver.Lat), Float(r.Receiver.Lon),
			str(r.TowerID), str(r.Operator),
			Float(r.DistanceKm), Float(r.AzimuthDeg), Float(r.MarginDB), Float(r.RxPowerDBm),
			str(r.Engine), String(r.Status), str(strings.Join(r.Warnings, ";")), Bool(r.EIRPAssumed),
			Bool(r.Synthetic), Float(r.PositionUncertaintyM),
		},
	}
}

// LinkRowOf returns the export row of analysis a of input row row (1-based)
// for the receiver with id receiverID. A nil Best gives StatusNoTower with
// NaN figures.
func LinkRowOf(row int64, receiverID string, a appliance.LinkAnalysis) LinkRow {
	r := LinkRow{
		ReceiverID: receiverID, Row: row, Receiver: a.Request.Receiver,
		Engine: string(a.Engine), Status: StatusNoTower, Warnings: appliance.WarningCodes(a.Warnings),
		DistanceKm: nan(), AzimuthDeg: nan(), MarginDB: nan(), RxPowerDBm: nan(), PositionUncertaintyM: nan(),
	}
	if b := a.Best; b != nil {
		if b.Tower != nil {
			r.TowerID, r.Operator, r.Synthetic = b.Tower.ID, b.Tower.Operator, b.Tower.Synthetic
			if b.Tower.UncertaintyM > 0 {
				r.PositionUncertaintyM = b.Tower.UncertaintyM
			}
		}
		r.DistanceKm, r.AzimuthDeg = b.DistanceKm, b.AzimuthDeg
		r.MarginDB, r.RxPowerDBm, r.EIRPAssumed = b.LinkMarginDB, b.RxPowerDBm, b.EIRPAssumed
		r.Status = StatusOK
		if b.LinkMarginDB < 0 {
			r.Status = StatusLowMargin
		}
	}
	return r
}
