package ml

import (
	"math"
	"testing"
)

// TestDriveTestFeatures checks the features against hand-computed values:
// 1 km and 1 GHz give FSPL 92.45 dB; a receiver on the cell clamps to 10 m.
func TestDriveTestFeatures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                          string
		rxLat, rxLon, txLat, txLon, f float64
		dKm, fspl                     float64
	}{
		{"1 km north at 1 GHz", 0.008993216, 0, 0, 0, 1e9, 1, 92.45},
		{"on the cell clamps to 10 m", -22.9, -43.2, -22.9, -43.2, 700e6, 0.01, 32.45 + 20*math.Log10(0.01) + 20*math.Log10(700)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := DriveTestFeatures(tc.rxLat, tc.rxLon, tc.txLat, tc.txLon, tc.f)
			if len(x) != len(DriveTestSchema.Names) {
				t.Fatalf("%d features, schema %d", len(x), len(DriveTestSchema.Names))
			}
			if math.Abs(x[2]-tc.dKm) > 1e-4 || math.Abs(x[FSPLFeature]-tc.fspl) > 1e-3 || math.Abs(x[0]*x[1]-x[4]) > 1e-12 {
				t.Fatalf("features %v", x)
			}
		})
	}
}

// TestDriveTestFeaturesFor: schema 100 and 101 give their own vectors (101
// is 100's log distance and free-space loss), any other version fails.
func TestDriveTestFeaturesFor(t *testing.T) {
	t.Parallel()
	v1 := DriveTestFeatures(51.49, 7.41, 51.48, 7.40, 1845e6)
	cases := []struct {
		name    string
		version int
		want    []float64
		ok      bool
	}{
		{"schema 100", 100, v1, true},
		{"schema 101", DriveTestSchemaV2Version, []float64{v1[0], v1[FSPLFeature]}, true},
		{"SPEC 2.5 schema 1 is not a drive-test schema", 1, nil, false},
		{"unknown 102", 102, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := DriveTestFeaturesFor(tc.version, 51.49, 7.41, 51.48, 7.40, 1845e6)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if len(x) != len(tc.want) {
				t.Fatalf("%d features, want %d", len(x), len(tc.want))
			}
			for i := range x {
				if x[i] != tc.want[i] {
					t.Fatalf("feature %d = %v, want %v", i, x[i], tc.want[i])
				}
			}
		})
	}
	if s := DriveTestSchemaV2(); len(s.Names) != len(DriveTestFeaturesV2(0, 0, 0.01, 0, 9e8)) || s.Version != 101 {
		t.Fatalf("schema %+v does not match the vector", s)
	}
}

// TestSectorPatternDB checks the 3GPP pattern at its landmarks.
func TestSectorPatternDB(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		off, want float64
	}{
		{"boresight", 0, 0},
		{"half the 65 degree beam width is 3 dB", 32.5, 3},
		{"negative side is symmetric", -32.5, 3},
		{"65 degrees is 12 dB", 65, 12},
		{"backlobe capped at 25 dB", 180, 25},
		{"a full turn folds back to boresight", 360, 0},
		{"350 degrees is 10 degrees off", 350, 12 * (10.0 / 65) * (10.0 / 65)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SectorPatternDB(tc.off); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("SectorPatternDB(%v) = %v, want %v", tc.off, got, tc.want)
			}
		})
	}
}

// TestCircularMeanDeg: bearings across north average to north; opposite
// bearings have no mean.
func TestCircularMeanDeg(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		bearings []float64
		want     float64
		ok       bool
	}{
		{"across north", []float64{350, 10}, 0, true},
		{"east", []float64{80, 90, 100}, 90, true},
		{"west of south", []float64{200, 220}, 210, true},
		{"opposite cancel", []float64{0, 180}, 0, false},
		{"none", nil, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CircularMeanDeg(tc.bearings)
			if ok != tc.ok || (ok && math.Abs(math.Remainder(got-tc.want, 360)) > 1e-9) {
				t.Fatalf("CircularMeanDeg(%v) = %v, %v; want %v, %v", tc.bearings, got, ok, tc.want, tc.ok)
			}
		})
	}
}
