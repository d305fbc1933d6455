package p1812_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

// hilly is a synthetic terrain along a radial: heights, metres, at x km
// from the transmitter, with its Lipschitz constant lip (m/km), so that
// max(H(a), H(b)) + lip·(b−a)/2 bounds H on [a, b].
type hilly struct {
	amp, wave, phase [3]float64
	base, ramp, lip  float64
}

func newHilly(rng *rand.Rand) hilly {
	var h hilly
	h.base, h.ramp = 100+400*rng.Float64(), -5+10*rng.Float64()
	h.lip = math.Abs(h.ramp)
	for k, w := range []float64{1.3, 0.37, 0.11} {
		h.amp[k] = (0.2 + rng.Float64()) * 150 / float64(k+1)
		h.wave[k] = w * (0.7 + 0.6*rng.Float64())
		h.phase[k] = 2 * math.Pi * rng.Float64()
		h.lip += h.amp[k] / h.wave[k]
	}
	return h
}

func (h hilly) at(x float64) float64 {
	z := h.base + h.ramp*x
	for k := range h.amp {
		z += h.amp[k] * math.Sin(x/h.wave[k]+h.phase[k])
	}
	return math.Max(z, 0)
}

func pixelSeed(t *testing.T) uint64 {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("P1812_SEED"); v != "" {
		var err error
		if s, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("SEED=%d (rerun with P1812_SEED=%d)", s, s)
	return s
}

// TestSweepMatchesPredict: Sweep.Loss on pixels along a radial of
// synthetic hilly terrain (random, printed seed) against Predict on each
// pixel's own profile: every pixel within 1 dB (the maxima are exact; the
// smooth surface is integrated from the radial), and far fewer exact
// samples than the profiles hold.
func TestSweepMatchesPredict(t *testing.T) {
	rng := rand.New(rand.NewPCG(pixelSeed(t), 1812))
	const xr = 0.09 // km
	for trial := range 4 {
		ter := newHilly(rng)
		cos := 1 - 1e-6*rng.Float64()
		n := 600 // 54 km
		z := make([]float64, n)
		for k := range z {
			z[k] = ter.at(float64(k) * xr)
		}
		upper := make([]float64, n-1)
		for i := range upper {
			upper[i] = math.Max(z[i], z[i+1]) + ter.lip*xr/2
		}
		var sw p1812.Sweep
		if !sw.Reset(xr, z, upper) {
			t.Fatal("Reset refused a good radial")
		}
		base := p1812.Input{FreqGHz: 0.9, TimePct: 50, HtgM: 50, HrgM: 10, Pol: p1812.Vertical,
			PhiT: -22.95, LamT: -43.24, DeltaN: p1812.DefaultDeltaN, N0: p1812.DefaultN0, DctKm: 500, DcrKm: 500}
		var worst, sampled, total float64
		pixels := 0
		for dKm := 1.0; dKm < 53; dKm += 0.07 + 0.05*rng.Float64() {
			steps := int(math.Ceil(dKm / xr))
			xi := dKm / float64(steps)
			own := func(j int) float64 { return ter.at(float64(j) * xi * cos) }
			exact := func(_ int, js []int32, hs []float64) error {
				for k, j := range js {
					hs[k] = own(int(j))
				}
				sampled += float64(len(js))
				return nil
			}
			in := base
			in.PhiR, in.LamR = -22.95-dKm/111, -43.24
			got, err := sw.Loss(&in, &p1812.Pixel{DistKm: dKm, Steps: steps, GroundM: own(steps), CosOff: cos, Exact: exact})
			if err != nil {
				t.Fatal(err)
			}
			full := in
			full.DKm, full.HMasl = make([]float64, steps+1), make([]float64, steps+1)
			for j := range full.DKm {
				full.DKm[j], full.HMasl[j] = float64(j)*xi, own(j)
			}
			want, err := p1812.Predict(full)
			if err != nil {
				t.Fatal(err)
			}
			if diff := math.Abs(got - want.LbDB); diff > worst {
				worst = diff
				if diff > 1 {
					t.Errorf("trial %d, %.3f km: Loss %.3f dB, Predict %.3f dB", trial, dKm, got, want.LbDB)
				}
			}
			total += float64(steps - 1)
			pixels++
		}
		t.Logf("trial %d: %d pixels, worst %.4f dB, %.1f %% of the interior samples taken exactly", trial, pixels, worst, 100*sampled/total)
		if sampled > total/2 {
			t.Errorf("trial %d: %.0f of %.0f samples taken exactly: the bounds rule out too few", trial, sampled, total)
		}
	}
}

// TestSweepRefuses: Reset refuses a radial it cannot serve, and Loss an
// input it does not take (appliance.ErrInvalid), or a failing Exact
// (its error wrapped).
func TestSweepRefuses(t *testing.T) {
	var sw p1812.Sweep
	z := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	up := make([]float64, len(z)-1)
	for i := range up {
		up[i] = z[i+1] + 1
	}
	if sw.Reset(0.09, z, up[:3]) || sw.Reset(0, z, up) || sw.Reset(0.09, []float64{1, math.NaN(), 2}, []float64{3, 3}) {
		t.Fatal("Reset took a radial it cannot serve")
	}
	if !sw.Reset(0.09, z, up) {
		t.Fatal("Reset refused a good radial")
	}
	in := p1812.Input{FreqGHz: 0.9, TimePct: 50, HtgM: 50, HrgM: 10, Pol: p1812.Vertical,
		PhiT: -22.95, LamT: -43.24, PhiR: -22.96, LamR: -43.24, DeltaN: 45, N0: 330, DctKm: 500, DcrKm: 500}
	exact := func(_ int, js []int32, hs []float64) error {
		for k := range js {
			hs[k] = 50
		}
		return nil
	}
	ok := p1812.Pixel{DistKm: 0.8, Steps: 9, GroundM: 100, CosOff: 1, Exact: exact}
	if _, err := sw.Loss(&in, &ok); err != nil {
		t.Fatalf("a good pixel: %v", err)
	}
	for name, mod := range map[string]func(*p1812.Input, *p1812.Pixel){
		"few steps":      func(_ *p1812.Input, p *p1812.Pixel) { p.Steps = 3 },
		"beyond radial":  func(_ *p1812.Input, p *p1812.Pixel) { p.DistKm = 2 },
		"deygout":        func(in *p1812.Input, _ *p1812.Pixel) { in.Diffraction = p1812.DeygoutMethod },
		"bad frequency":  func(in *p1812.Input, _ *p1812.Pixel) { in.FreqGHz = 60 },
		"ground not set": func(_ *p1812.Input, p *p1812.Pixel) { p.GroundM = math.NaN() },
	} {
		in2, px := in, ok
		mod(&in2, &px)
		if _, err := sw.Loss(&in2, &px); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("%s: got %v, want appliance.ErrInvalid", name, err)
		}
	}
	boom := errors.New("no terrain")
	bad := ok
	bad.Exact = func(int, []int32, []float64) error { return boom }
	if _, err := sw.Loss(&in, &bad); !errors.Is(err, boom) {
		t.Errorf("failing Exact: got %v", err)
	}
}
