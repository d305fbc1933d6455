package api

import (
	"math"

	"linkplan/appliance"
)

// round3 rounds to 3 decimals: sub-millidecibel digits carry no meaning and
// make responses harder to read. Non-finite values become nil (JSON null).
func round3(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	v := math.Round(x*1000) / 1000
	return &v
}

func r3(x float64) float64 { return math.Round(x*1000) / 1000 }

// TowerJSON is the wire form of a tower. The SPEC §2.1 names (id, operator,
// lat, lon, height, power, azimuth, tilt) are kept; units are in the docs.
type TowerJSON struct {
	ID                   string    `json:"id"`
	Source               string    `json:"source"`
	Operator             string    `json:"operator"`
	Lat                  float64   `json:"lat"`
	Lon                  float64   `json:"lon"`
	Height               float64   `json:"height"`  // antenna height above ground, metres
	Power                *float64  `json:"power"`   // ERP, dBm; null when the source has none
	Azimuth              *float64  `json:"azimuth"` // degrees from north; null = omnidirectional
	Tilt                 *float64  `json:"tilt"`    // degrees, positive down; null when unknown
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
		ID: t.ID, Source: string(t.Source), Operator: t.Operator, Lat: t.Lat, Lon: t.Lon, Height: t.HeightM,
		Power: round3(t.ERPDBm), Azimuth: round3(t.AzimuthDeg), Tilt: round3(t.TiltDeg),
		Placement: string(t.Placement), PositionUncertaintyM: t.UncertaintyM, Synthetic: t.Synthetic,
		Provenance: t.Provenance, StationNumber: t.StationNumber, Municipality: t.Municipality, Address: t.Address, UF: t.UF,
		Technologies: t.Technologies, BandsMHz: t.BandsMHz,
	}
}
