package api

import (
	"math"

	"linkplan/appliance"
)

// round3 rounds to 3 decimals: sub-millidecibel digits carry no meaning and
// make responses harder to read. Non-finite values become nil (JSON null).
// It never returns -0: a value that rounds to zero is +0.
func round3(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	v := r3(x)
	return &v
}

// txGain is the antenna gain of a tower record that states it, dBi.
func txGain(t *appliance.Tower) *float64 {
	if !t.HasTx {
		return nil
	}
	return round3(t.TxGainDBi)
}

// knownRound3 is round3 for a figure where 0 means unknown (nil).
func knownRound3(x float64) *float64 {
	if x == 0 {
		return nil
	}
	return round3(x)
}

// r3 rounds to 3 decimals (0.001 dB, metre, degree of bearing ...) and never
// returns -0 (-0.0004 is 0, not -0). Non-finite values are returned as they
// are: callers that may hold them use round3.
func r3(x float64) float64 { return roundTo(x, 1e3) }

// roundTo rounds x to a multiple of 1/scale (scale 1e6: 6 decimals) and
// never returns -0. Latitudes and longitudes use 6 decimals (r6, about
// 0.1 m).
func roundTo(x, scale float64) float64 {
	return appliance.Round(x, int(math.Round(math.Log10(scale))))
}

// TowerJSON is the wire form of a tower. The SPEC §2.1 names (id, operator,
// lat, lon, height, power, azimuth, tilt) are kept; units are in the docs.
// Latitude and longitude are rounded to 6 decimals, the other numbers to 3
// (bands as the source gives them).
type TowerJSON struct {
	ID       string  `json:"id"`
	Source   string  `json:"source"`
	Operator string  `json:"operator"`
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	HeightM  float64 `json:"height_m"` // antenna height above ground, metres
	// Height repeats HeightM under its deprecated name (OpenAPI).
	Height               float64   `json:"height"`
	Power                *float64  `json:"power"`                   // ERP, dBm; null when the source has none
	Azimuth              *float64  `json:"azimuth"`                 // degrees from north; null = omnidirectional
	Tilt                 *float64  `json:"tilt"`                    // degrees, positive down; null when unknown
	GainDBi              *float64  `json:"gain_dbi,omitempty"`      // antenna peak gain, dBi, when known
	BeamwidthDeg         *float64  `json:"beamwidth_deg,omitempty"` // horizontal 3 dB beamwidth, degrees, when known
	FrontBackDB          *float64  `json:"front_back_db,omitempty"` // front-to-back ratio, dB, when known
	AntennaID            string    `json:"antenna_id,omitempty"`    // catalogue antenna (GET /equipment/antennas/{id})
	Placement            string    `json:"placement"`
	PositionUncertaintyM float64   `json:"position_uncertainty_m"`
	Synthetic            bool      `json:"synthetic"`
	Provenance           string    `json:"provenance,omitempty"`
	StationNumber        string    `json:"station_number,omitempty"`
	Municipality         string    `json:"municipality,omitempty"`
	Address              string    `json:"address,omitempty"`
	UF                   string    `json:"uf,omitempty"`
	Technologies         []string  `json:"technologies,omitempty"`
	BandsMHz             []float64 `json:"bands_mhz,omitempty"`
}

func towerJSON(t *appliance.Tower) TowerJSON {
	return TowerJSON{
		ID: t.ID, Source: string(t.Source), Operator: t.Operator, Lat: r6(t.Lat), Lon: r6(t.Lon), HeightM: r3(t.HeightM), Height: r3(t.HeightM),
		Power: round3(t.ERPDBm), Azimuth: round3(t.AzimuthDeg), Tilt: round3(t.TiltDeg),
		GainDBi: txGain(t), BeamwidthDeg: knownRound3(t.BeamwidthDeg), FrontBackDB: knownRound3(t.FrontBackDB), AntennaID: t.AntennaID,
		Placement: string(t.Placement), PositionUncertaintyM: r3(t.UncertaintyM), Synthetic: t.Synthetic,
		Provenance: t.Provenance, StationNumber: t.StationNumber, Municipality: t.Municipality, Address: t.Address, UF: t.UF,
		Technologies: t.Technologies, BandsMHz: t.BandsMHz,
	}
}
