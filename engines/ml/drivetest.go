package ml

import (
	"fmt"
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

// DriveTestSchemaV2Version is the version of DriveTestSchemaV2.
const DriveTestSchemaV2Version = 101

// DriveTestSchemaV2 returns the feature schema of the second drive-test
// family (schema version 101, model "drivetest-gbm-v2"): the receiver–cell
// distance and the free-space loss, nothing else:
//
//	log10_distance_km   log10 of the great-circle distance, km (≥ 10 m)
//	fspl_db             free-space loss, dB (32.45 + 20 log10 d_km + 20 log10 f_MHz)
//
// The model over them is an additive one (DriveTestV2Params: depth-one
// trees), so the prediction is f(distance) + g(free-space loss): a fitted
// distance slope and EIRP level on top of free space, with no interaction
// that could learn one operator's cells. Schema 100's extra columns
// (frequency, distance in km, their product) and every label-free batch
// feature tried (estimated sector azimuth and the 3GPP pattern loss, the
// served radius of a cell, inter-site distance, the nearest other cell,
// receiver altitude) made the leave-one-operator-out error on the Dortmund
// LTE set worse, not better (engines/ml/shipped/DORTMUND.md), so they are
// not in it. Every feature is known before measuring and needs only the
// row itself: a point prediction needs no batch.
func DriveTestSchemaV2() FeatureSchema {
	return FeatureSchema{Version: DriveTestSchemaV2Version, Names: []string{"log10_distance_km", "fspl_db"}}
}

// DriveTestFeaturesV2 returns the DriveTestSchemaV2 features of a receiver
// at (rxLat, rxLon) served by a cell at (txLat, txLon) on freqHz: WGS84
// degrees and Hz.
func DriveTestFeaturesV2(rxLat, rxLon, txLat, txLon, freqHz float64) []float64 {
	x := DriveTestFeatures(rxLat, rxLon, txLat, txLon, freqHz)
	return []float64{x[0], x[FSPLFeature]}
}

// DriveTestFeaturesFor returns the features of drive-test schema version
// (100 or 101) for one row, or an error wrapping appliance.ErrInvalid
// naming the version when it is not a drive-test schema.
func DriveTestFeaturesFor(version int, rxLat, rxLon, txLat, txLon, freqHz float64) ([]float64, error) {
	switch version {
	case DriveTestSchema.Version:
		return DriveTestFeatures(rxLat, rxLon, txLat, txLon, freqHz), nil
	case DriveTestSchemaV2Version:
		return DriveTestFeaturesV2(rxLat, rxLon, txLat, txLon, freqHz), nil
	}
	return nil, fmt.Errorf("drive-test features: schema version %d is not a drive-test schema (%d or %d): %w",
		version, DriveTestSchema.Version, DriveTestSchemaV2Version, appliance.ErrInvalid)
}

// DriveTestV2Params returns the GBM settings of the drive-test v2 model:
// 200 depth-one trees (stumps) at learning rate 0.05, each leaf holding at
// least 1,000 rows, L2 1. Stumps make the model additive in its features;
// with deeper trees (schema 100's 8 leaves of ≥ 400 rows) the model fits
// the training operator's cells and transfers worse to another operator.
func DriveTestV2Params() GBMParams {
	return GBMParams{Iterations: 200, LearningRate: 0.05, MaxLeafNodes: 2, MaxDepth: 1, MinSamplesLeaf: 1000, L2: 1}
}

// SectorPatternDB is the 3GPP TR 36.814 horizontal sector pattern loss
// min(12 (Δφ/65°)², 25) dB at offDeg degrees off boresight (any sign, any
// turn: it is folded into 0…180°).
func SectorPatternDB(offDeg float64) float64 {
	d := math.Abs(math.Remainder(offDeg, 360))
	return math.Min(12*(d/65)*(d/65), 25)
}

// CircularMeanDeg returns the circular mean of bearings in degrees
// (0…360), and false when it is undefined (no bearing, or bearings that
// cancel out). It estimates a sector's azimuth from the bearings
// cell → receiver of the rows the cell serves: label-free geometry.
func CircularMeanDeg(bearings []float64) (float64, bool) {
	var s, c float64
	for _, b := range bearings {
		r := b * math.Pi / 180
		s += math.Sin(r)
		c += math.Cos(r)
	}
	if math.Hypot(s, c) < 1e-9*float64(max(1, len(bearings))) {
		return 0, false
	}
	m := math.Atan2(s, c) * 180 / math.Pi
	if m < 0 {
		m += 360
	}
	return m, true
}
