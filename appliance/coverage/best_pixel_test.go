package coverage

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
)

// rioServers are the three transmitters of the Rio best-server
// benchmark maps, hand-placed on Rio hills of the repository sample
// terrain, each with the map's radius and resolution, ITM, 900 MHz,
// receivers at 10 m: Sumaré (50 m, omni), Pedra Branca (30 m, omni) and
// a Tijuca forest sector (30 m, azimuth 120°, the generic 65° sector).
func rioServers(radiusM, resM float64) []Request {
	a := sumare(radiusM)
	b, c := a, a
	b.Tx, b.TxHeightM = appliance.LatLon{Lat: -22.935, Lon: -43.46}, 30
	c.Tx, c.TxHeightM, c.AzimuthDeg = appliance.LatLon{Lat: -22.95, Lon: -43.30}, 30, 120
	out := []Request{a, b, c}
	for i := range out {
		out[i].ResolutionM = resM
	}
	return out
}

// BenchmarkIssue22_BestPixelTruth computes the rioServers best-server
// maps (rio30 and rio50 at 3″, rio10-1s at 1″; missing tiles of the
// sample no-data on both sides) in the default mode and prints per map
// the issue's line (mode= map= pixels= within_1db_pct= within_3db_pct=
// max_abs_db=) for the strongest level against the strongest
// point-to-point answer among the transmitters at PIXEL_SAMPLE random
// pixels (default 4000; seed printed with -v, COVERAGE_SEED repeats it),
// with the map's CPU seconds. `make bench-pixels` runs it.
func BenchmarkIssue22_BestPixelTruth(b *testing.B) {
	svc, ter, reg := newService(b)
	rng := rand.New(rand.NewPCG(seed(b), 22))
	sample := 4000
	if v := os.Getenv("PIXEL_SAMPLE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		sample = n
	}
	for _, m := range []struct {
		name          string
		radiusM, resM float64
	}{{"rio30", 30000, 90}, {"rio50", 50000, 90}, {"rio10-1s", 10000, 30}} {
		b.Run(m.name, func(b *testing.B) {
			reqs := rioServers(m.radiusM, m.resM)
			var res *BestResult
			cpu0 := processCPU()
			for b.Loop() {
				var err error
				if res, err = svc.ComputeBest(context.Background(), reqs, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (processCPU() - cpu0).Seconds() / float64(b.N)
			b.ReportMetric(cpu, "cpu-s/op")
			steps := make([]float64, len(reqs))
			for i, ps := range res.PerServer {
				steps[i] = ps.ProfileStepM
			}
			a := measureAgreement(b, ter, reg.Get, reqs, res.Raster, steps, pixelsToCheck(res.Raster, reqs, sample, rng),
				PixelModeDefault, m.name+"-best-itm")
			fmt.Printf("%s cpu_s=%.2f\n", a, cpu)
			for _, w := range a.worst {
				fmt.Println("  ", w)
			}
			if math.IsInf(a.MaxAbsDB, 1) {
				b.Errorf("%s: %d pixels have a value on one side only", a.Map, a.Mismatched)
			}
		})
	}
}
