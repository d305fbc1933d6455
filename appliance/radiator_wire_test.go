package appliance

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// TestRadiatorBinaryRoundTrip: a radiator decoded from its encoding is the
// same radiator, every field and every loss bit for bit (a work unit's
// antenna on a worker); malformed or oversized bytes and invalid cuts are
// refused as invalid.
func TestRadiatorBinaryRoundTrip(t *testing.T) {
	cut := func(scale float64) PatternCut {
		var c PatternCut
		for a := 0.0; a < 360; a += 10 {
			c.AnglesDeg = append(c.AnglesDeg, a)
			c.AttDB = append(c.AttDB, scale*math.Min(a, 360-a)/10)
		}
		return c
	}
	pat := &AntennaPattern{H: cut(1.5), V: cut(2)}
	for _, tc := range []struct {
		name string
		r    Radiator
	}{
		{"generic sector tilted", NewGenericRadiator(GenericSector{VBeamwidthDeg: 7}, 120, 4)},
		{"generic sector no tilt", NewGenericRadiator(GenericSector{}, 30, math.NaN())},
		{"generic omni tilted", NewGenericRadiator(GenericSector{}, math.NaN(), 2)},
		{"pattern", NewPatternRadiator(pat, 250, 3, "test antenna")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.r.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Radiator
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(tc.r.azimuth) != math.IsNaN(got.azimuth) {
				t.Fatalf("azimuth %v, want %v", got.azimuth, tc.r.azimuth)
			}
			want := tc.r
			if math.IsNaN(want.azimuth) {
				want.azimuth, got.azimuth = 0, 0
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
			}
			got.azimuth = tc.r.azimuth
			for az := 0.0; az < 360; az += 7.5 {
				for el := -20.0; el <= 90; el += 5.5 {
					if a, b := tc.r.LossDB(az, el), got.LossDB(az, el); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("LossDB(%g, %g) = %v, want %v", az, el, b, a)
					}
				}
			}
			if got.Label() != tc.r.Label() {
				t.Fatalf("label %q, want %q", got.Label(), tc.r.Label())
			}
		})
	}
	ok := NewPatternRadiator(pat, 0, 0, "x")
	good, _ := ok.MarshalBinary()
	bad := Radiator{pattern: &AntennaPattern{H: PatternCut{AnglesDeg: []float64{0, 1}, AttDB: []float64{0}}, V: cut(1)}, vertical: true}
	badBytes, _ := bad.MarshalBinary()
	for name, b := range map[string][]byte{
		"empty": nil, "truncated": good[:len(good)/2], "garbage": {1, 2, 3, 4},
		"oversized": make([]byte, MaxRadiatorBytes+1), "invalid cut": badBytes,
	} {
		var r Radiator
		if err := r.UnmarshalBinary(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

// FuzzRadiatorBinary: no bytes stop a worker: each decodes to a radiator
// whose losses can be computed, or is refused as invalid.
func FuzzRadiatorBinary(f *testing.F) {
	for _, r := range []Radiator{NewGenericRadiator(GenericSector{}, 90, 3), NewGenericRadiator(GenericSector{}, math.NaN(), math.NaN())} {
		b, _ := r.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Radiator
		if err := r.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%v", err)
			}
			return
		}
		_ = r.LossDB(45, 2)
		_ = r.Label()
	})
}
