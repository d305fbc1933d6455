package interference

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/engines"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

func rioTerrain(t testing.TB) *terrain.Pack {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func registry(t testing.TB) *engines.Registry {
	t.Helper()
	r, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func tx(lat, lon, az, freq, bw float64, eng appliance.EngineID, radiusM float64) Transmitter {
	return Transmitter{Request: coverage.Request{Tx: appliance.LatLon{Lat: lat, Lon: lon}, TxHeightM: 30, EIRPDBm: 50,
		AzimuthDeg: az, FreqMHz: freq, RadiusM: radiusM, RxHeightM: 10, ResolutionM: 90, Engine: eng}, BandwidthMHz: bw}
}

// threeTransmitters is the hand-built case: two sectors of one site on
// the same 20 MHz channel at 5500 MHz (azimuths 0° and 120°), and an omni
// at another site on the adjacent channel 5520 MHz.
func threeTransmitters(eng appliance.EngineID) Request {
	return Request{Transmitters: []Transmitter{
		tx(-22.93, -43.30, 0, 5500, 20, eng, 5000),
		tx(-22.93, -43.30, 120, 5500, 20, eng, 5000),
		tx(-22.95, -43.26, math.NaN(), 5520, 20, eng, 5000),
	}}
}

// direct is the reference: each transmitter's own map on the grid
// (coverage.ComputeEach without any sharing), then per pixel the
// strongest, and the interferers summed in request order.
type direct struct {
	server               []int32
	carrier, i, ci, sinr []float64
}

func computeDirect(t testing.TB, ter appliance.Terrain, reg *engines.Registry, req Request) direct {
	t.Helper()
	ts := req.Transmitters
	reqs := make([]coverage.Request, len(ts))
	for i := range ts {
		reqs[i] = ts[i].Request
	}
	levels := make([][]float32, len(ts))
	_, err := coverage.New(ter, reg.Get).ComputeEach(context.Background(), reqs, nil, coverage.Options{Workers: 2}, func(m coverage.EachMap) error {
		levels[m.Index] = append([]float32(nil), m.Raster.DBm...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return combineLevels(req, levels)
}

// combineLevels is the direct computation from each transmitter's level
// per pixel (dBm, NaN for none).
func combineLevels(req Request, levels [][]float32) direct {
	ts := req.Transmitters
	nf := req.NoiseFigureDB
	if nf == 0 {
		nf = DefaultNoiseFigureDB
	}
	n := len(levels[0])
	d := direct{server: make([]int32, n), carrier: make([]float64, n), i: make([]float64, n), ci: make([]float64, n), sinr: make([]float64, n)}
	for px := range n {
		b := -1
		for j := range ts {
			v := levels[j][px]
			if v == v && (b < 0 || v > levels[b][px]) {
				b = j
			}
		}
		d.server[px] = int32(b)
		if b < 0 {
			d.carrier[px], d.i[px], d.ci[px], d.sinr[px] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			continue
		}
		acs := ts[b].ACSDB
		if acs == 0 {
			acs = DefaultACSDB
		}
		var sumMW float64
		any := false
		for j := range ts {
			v := levels[j][px]
			if j == b || v != v {
				continue
			}
			kind, f := CouplingOf(ts[b].channel(), ts[j].channel(), acs)
			if kind == None {
				continue
			}
			sumMW += f * math.Pow(10, float64(v)/10)
			any = true
		}
		c := float64(levels[b][px])
		noise := math.Pow(10, NoiseDBm(ts[b].channel().BandwidthMHz, nf)/10)
		d.carrier[px] = c
		d.sinr[px] = c - 10*math.Log10(sumMW+noise)
		d.i[px], d.ci[px] = math.NaN(), math.NaN()
		if any {
			d.i[px] = 10 * math.Log10(sumMW)
			d.ci[px] = c - d.i[px]
		}
	}
	return d
}

func same(a float32, b float64, tol float64) bool {
	if math.IsNaN(b) {
		return a != a
	}
	return math.Abs(float64(a)-b) <= tol
}

// TestIssue26_ThreeTransmittersPixelByPixel: the hand-built 3-transmitter
// case, every pixel against the direct computation: the best server and
// its level bit for bit, interference, C/I and SINR to 1e-4 dB (float32
// output), for fspl (per-prefix Predict) and itm (prefix sweep); the
// co-sited sectors share their sweeps.
func TestIssue26_ThreeTransmittersPixelByPixel(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	for _, eng := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM} {
		t.Run(string(eng), func(t *testing.T) {
			req := threeTransmitters(eng)
			res, err := New(ter, reg.Get).Compute(context.Background(), req, coverage.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			d := computeDirect(t, ter, reg, req)
			served := make([]int, 3)
			interfered := 0
			for px := range res.Server {
				if res.Server[px] != d.server[px] {
					t.Fatalf("pixel %d: server %d, direct %d", px, res.Server[px], d.server[px])
				}
				if !same(res.CarrierDBm[px], d.carrier[px], 0) {
					t.Fatalf("pixel %d: carrier %v dBm, direct %v", px, res.CarrierDBm[px], d.carrier[px])
				}
				for _, c := range []struct {
					name string
					got  float32
					want float64
				}{{"interference", res.InterferenceDBm[px], d.i[px]}, {"C/I", res.CIDB[px], d.ci[px]}, {"SINR", res.SINRDB[px], d.sinr[px]}} {
					if !same(c.got, c.want, 1e-4) {
						t.Fatalf("pixel %d (server %d): %s %v, direct %v", px, d.server[px], c.name, c.got, c.want)
					}
				}
				if d.server[px] >= 0 {
					served[d.server[px]]++
				}
				if !math.IsNaN(d.ci[px]) {
					interfered++
				}
			}
			s := res.Summary
			t.Logf("served %v, interfered %d of %d, SINR %.1f..%.1f dB, areas %+v, shared %d, warnings %v",
				served, interfered, s.ValidPixels, s.MinSINRDB, s.MaxSINRDB, s.SINRAreas, s.SharedSweeps, s.Warnings)
			for i, n := range served {
				if n == 0 || s.ServedPixels[i] != n {
					t.Fatalf("transmitter %d serves %d pixels (summary %v)", i, n, s.ServedPixels)
				}
			}
			if interfered == 0 || s.InterferedPixels != interfered {
				t.Fatalf("interfered pixels %d, summary %d", interfered, s.InterferedPixels)
			}
			if s.SharedSweeps == 0 {
				t.Fatal("the co-sited sectors shared no sweep")
			}
			hasACS := false
			for _, w := range s.Warnings {
				hasACS = hasACS || w.Code == WarnACSAssumed
			}
			if !hasACS {
				t.Fatalf("warnings %v lack %s (the adjacent channel used the default ACS)", s.Warnings, WarnACSAssumed)
			}
		})
	}
}

// TestCouplingOf: the channel rules of the package doc.
func TestCouplingOf(t *testing.T) {
	for _, c := range []struct {
		name     string
		v, i     Channel
		kind     Coupling
		fraction float64
	}{
		{"same channel", Channel{5500, 20}, Channel{5500, 20}, CoChannel, 1},
		{"half overlap", Channel{5500, 20}, Channel{5510, 20}, CoChannel, 0.5},
		{"wide interferer", Channel{5500, 20}, Channel{5500, 80}, CoChannel, 0.25},
		{"narrow interferer inside", Channel{5500, 40}, Channel{5510, 10}, CoChannel, 1},
		{"adjacent, touching", Channel{5500, 20}, Channel{5520, 20}, Adjacent, math.Pow(10, -3.3)},
		{"adjacent, 10 MHz gap", Channel{5500, 20}, Channel{5530, 20}, Adjacent, math.Pow(10, -3.3)},
		{"second adjacent", Channel{5500, 20}, Channel{5540, 20}, None, 0},
		{"other band", Channel{5500, 20}, Channel{2437, 20}, None, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, f := CouplingOf(c.v, c.i, DefaultACSDB)
			if k != c.kind || math.Abs(f-c.fraction) > 1e-12 {
				t.Fatalf("got %v %g, want %v %g", k, f, c.kind, c.fraction)
			}
		})
	}
	if n := NoiseDBm(20, 7); math.Abs(n-(-174+73.0103+7)) > 1e-3 {
		t.Fatalf("noise of 20 MHz at NF 7 dB: %g dBm", n)
	}
}

// TestValidate names every bad field.
func TestValidate(t *testing.T) {
	good := threeTransmitters(appliance.EngineFSPL)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, field string
		mut         func(r *Request)
	}{
		{"no sites", "sites", func(r *Request) { r.Transmitters = nil }},
		{"bandwidth", "sites[1].bandwidth_mhz", func(r *Request) { r.Transmitters[1].BandwidthMHz = -1 }},
		{"acs", "sites[2].acs_db", func(r *Request) { r.Transmitters[2].ACSDB = math.NaN() }},
		{"noise figure", "noise_figure_db", func(r *Request) { r.NoiseFigureDB = 99 }},
		{"thresholds", "sinr_thresholds_db[1]", func(r *Request) { r.SINRThresholdsDB = []float64{5, 0} }},
		{"resolution", "sites[1].resolution_m", func(r *Request) { r.Transmitters[1].ResolutionM = 30 }},
		{"frequency", "sites[0].frequency_mhz", func(r *Request) { r.Transmitters[0].FreqMHz = 1 }},
		{"mixed modes", "exact", func(r *Request) { r.Transmitters[2].Exact = true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := threeTransmitters(appliance.EngineFSPL)
			c.mut(&r)
			err := r.Validate()
			var ve *appliance.ValidationError
			if err == nil || !asValidation(err, &ve) || !hasField(ve, c.field) {
				t.Fatalf("error %v does not name %s", err, c.field)
			}
		})
	}
}

func asValidation(err error, ve **appliance.ValidationError) bool {
	v, ok := err.(*appliance.ValidationError)
	*ve = v
	return ok
}

func hasField(ve *appliance.ValidationError, f string) bool {
	for _, x := range ve.Fields {
		if x.Field == f {
			return true
		}
	}
	return false
}

// TestDeterministicWorkers: the map is bit-identical on 1 and 3 workers.
func TestDeterministicWorkers(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	req := threeTransmitters(appliance.EngineITM)
	a, err := New(ter, reg.Get).Compute(context.Background(), req, coverage.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(ter, reg.Get).Compute(context.Background(), req, coverage.Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, band := range [][2][]float32{{a.CarrierDBm, b.CarrierDBm}, {a.InterferenceDBm, b.InterferenceDBm}, {a.CIDB, b.CIDB}, {a.SINRDB, b.SINRDB}} {
		for i := range band[0] {
			if math.Float32bits(band[0][i]) != math.Float32bits(band[1][i]) {
				t.Fatalf("pixel %d: %v on 1 worker, %v on 3", i, band[0][i], band[1][i])
			}
		}
	}
	if a.Summary.SharedSweeps != b.Summary.SharedSweeps {
		t.Fatalf("shared sweeps %d vs %d", a.Summary.SharedSweeps, b.Summary.SharedSweeps)
	}
}

// TestIssue26_CoSitedChannelsSharePixels: two co-sited ITM sectors on
// two channels (5500 and 5520 MHz) share the frequency-independent work
// of each pixel (package doc, "Shared sweeps": the radial's pixels are
// computed for both frequencies at once), and each pixel's carrier is the
// single heatmap's bit for bit.
func TestIssue26_CoSitedChannelsSharePixels(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	req := Request{Transmitters: []Transmitter{
		tx(-22.93, -43.30, 0, 5500, 20, appliance.EngineITM, 5000),
		tx(-22.93, -43.30, 180, 5520, 20, appliance.EngineITM, 5000),
	}}
	res, err := New(ter, reg.Get).Compute(context.Background(), req, coverage.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := computeDirect(t, ter, reg, req)
	valid := 0
	for px := range res.Server {
		if res.Server[px] != d.server[px] || !same(res.CarrierDBm[px], d.carrier[px], 0) {
			t.Fatalf("pixel %d: server %d carrier %v dBm, direct %d %v", px, res.Server[px], res.CarrierDBm[px], d.server[px], d.carrier[px])
		}
		if !same(res.CIDB[px], d.ci[px], 1e-4) || !same(res.SINRDB[px], d.sinr[px], 1e-4) {
			t.Fatalf("pixel %d: C/I %v SINR %v, direct %v %v", px, res.CIDB[px], res.SINRDB[px], d.ci[px], d.sinr[px])
		}
		if d.server[px] >= 0 {
			valid++
		}
	}
	// every reuse here is across the two frequencies: the engine's
	// sweeps and predictions are kept per frequency
	if res.Summary.SharedSweeps == 0 || valid == 0 {
		t.Fatalf("shared %d radials' pixels across the channels, %d valid pixels", res.Summary.SharedSweeps, valid)
	}
	t.Logf("%d valid pixels, %d radials' pixels shared", valid, res.Summary.SharedSweeps)
}
