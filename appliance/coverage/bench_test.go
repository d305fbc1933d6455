package coverage

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
)

// sumare is the transmitter of the issue-9 benchmark: Sumaré, 50 m above
// ground, receivers at 10 m, ITM, 3″ (≈ 90 m) grid.
func sumare(radiusM float64) Request {
	return Request{Tx: appliance.LatLon{Lat: -22.9516, Lon: -43.2372}, TxHeightM: 50, EIRPDBm: 58,
		AzimuthDeg: math.NaN(), FreqMHz: 900, RadiusM: radiusM, RxHeightM: 10, ResolutionM: 90, Engine: appliance.EngineITM}
}

func benchSweep(b *testing.B, radiusM float64) {
	svc, _, _ := newService(b)
	req := sumare(radiusM)
	var s Summary
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		res, err := svc.Compute(context.Background(), req, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s = res.Summary
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(s.ValidPixels), "pixels")
	b.ReportMetric(float64(s.Evaluations), "evaluations")
	b.Logf("summary %+v", s)
}

// BenchmarkCoverageRio30kmITM is the radial sweep of the 30 km Sumaré map
// (the sample lacks S23W043 and S24W044: those pixels are no-data).
func BenchmarkCoverageRio30kmITM(b *testing.B) { benchSweep(b, 30000) }

// BenchmarkCoverageRio50kmITM is the 50 km Sumaré map of issue 9 (the
// sample lacks S23W043, S24W044 and S24W043: no-data there).
func BenchmarkCoverageRio50kmITM(b *testing.B) { benchSweep(b, 50000) }

// BenchmarkCoverageRio10kmITM is the sweep at 10 km, beside the naive
// baseline.
func BenchmarkCoverageRio10kmITM(b *testing.B) { benchSweep(b, 10000) }

// BenchmarkCoverageRio10kmITMNaive is the baseline: every pixel gets its
// own terrain profile to its centre and one point-to-point Predict, on 2
// goroutines by rows (30 km would take tens of seconds per map).
func BenchmarkCoverageRio10kmITMNaive(b *testing.B) {
	svc, ter, reg := newService(b)
	req := sumare(10000)
	eng, err := reg.Get(req.Engine)
	if err != nil {
		b.Fatal(err)
	}
	ref, err := svc.Compute(context.Background(), req, Options{}) // the same grid
	if err != nil {
		b.Fatal(err)
	}
	r := ref.Raster
	step := ref.Summary.ProfileStepM
	b.ResetTimer()
	cpu0 := processCPU()
	valid := 0
	for b.Loop() {
		out := make([]float32, len(r.DBm))
		counts := make([]int, 2)
		done := make(chan struct{}, 2)
		for w := range 2 {
			go func() {
				defer func() { done <- struct{}{} }()
				for row := w; row < r.Height; row += 2 {
					for col := range r.Width {
						c := r.PixelCenter(row, col)
						out[row*r.Width+col] = float32(math.NaN())
						if req.Tx.DistanceM(c) > req.RadiusM {
							continue
						}
						prof, err := ter.Profile(req.Tx, c, step)
						if err != nil || prof.Len() < 2 {
							continue
						}
						pred, err := eng.Predict(context.Background(), appliance.LinkInput{Tx: req.Tx, Rx: c, TxHeightM: req.TxHeightM,
							RxHeightM: req.RxHeightM, FreqMHz: req.FreqMHz, Profile: prof})
						if err != nil {
							continue
						}
						out[row*r.Width+col] = float32(req.EIRPDBm - pred.PathLossDB)
						counts[w]++
					}
				}
			}()
		}
		<-done
		<-done
		valid = counts[0] + counts[1]
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(valid), "pixels")
}
