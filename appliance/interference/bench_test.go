package interference

import (
	"context"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// network20 is the benchmark network: 20 transmitters on 7 sites west of
// Rio (six three-sector sites at 0°/120°/240° and one two-sector site), 20
// km radius, ITM, 3″ grid, two adjacent 20 MHz channels at 2.6 GHz
// alternating between the sectors of a site (reuse 2: co-sited sectors
// share the profiles and each pixel's frequency-independent work, package
// doc, "Shared sweeps").
func network20() Request { return network20Reuse(2) }

// network20Reuse is network20 with reuse channels (1: every sector on 2600
// MHz, as an LTE reuse-1 network: co-sited sectors share everything but
// their pattern).
func network20Reuse(reuse int) Request {
	sites := []appliance.LatLon{{Lat: -22.70, Lon: -43.60}, {Lat: -22.72, Lon: -43.45}, {Lat: -22.60, Lon: -43.52},
		{Lat: -22.80, Lon: -43.55}, {Lat: -22.65, Lon: -43.70}, {Lat: -22.78, Lon: -43.38}, {Lat: -22.58, Lon: -43.38}}
	var ts []Transmitter
	for s, p := range sites {
		for k := range 3 {
			if len(ts) == 20 {
				break
			}
			t := tx(p.Lat, p.Lon, float64(120*k), 2600+20*float64((s+k)%reuse), 20, appliance.EngineITM, 20000)
			t.TxHeightM = 40
			ts = append(ts, t)
		}
	}
	return Request{Transmitters: ts}
}

// BenchmarkInterference20Tx20km is the interference map of network20.
func BenchmarkInterference20Tx20km(b *testing.B) { benchInterference(b, network20()) }

// BenchmarkInterference20Tx20kmReuse1 is the interference map of the
// reuse-1 network (network20Reuse(1)).
func BenchmarkInterference20Tx20kmReuse1(b *testing.B) { benchInterference(b, network20Reuse(1)) }

func benchInterference(b *testing.B, req Request) {
	ter, reg := rioTerrain(b), registry(b)
	svc := New(ter, reg.Get)
	var res *Result
	cpu0 := processCPU()
	for b.Loop() {
		var err error
		if res, err = svc.Compute(context.Background(), req, coverage.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(res.Summary.ValidPixels), "pixels")
	b.ReportMetric(float64(res.Summary.SharedProfiles), "shared-profiles")
	b.ReportMetric(float64(res.Summary.SharedSweeps), "shared")
	// identical values: the same as the baseline's direct sum
	d := computeDirect(b, ter, reg, req)
	for px := range res.Server {
		if res.Server[px] != d.server[px] || !same(res.CarrierDBm[px], d.carrier[px], 0) || !same(res.SINRDB[px], d.sinr[px], 1e-4) || !same(res.CIDB[px], d.ci[px], 1e-4) {
			b.Fatalf("pixel %d differs from the sum of the single maps", px)
		}
	}
}

// BenchmarkInterference20Tx20kmSumOfHeatmaps is the baseline: the 20
// single heatmaps of network20 on the map's grid (coverage.ComputeEach,
// no shared sweep), summed per pixel as computeDirect does.
func BenchmarkInterference20Tx20kmSumOfHeatmaps(b *testing.B) { benchSum(b, network20()) }

// BenchmarkInterference20Tx20kmReuse1SumOfHeatmaps is the baseline of the
// reuse-1 network.
func BenchmarkInterference20Tx20kmReuse1SumOfHeatmaps(b *testing.B) { benchSum(b, network20Reuse(1)) }

func benchSum(b *testing.B, req Request) {
	ter, reg := rioTerrain(b), registry(b)
	var d direct
	cpu0 := processCPU()
	for b.Loop() {
		d = computeDirect(b, ter, reg, req)
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	valid := 0
	for _, s := range d.server {
		if s >= 0 {
			valid++
		}
	}
	b.ReportMetric(float64(valid), "pixels")
}
