package p1812_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/engines/p1812"
)

// benchSeed fixes the synthetic terrain of the benchmarks.
const benchSeed = 1812

// synthetic100km returns a deterministic 100 km input sampled every 90 m
// (1112 points): a seeded random walk over two long ridges, 10 m clutter,
// inland, 0.6 GHz, p = 10 %, south-east Brazil coordinates.
func synthetic100km() p1812.Input {
	const n = 1112
	rng := rand.New(rand.NewPCG(benchSeed, 0))
	step := 100.0 / (n - 1)
	in := p1812.Input{
		FreqGHz: 0.6, TimePct: 10, LocPct: 50, HtgM: 40, HrgM: 10, Pol: p1812.Vertical,
		PhiT: -22.9, LamT: -43.2, PhiR: -22.3, LamR: -43.9,
		DeltaN: p1812.DefaultDeltaN, N0: p1812.DefaultN0, DctKm: 500, DcrKm: 500,
		DKm: make([]float64, n), HMasl: make([]float64, n), RM: make([]float64, n), Zone: make([]int, n),
	}
	walk := 0.0
	for i := range n {
		d := step * float64(i)
		walk += rng.NormFloat64() * 4
		in.DKm[i] = d
		in.HMasl[i] = 600 + 250*math.Sin(d/17) + 120*math.Sin(d/5.3+1) + walk
		in.RM[i] = 10
		in.Zone[i] = p1812.ZoneInland
	}
	in.DKm[n-1] = 100
	return in
}

// BenchmarkPredict100km is one full P.1812-8 prediction on a 100 km
// profile at 90 m spacing.
func BenchmarkPredict100km(b *testing.B) {
	in := synthetic100km()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p1812.Predict(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredict100kmDeygout is the same prediction with the Deygout
// diffraction option.
func BenchmarkPredict100kmDeygout(b *testing.B) {
	in := synthetic100km()
	in.Diffraction = p1812.DeygoutMethod
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p1812.Predict(in); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDiffraction returns what both diffraction benchmarks need.
func benchDiffraction() (in p1812.Input, hts, hrs, hstd, hsrd, ae, ab float64) {
	in = synthetic100km()
	n := len(in.DKm)
	hts = in.HMasl[0] + in.HtgM
	hrs = in.HMasl[n-1] + in.HrgM
	hstd, hsrd = p1812.DiffractionHeights(in.DKm, in.HMasl, hts, hrs)
	ae = p1812.EarthRadius * 157 / (157 - in.DeltaN)
	ab = p1812.EarthRadius * 3
	return in, hts, hrs, hstd, hsrd, ae, ab
}

// naiveDeltaBullington computes the median and β0 delta-Bullington losses
// the straightforward way: build the clutter-raised profile, then run the
// sub-API once per effective Earth radius (four profile passes).
func naiveDeltaBullington(in p1812.Input, hts, hrs, hstd, hsrd, ae, ab float64) (r50, rb p1812.DeltaBullingtonResult) {
	g := make([]float64, len(in.HMasl))
	for i := range g {
		g[i] = in.HMasl[i] + in.RM[i]
	}
	di := p1812.DiffractionInput{DKm: in.DKm, HM: g, HtsM: hts, HrsM: hrs, HstdM: hstd, HsrdM: hsrd,
		FreqGHz: in.FreqGHz, Pol: in.Pol}
	di.ApKm = ae
	r50 = p1812.DeltaBullington(di)
	di.ApKm = ab
	rb = p1812.DeltaBullington(di)
	return r50, rb
}

// BenchmarkDeltaBullington100km is the fused single-pass diffraction of
// Predict (both radii, both Bullington profiles in two passes, no
// allocation).
func BenchmarkDeltaBullington100km(b *testing.B) {
	in, hts, hrs, hstd, hsrd, ae, ab := benchDiffraction()
	b.ReportAllocs()
	for b.Loop() {
		p1812.DeltaBullingtonPair(in.DKm, in.HMasl, in.RM, hts, hrs, hstd, hsrd, ae, ab, in.FreqGHz, 0, in.Pol)
	}
}

// BenchmarkDeltaBullington100kmNaive is the naive baseline of
// BenchmarkDeltaBullington100km.
func BenchmarkDeltaBullington100kmNaive(b *testing.B) {
	in, hts, hrs, hstd, hsrd, ae, ab := benchDiffraction()
	b.ReportAllocs()
	for b.Loop() {
		naiveDeltaBullington(in, hts, hrs, hstd, hsrd, ae, ab)
	}
}

// TestFusedMatchesNaive checks that the fused pass of Predict and the naive
// sub-API calls agree (to 1e-9 dB: they differ only in rounding order).
func TestFusedMatchesNaive(t *testing.T) {
	t.Parallel()
	in, hts, hrs, hstd, hsrd, ae, ab := benchDiffraction()
	for _, f := range []float64{0.03, 0.6, 6} {
		in.FreqGHz = f
		f50, fb := p1812.DeltaBullingtonPair(in.DKm, in.HMasl, in.RM, hts, hrs, hstd, hsrd, ae, ab, f, 0, in.Pol)
		n50, nb := naiveDeltaBullington(in, hts, hrs, hstd, hsrd, ae, ab)
		for _, pair := range [][2]p1812.DeltaBullingtonResult{{f50, n50}, {fb, nb}} {
			a, b := pair[0], pair[1]
			if math.Abs(a.LdDB-b.LdDB) > 1e-9 || math.Abs(a.LbullaDB-b.LbullaDB) > 1e-9 ||
				math.Abs(a.LbullsDB-b.LbullsDB) > 1e-9 || a.LdsphDB != b.LdsphDB {
				t.Errorf("f=%g GHz: fused %+v naive %+v", f, a, b)
			}
		}
	}
}
