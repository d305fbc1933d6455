package fspl_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/fspl"
)

// pixelSeed returns $SEED or a fixed default, and logs it.
func pixelSeed(t *testing.T) uint64 {
	t.Helper()
	s := uint64(22)
	if v := os.Getenv("SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SEED: %v", err)
		}
		s = n
	}
	t.Logf("seed %d (SEED=%d to repeat)", s, s)
	return s
}

// pixelWorld is a synthetic radial on a flat map: the radial runs along
// x from the transmitter at (0, 0); pixel p lies DistM away at an angle
// whose sine is SinOff, and sample j of its own profile stands at
// s·(CosOff, SinOff), s = j·DistM/Steps. The ground is height(x, y):
// rolling hills with sharp ridges.
type pixelWorld struct {
	ridges             [][3]float64 // x, height, half-width (metres)
	amp, wave, groundM float64
}

func (w *pixelWorld) height(x, y float64) float64 {
	h := w.groundM + w.amp*math.Sin(x/w.wave)*math.Cos(y/(0.7*w.wave)) + 0.3*w.amp*math.Sin(x/(0.13*w.wave)+y/90)
	for _, r := range w.ridges {
		if a := math.Abs(x + 0.2*y - r[0]); a < r[2] {
			h += r[1] * (1 - a/r[2])
		}
	}
	return h
}

// TestIssue22_FSPLPixelLoss: PixelLoss equals PredictLossDB on each
// pixel's own profile bit for bit, on random synthetic radials (printed
// seed) whose bounds are true bounds with random slack, with and without
// the cap, and with a segment without terrain (its pixels no-data).
func TestIssue22_FSPLPixelLoss(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(pixelSeed(t), 22))
	for trial := range 40 {
		e := fspl.New()
		switch trial % 4 {
		case 1:
			e.CapDB = 12 // the cap is reached often
		case 2:
			e.CapDB = -1 // no floor: the exact largest ν matters
		}
		missing := trial%5 == 3
		t.Run(fmt.Sprintf("trial%d", trial), func(t *testing.T) {
			w := &pixelWorld{amp: 20 + 200*rng.Float64(), wave: 500 + 3000*rng.Float64(), groundM: 50 * rng.Float64()}
			for range rng.IntN(6) {
				w.ridges = append(w.ridges, [3]float64{20000 * rng.Float64(), 400 * rng.Float64(), 30 + 300*rng.Float64()})
			}
			xr := 30 + 60*rng.Float64()
			step := xr * (0.5 + rng.Float64())
			segs := int(20000/xr) + 2
			radial := &appliance.PathProfile{}
			for i := range segs + 1 {
				radial.DistancesM = append(radial.DistancesM, float64(i)*xr)
				radial.HeightsM = append(radial.HeightsM, w.height(float64(i)*xr, 0))
			}
			radial.HeightsM[0] += 300 * rng.Float64() // a transmitter on a hill
			in := appliance.LinkInput{TxHeightM: 5 + 50*rng.Float64(), RxHeightM: 1 + 20*rng.Float64(), FreqMHz: 100 + 5000*rng.Float64(), Profile: radial}
			var pixels []appliance.PixelQuery
			for d := 40.0; d < float64(segs-2)*xr*0.98; d += 37 + 150*rng.Float64() {
				so := (rng.Float64()*2 - 1) * 0.01
				co := math.Sqrt(1 - so*so)
				pixels = append(pixels, appliance.PixelQuery{DistM: d, Steps: int(appliance.ProfileSteps(d, step)), GroundM: w.height(d*co, d*so),
					SinOff: so, CosOff: co, SeaKnown: true})
			}
			seg := func(q *appliance.PixelQuery, j int) int {
				s := float64(j) * (q.DistM / float64(q.Steps))
				return min(int(s*q.CosOff/xr), segs-1)
			}
			at := func(q *appliance.PixelQuery, j int) float64 {
				s := float64(j) * (q.DistM / float64(q.Steps))
				return w.height(s*q.CosOff, s*q.SinOff)
			}
			hole := -1
			if missing {
				hole = segs / 3
			}
			upper := make([]float64, segs)
			for i := range upper {
				upper[i] = math.Inf(-1)
			}
			for p := range pixels {
				q := &pixels[p]
				for j := 1; j < q.Steps; j++ {
					upper[seg(q, j)] = max(upper[seg(q, j)], at(q, j))
				}
			}
			for i := range upper {
				if math.IsInf(upper[i], -1) {
					upper[i] = w.groundM
				}
				upper[i] += 30 * rng.Float64() * rng.Float64()
			}
			if hole >= 0 {
				upper[hole] = math.Inf(1)
			}
			asked, total := 0, 0
			r := &appliance.PixelRadial{SpacingM: xr, UpperM: upper, Pixels: pixels, Fallback: make([]bool, len(pixels)),
				Exact: func(p int, js []int32, hs []float64) error {
					q := &pixels[p]
					for k, j := range js {
						if int(j) < 1 || int(j) >= q.Steps {
							return fmt.Errorf("sample %d of pixel %d outside 1..%d", j, p, q.Steps-1)
						}
						if seg(q, int(j)) == hole {
							return &appliance.TileMissingError{}
						}
						hs[k] = at(q, int(j))
					}
					asked += len(js)
					return nil
				}}
			loss := make([]float64, len(pixels))
			if err := e.PixelLoss(context.Background(), in, r, loss); err != nil {
				t.Fatal(err)
			}
			for p := range pixels {
				q := &pixels[p]
				total += q.Steps - 1
				if r.Fallback[p] {
					if q.Steps >= 2 {
						t.Errorf("pixel %d (%d steps) left to the caller", p, q.Steps)
					}
					continue
				}
				xi := q.DistM / float64(q.Steps)
				prof := &appliance.PathProfile{}
				crossesHole := false
				for j := 0; j <= q.Steps; j++ {
					switch j {
					case 0:
						prof.DistancesM, prof.HeightsM = append(prof.DistancesM, 0), append(prof.HeightsM, radial.HeightsM[0])
					case q.Steps:
						prof.DistancesM, prof.HeightsM = append(prof.DistancesM, q.DistM), append(prof.HeightsM, q.GroundM)
					default:
						prof.DistancesM, prof.HeightsM = append(prof.DistancesM, float64(j)*xi), append(prof.HeightsM, at(q, j))
						crossesHole = crossesHole || seg(q, j) == hole
					}
				}
				if crossesHole {
					if !math.IsNaN(loss[p]) {
						t.Errorf("pixel %d crosses the segment without terrain: loss %g, want NaN", p, loss[p])
					}
					continue
				}
				pin := in
				pin.Profile = prof
				want, err := e.PredictLossDB(context.Background(), pin)
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(loss[p]) != math.Float64bits(want) {
					t.Errorf("pixel %d (d %.1f m, %d steps): PixelLoss %.17g, PredictLossDB %.17g", p, q.DistM, q.Steps, loss[p], want)
				}
			}
			t.Logf("%d pixels, %d of %d interior samples taken exactly", len(pixels), asked, total)
		})
	}
}

// TestIssue22_FSPLPixelLossBadInput: mismatched lengths are an error;
// inputs Predict refuses leave every pixel to the caller.
func TestIssue22_FSPLPixelLossBadInput(t *testing.T) {
	t.Parallel()
	e := fspl.New()
	prof := &appliance.PathProfile{DistancesM: []float64{0, 90, 180}, HeightsM: []float64{0, 0, 0}}
	r := &appliance.PixelRadial{SpacingM: 90, UpperM: []float64{0, 0}, Pixels: make([]appliance.PixelQuery, 2), Fallback: make([]bool, 2)}
	if err := e.PixelLoss(context.Background(), appliance.LinkInput{Profile: prof, FreqMHz: 700}, r, make([]float64, 1)); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("mismatched losses: err %v, want ErrInvalid", err)
	}
	if err := e.PixelLoss(context.Background(), appliance.LinkInput{Profile: prof, FreqMHz: 1}, r, make([]float64, 2)); err != nil || !r.Fallback[0] || !r.Fallback[1] {
		t.Errorf("frequency out of range: err %v, fallback %v; want every pixel left to the caller", err, r.Fallback)
	}
}
