package batch

import (
	"linkplan/appliance"
	"linkplan/appliance/report"
)

// Row is one input row of a batch: a receiver site and the optional link
// budget terms of POST /analyze_link. A nil pointer is a value the client did
// not give: planner.Defaults then applies the same default as /analyze_link
// (lat, lon and frequency_mhz have none: a row without them is an error
// row). The JSON names are those of the CSV canonical columns (doc.go).
type Row struct {
	ReceiverID     string   `json:"receiver_id,omitempty"`
	Lat            *float64 `json:"lat"`                        // degrees WGS84
	Lon            *float64 `json:"lon"`                        // degrees WGS84
	HeightM        *float64 `json:"height,omitempty"`           // receiver antenna height above ground, metres
	FreqMHz        *float64 `json:"frequency_mhz"`              // MHz
	MaxDistanceKm  *float64 `json:"max_distance_km,omitempty"`  // search radius, km
	RxGainDBi      *float64 `json:"rx_gain_dbi,omitempty"`      // dBi
	CableLossDB    *float64 `json:"cable_loss_db,omitempty"`    // dB
	RxThresholdDBm *float64 `json:"rx_threshold_dbm,omitempty"` // dBm
	AssumedEIRPDBm *float64 `json:"assumed_eirp_dbm,omitempty"` // dBm
	Operator       string   `json:"operator,omitempty"`         // keep only this operator's towers
	Engine         string   `json:"engine,omitempty"`           // propagation engine; "" is Options.Engine
	// Errors are the input errors of this row found by the parser (a value
	// that is not a number, a missing required value): the row is reported
	// with status "error" and these reasons; the other rows still run.
	Errors []appliance.FieldError `json:"errors,omitempty"`
}

// Options are the settings of one batch submission.
type Options struct {
	// Engine is the engine of rows without their own; "" is the planner's
	// default (fspl).
	Engine string `json:"engine,omitempty"`
	// Language of the PDF reports: "en" (default) or "pt-BR".
	Language report.Language `json:"language,omitempty"`
	// PDFs asks for one PDF link report per row with a best tower in the
	// bundle (asynchronous jobs only), within the monthly PDF quota. Use
	// DefaultOptions for the default (true).
	PDFs bool `json:"pdfs"`
	// Branding is the white-label branding of the PDFs (the key's record).
	Branding report.Branding `json:"branding"`
}

// DefaultOptions returns the default options: English, PDFs on.
func DefaultOptions() Options { return Options{Language: report.English, PDFs: true} }

// RowResult is the result of one row, in the synchronous answer and in the
// job's items (compact JSON). Numbers are rounded like /analyze_link: 3
// decimals, latitudes and longitudes 6. Figures of a row without a best
// tower are null.
type RowResult struct {
	Index      int    `json:"index"` // 0-based input row
	Row        int    `json:"row"`   // 1-based input row (Index + 1), as in results.csv
	ReceiverID string `json:"receiver_id"`
	// Input echoed after defaults (null when the row did not give a valid
	// number).
	Lat            *float64 `json:"lat"`
	Lon            *float64 `json:"lon"`
	HeightM        *float64 `json:"height_m"`
	FreqMHz        *float64 `json:"frequency_mhz"`
	MaxDistanceKm  *float64 `json:"max_distance_km"`
	RxGainDBi      *float64 `json:"rx_gain_dbi"`
	CableLossDB    *float64 `json:"cable_loss_db"`
	RxThresholdDBm *float64 `json:"rx_threshold_dbm"`
	AssumedEIRPDBm *float64 `json:"assumed_eirp_dbm"`
	OperatorFilter string   `json:"operator_filter,omitempty"`
	// Best tower.
	TowerID       string   `json:"tower_id,omitempty"`
	Operator      string   `json:"operator,omitempty"`
	DistanceKm    *float64 `json:"distance_km"`
	AzimuthDeg    *float64 `json:"azimuth_deg"` // receiver -> tower, degrees from true north
	RxPowerDBm    *float64 `json:"rx_power_dbm"`
	MarginDB      *float64 `json:"margin_db"`
	EIRPAssumed   bool     `json:"eirp_assumed"`
	Engine        string   `json:"engine,omitempty"` // engine of the number
	EngineVersion string   `json:"engine_version,omitempty"`
	// Status is one of StatusOK, StatusLowMargin, StatusNoTower, StatusError.
	Status string `json:"status"`
	// Reason says why there is no tower or why the row failed.
	Reason string                 `json:"reason,omitempty"`
	Errors []appliance.FieldError `json:"errors,omitempty"` // the row's bad fields (status error)
	// Warnings are the warnings of the result, {code, message} as
	// /analyze_link gives them (planner package doc), engine_resolved
	// last when the row's engine was substituted.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
	// Synthetic is true when the best tower is synthetic sample data, not
	// real infrastructure.
	Synthetic bool `json:"synthetic"`
	// PositionUncertaintyM is the radius within which the best tower's
	// true position lies (about 95 %), metres; null without a best tower
	// or when its source gives none.
	PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
}

// Counts counts rows by status.
type Counts struct {
	Total     int `json:"total"`
	OK        int `json:"ok"`
	LowMargin int `json:"low_margin"`
	NoTower   int `json:"no_tower"`
	Error     int `json:"error"`
}

// Add counts one row of status s.
func (c *Counts) Add(status string) {
	c.Total++
	switch status {
	case StatusOK:
		c.OK++
	case StatusLowMargin:
		c.LowMargin++
	case StatusNoTower:
		c.NoTower++
	default:
		c.Error++
	}
}

// SyncResult is the answer of a batch run synchronously (at most
// SyncMaxRows rows): one result per input row, in input order.
type SyncResult struct {
	Rows   []RowResult `json:"rows"`
	Counts Counts      `json:"counts"`
}
