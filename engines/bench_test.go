package engines_test

import (
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
)

// link100km is the real 100 km P.1812 validation profile
// (b2iseac_rural_land_100km) resampled every 90 m, as the planner samples
// the 3" terrain grid: 1113 points.
func link100km(tb testing.TB) appliance.LinkInput {
	prof := readP1812Profile(tb, "profiles/b2iseac_rural_land_100km.csv")
	p := &appliance.PathProfile{}
	for i := range prof.dKm {
		p.DistancesM = append(p.DistancesM, prof.dKm[i]*1000)
		p.HeightsM = append(p.HeightsM, prof.hM[i])
	}
	return appliance.LinkInput{Tx: appliance.LatLon{Lat: 53.1833333333, Lon: -6.3333333333}, Rx: appliance.LatLon{Lat: 53.61167463795, Lon: -5.0114558053},
		TxHeightM: 60, RxHeightM: 10, FreqMHz: 700, Profile: resample(p, 90)}
}

// BenchmarkCompare100km runs every engine of Compare on the 100 km path.
func BenchmarkCompare100km(b *testing.B) {
	reg := newRegistry(b)
	in := link100km(b)
	b.ReportAllocs()
	for b.Loop() {
		rows := reg.Compare(b.Context(), in)
		if rows[1].FellBack || rows[2].FellBack {
			b.Fatalf("p1812/itm fell back: %+v", rows)
		}
	}
}

// BenchmarkEngine100km times each engine alone on the 100 km path through
// PredictWithFallback (p1411 on this path is a refusal answered by fspl).
// The fspl line is the naive baseline: the cost of the geometry pass that
// every adapter also pays for LOSClear/FresnelOK.
func BenchmarkEngine100km(b *testing.B) {
	reg := newRegistry(b)
	in := link100km(b)
	b.Logf("profile: %d points, %.1f km", in.Profile.Len(), in.Profile.LengthM()/1000)
	for _, id := range engines.CompareEngines() {
		b.Run(string(id), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, err := reg.PredictWithFallback(b.Context(), id, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
