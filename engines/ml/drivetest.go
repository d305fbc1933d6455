package ml

import (
	"math"

	"linkplan/appliance"
)

// DriveTestSchema is the feature schema of models trained on drive tests
// without terrain or land cover (schema version 100: the drive-test family,
// apart from SPEC §2.5's 17/27-feature schemas, which need terrain
// profiles and clutter; the Dortmund LTE set has neither). Every feature is
// computed from the receiver, the serving cell and the carrier alone:
//
//	log10_distance_km   log10 of the great-circle distance, km (≥ 10 m)
//	log10_freq_mhz      log10 of the carrier frequency, MHz
//	distance_km         the distance itself, km
//	fspl_db             free-space loss, dB (32.45 + 20 log10 d_km + 20 log10 f_MHz)
//	log10_d_x_log10_f   the product of the two logarithms (Hata-like slope vs frequency)
var DriveTestSchema = FeatureSchema{Version: 100, Names: []string{
	"log10_distance_km", "log10_freq_mhz", "distance_km", "fspl_db", "log10_d_x_log10_f"}}

// DriveTestFeatures returns the DriveTestSchema features of a receiver at
// (rxLat, rxLon) served by a cell at (txLat, txLon) on freqHz: WGS84
// degrees and Hz.
func DriveTestFeatures(rxLat, rxLon, txLat, txLon, freqHz float64) []float64 {
	dKm := math.Max(appliance.LatLon{Lat: rxLat, Lon: rxLon}.DistanceM(appliance.LatLon{Lat: txLat, Lon: txLon}), 10) / 1000
	fMHz := freqHz / 1e6
	ld, lf := math.Log10(dKm), math.Log10(fMHz)
	return []float64{ld, lf, dKm, 32.45 + 20*ld + 20*lf, ld * lf}
}

// FSPLFeature is the index of fspl_db in DriveTestSchema.
const FSPLFeature = 3
