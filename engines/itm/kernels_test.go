package itm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveFit is the textbook weighted least-squares line (trapezoidal weights,
// normal equations on absolute indices, fresh slices): the baseline for
// fitRange.
func naiveFit(z []float64, xi, dStart, dEnd float64) (y0, yN float64) {
	np := len(z) - 1
	iStart := int(fdim(dStart/xi, 0))
	iEnd := np - int(fdim(float64(np), dEnd/xi))
	if iEnd <= iStart {
		iStart = int(fdim(float64(iStart), 1))
		iEnd = np - int(fdim(float64(np), float64(iEnd)+1))
	}
	n := iEnd - iStart + 1
	x := make([]float64, n)
	w := make([]float64, n)
	for i := range n {
		x[i] = float64(iStart + i)
		w[i] = 1
	}
	w[0], w[n-1] = 0.5, 0.5
	var sw, swx, swxx, swy, swxy float64
	for i := range n {
		y := z[iStart+i]
		sw += w[i]
		swx += w[i] * x[i]
		swxx += w[i] * x[i] * x[i]
		swy += w[i] * y
		swxy += w[i] * x[i] * y
	}
	b := (sw*swxy - swx*swy) / (sw*swxx - swx*swx)
	a := (swy - b*swx) / sw
	return a, a + b*float64(np)
}

// naiveDeltaH computes Δh with naiveFit and a full sort of the deviations.
func naiveDeltaH(z []float64, xi, dStart, dEnd float64) float64 {
	var s [maxDeltaHSamples]float64
	n, p10, p90, ok := resampleForDeltaH(z, xi, dStart, dEnd, &s)
	if !ok {
		return 0
	}
	y0, yN := naiveFit(s[:n], 1, 0, float64(n-1))
	diffs := make([]float64, n)
	for j := range n {
		diffs[j] = s[j] - (y0 + (yN-y0)*float64(j)/float64(n-1))
	}
	slices.Sort(diffs)
	slices.Reverse(diffs)
	return (diffs[p10-1] - diffs[p90]) / (1 - 0.8*math.Exp(-(dEnd-dStart)/50e3))
}

func naiveKernels() terrainKernels {
	return terrainKernels{fit: naiveFit, deltaH: naiveDeltaH}
}

// randomTerrain is a seeded rough profile of np+1 elevations, metres.
func randomTerrain(r *rand.Rand, np int) []float64 {
	z := make([]float64, np+1)
	h := 200 + 500*r.Float64()
	for i := range z {
		h += 8 * r.NormFloat64()
		z[i] = h + 60*math.Sin(float64(i)/37) + 25*math.Sin(float64(i)/5.3)
	}
	return z
}

func TestKernelsAgreeWithNaive(t *testing.T) {
	t.Parallel()
	seed := uint64(20240611)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for c := range 300 {
		np := 3 + r.IntN(2000)
		xi := 10 + 200*r.Float64()
		z := randomTerrain(r, np)
		d := float64(np) * xi
		a, b := r.Float64()*d, r.Float64()*d
		ds, de := min(a, b), max(a, b)

		y0, yN := fitRange(z, xi, ds, de)
		n0, nN := naiveFit(z, xi, ds, de)
		if math.Abs(y0-n0) > 1e-6 || math.Abs(yN-nN) > 1e-6 {
			t.Fatalf("case %d: fit (%v, %v), naive (%v, %v)", c, y0, yN, n0, nN)
		}
		dh := deltaHFromProfile(z, xi, ds, de)
		nd := naiveDeltaH(z, xi, ds, de)
		if math.Abs(dh-nd) > 1e-6 {
			t.Fatalf("case %d: Δh %v, naive %v", c, dh, nd)
		}
	}
}

func TestKthLargestMatchesSort(t *testing.T) {
	t.Parallel()
	seed := uint64(7)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for c := range 500 {
		n := 1 + r.IntN(250)
		a := make([]float64, n)
		for i := range a {
			a[i] = math.Round(r.NormFloat64()*4) / 2 // many ties
		}
		sorted := slices.Clone(a)
		slices.Sort(sorted)
		slices.Reverse(sorted)
		k := r.IntN(n)
		if got := kthLargest(slices.Clone(a), k); got != sorted[k] {
			t.Fatalf("case %d: kthLargest(k=%d) = %v, want %v", c, k, got, sorted[k])
		}
	}
}

func benchProfile() []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	return randomTerrain(r, 1111)
}

func BenchmarkFitRange(b *testing.B) {
	z := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		fitRange(z, 90, 300, 99000)
	}
}

func BenchmarkFitRangeNaive(b *testing.B) {
	z := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		naiveFit(z, 90, 300, 99000)
	}
}

func BenchmarkDeltaH(b *testing.B) {
	z := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		deltaHFromProfile(z, 90, 300, 99000)
	}
}

func BenchmarkDeltaHNaive(b *testing.B) {
	z := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		naiveDeltaH(z, 90, 300, 99000)
	}
}

// BenchmarkP2P100kmNaive is BenchmarkP2P100km (bench_test.go) with the
// straightforward least-squares fit and a full sort for Δh.
func BenchmarkP2P100kmNaive(b *testing.B) {
	in := P2PInput{PFL: benchPFL(), HTxM: 30, HRxM: 10,
		ClimateCode: ClimateContinentalSubtropical, N0: 330, FreqMHz: 700, Pol: PolVertical,
		Epsilon: 15, SigmaSm: 0.005, MdVar: MdVarAccidental}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p2pWith(naiveKernels(), in, 90, 50, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPFL is the profile of BenchmarkP2P100km (bench_test.go): 1111
// intervals of 90 m drawn with the same generator and seed.
func benchPFL() []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	np, xi := 1111, 90.0
	pfl := make([]float64, np+3)
	pfl[0], pfl[1] = float64(np), xi
	h := 50 + 700*r.Float64()
	amp := 300 * r.Float64()
	period := 20 + 200*r.Float64()
	for i := 0; i <= np; i++ {
		h += 6 * r.NormFloat64()
		pfl[i+2] = math.Max(0, h+amp*math.Sin(float64(i)/period)+15*math.Sin(float64(i)/4.1))
	}
	return pfl
}
