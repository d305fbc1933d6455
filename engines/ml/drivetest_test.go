package ml

import (
	"math"
	"testing"
)

// TestDriveTestFeatures checks the features against hand-computed values:
// 1 km and 1 GHz give FSPL 92.45 dB; a receiver on the cell clamps to 10 m.
func TestDriveTestFeatures(t *testing.T) {
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
