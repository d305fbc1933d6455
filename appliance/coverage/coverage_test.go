package coverage

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// seed returns COVERAGE_SEED when set, else a fresh seed, and logs it.
func seed(t testing.TB) uint64 {
	t.Helper()
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("COVERAGE_SEED"); v != "" {
		var err error
		if s, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("SEED=%d (rerun with COVERAGE_SEED=%d)", s, s)
	return s
}

// rioTerrain is the real embedded SRTM3 sample (S23W044, S22W043).
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

func newService(t testing.TB) (*Service, *terrain.Pack, *engines.Registry) {
	ter, reg := rioTerrain(t), registry(t)
	return New(ter, reg.Get), ter, reg
}

// tijuca is a site inside S23W044 whose 5 km circle has terrain all round.
func tijuca() Request {
	return Request{Tx: appliance.LatLon{Lat: -22.93, Lon: -43.30}, TxHeightM: 30, EIRPDBm: 58,
		AzimuthDeg: 120, FreqMHz: 1800, RadiusM: 5000, RxHeightM: 10, ResolutionM: 90, Engine: appliance.EngineFSPL}
}

// TestDeterministicAcrossWorkers: 1 and 4 workers give bit-identical
// rasters and the same tile sequence.
func TestDeterministicAcrossWorkers(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.Engine = appliance.EngineITM
	req.RadiusM = 8000
	var runs [2]*Result
	var tiles [2][]string
	for j, w := range []int{1, 4} {
		res, err := svc.Compute(context.Background(), req, Options{Workers: w, OnTile: func(td TileDone) {
			s, err := EncodeTile(td.Raster, td.Tile)
			if err != nil {
				t.Error(err)
			}
			tiles[j] = append(tiles[j], td.Tile.ID+":"+s)
		}})
		if err != nil {
			t.Fatal(err)
		}
		runs[j] = res
	}
	a, b := runs[0].Raster, runs[1].Raster
	if a.Width != b.Width || a.Height != b.Height {
		t.Fatalf("sizes differ")
	}
	for i := range a.DBm {
		if math.Float32bits(a.DBm[i]) != math.Float32bits(b.DBm[i]) {
			t.Fatalf("pixel %d differs: %v vs %v", i, a.DBm[i], b.DBm[i])
		}
	}
	if !slices.Equal(tiles[0], tiles[1]) || len(tiles[0]) != a.TileRows()*a.TileCols() {
		t.Fatalf("tile sequences differ or incomplete: %d and %d tiles, want %d", len(tiles[0]), len(tiles[1]), a.TileRows()*a.TileCols())
	}
	sa, sb := runs[0].Summary, runs[1].Summary
	sa.ElapsedMS, sb.ElapsedMS = 0, 0
	if !summaryEqual(sa, sb) {
		t.Fatalf("summaries differ: %+v vs %+v", sa, sb)
	}
	t.Logf("%d×%d raster, %d tiles, summary %+v", a.Width, a.Height, len(tiles[0]), sa)
}

func summaryEqual(a, b Summary) bool {
	return a.Pixels == b.Pixels && a.ValidPixels == b.ValidPixels && a.InRadiusPixels == b.InRadiusPixels &&
		a.NoDataMissingTerrain == b.NoDataMissingTerrain && slices.Equal(a.MissingTiles, b.MissingTiles) &&
		a.CoveredKm2AboveThreshold == b.CoveredKm2AboveThreshold && a.MinDBm == b.MinDBm && a.MaxDBm == b.MaxDBm &&
		a.EngineVersion == b.EngineVersion && a.Evaluations == b.Evaluations
}

// TestMissingTerrain: near the east edge of S23W044 the circle crosses
// into S23W043, which the sample does not hold: those pixels are no-data,
// the tile is named and counted, never sea level.
func TestMissingTerrain(t *testing.T) {
	svc, ter, _ := newService(t)
	req := tijuca()
	req.Tx = appliance.LatLon{Lat: -22.90, Lon: -43.05} // Niterói side of the bay; −43.0 is 5.1 km east
	req.RadiusM = 10000
	req.AzimuthDeg = math.NaN()
	res, err := svc.Compute(context.Background(), req, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	s, r := res.Summary, res.Raster
	t.Logf("summary %+v", s)
	if !slices.Contains(s.MissingTiles, "S23W043") {
		t.Fatalf("missing tiles %v, want S23W043 named", s.MissingTiles)
	}
	if s.NoDataMissingTerrain == 0 {
		t.Fatal("no pixel counted as missing terrain")
	}
	// Every pixel east of −43° inside the radius is no-data; pixels whose
	// centre has terrain and a clear radial keep a value.
	east, eastNaN := 0, 0
	for row := range r.Height {
		for col := range r.Width {
			c := r.PixelCenter(row, col)
			if req.Tx.DistanceM(c) > req.RadiusM || c.Lon <= -43.0 {
				continue
			}
			east++
			if v := r.DBm[row*r.Width+col]; v != v {
				eastNaN++
			}
			if _, err := ter.ElevationM(c); err == nil {
				t.Fatalf("pixel %v east of −43° has terrain?", c)
			}
		}
	}
	if east == 0 || eastNaN != east {
		t.Fatalf("%d of %d pixels east of −43° are no-data, want all", eastNaN, east)
	}
	if s.NoDataMissingTerrain < east {
		t.Fatalf("NoDataMissingTerrain %d < %d pixels east of −43°", s.NoDataMissingTerrain, east)
	}
	if s.ValidPixels+s.NoDataMissingTerrain+s.NoDataOutsideEnvelope != s.InRadiusPixels {
		t.Fatalf("valid %d + missing %d + envelope %d != in radius %d", s.ValidPixels, s.NoDataMissingTerrain, s.NoDataOutsideEnvelope, s.InRadiusPixels)
	}
}

func TestValidate(t *testing.T) {
	ok := tijuca()
	cases := []struct {
		name  string
		edit  func(*Request)
		field string // "" = valid
	}{
		{"valid", func(*Request) {}, ""},
		{"omni", func(r *Request) { r.AzimuthDeg = math.NaN() }, ""},
		{"bad lat", func(r *Request) { r.Tx.Lat = 95 }, "site"},
		{"polar", func(r *Request) { r.Tx.Lat = -88 }, "site.lat"},
		{"negative height", func(r *Request) { r.TxHeightM = -1 }, "site.height_m"},
		{"eirp NaN", func(r *Request) { r.EIRPDBm = math.NaN() }, "site.eirp_dbm"},
		{"azimuth inf", func(r *Request) { r.AzimuthDeg = math.Inf(1) }, "site.azimuth_deg"},
		{"beamwidth", func(r *Request) { r.BeamwidthDeg = 400 }, "site.beamwidth_deg"},
		{"frequency low", func(r *Request) { r.FreqMHz = 10 }, "frequency_mhz"},
		{"frequency high", func(r *Request) { r.FreqMHz = 2e5 }, "frequency_mhz"},
		{"radius zero", func(r *Request) { r.RadiusM = 0 }, "radius_km"},
		{"radius too big", func(r *Request) { r.RadiusM = 1e6 }, "radius_km"},
		{"rx height", func(r *Request) { r.RxHeightM = math.Inf(1) }, "rx_height_m"},
		{"resolution zero", func(r *Request) { r.ResolutionM = 0 }, "resolution_m"},
		{"time pct", func(r *Request) { r.TimePct = 100 }, "time_pct"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ok
			c.edit(&r)
			err := r.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			if len(ve.Fields) != 1 || ve.Fields[0].Field != c.field {
				t.Fatalf("fields %+v, want only %q", ve.Fields, c.field)
			}
		})
	}
}

func TestComputeRefusals(t *testing.T) {
	svc, _, _ := newService(t)
	cases := []struct {
		name string
		edit func(*Request)
		want error
	}{
		{"invalid request", func(r *Request) { r.RadiusM = -1 }, appliance.ErrInvalid},
		{"unknown engine", func(r *Request) { r.Engine = "nope" }, appliance.ErrInvalid},
		{"transmitter without terrain", func(r *Request) { r.Tx = appliance.LatLon{Lat: -10, Lon: -50} }, appliance.ErrTerrainMissing},
		{"frequency outside the engine", func(r *Request) { r.Engine, r.FreqMHz = appliance.EngineP1812, 30000 }, appliance.ErrOutsideEnvelope},
		// ITM answers through its prefix sweeper: a map it refuses
		// everywhere fails like the per-prefix path, not all no-data.
		{"receiver below ITM's range (sweeper)", func(r *Request) { r.Engine, r.RxHeightM = appliance.EngineITM, 0.3 }, appliance.ErrOutsideEnvelope},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := tijuca()
			c.edit(&r)
			_, err := svc.Compute(context.Background(), r, Options{})
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// TestCancel: a cancelled context stops the sweep quickly with
// context.Canceled.
func TestCancel(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.Engine = appliance.EngineITM
	req.RadiusM = 30000
	ctx, cancel := context.WithCancel(context.Background())
	var at time.Time
	_, err := svc.Compute(ctx, req, Options{Workers: 2, OnProgress: func(done, total int) {
		if done == 20 {
			at = time.Now()
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if el := time.Since(at); at.IsZero() || el > 500*time.Millisecond {
		t.Fatalf("returned %v after cancel", el)
	}
}

func TestEncodeTile(t *testing.T) {
	r := &Raster{Width: 3, Height: 2, DBm: []float32{-95.004, float32(math.NaN()), 12.345, -400, 400, 0}}
	tl := Tile{ID: "r0c0", W: 3, H: 2}
	s, err := EncodeTile(r, tl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTile(s, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{-95, float32(math.NaN()), 12.35, -327.67, 327.67, 0}
	for i := range want {
		if (want[i] != want[i]) != (got[i] != got[i]) || (want[i] == want[i] && math.Abs(float64(got[i]-want[i])) > 1e-4) {
			t.Fatalf("pixel %d: got %v want %v", i, got[i], want[i])
		}
	}
	if _, err := EncodeTile(r, Tile{W: 4, H: 1}); err == nil {
		t.Fatal("window outside the raster accepted")
	}
}

func TestGridRule(t *testing.T) {
	cases := []struct {
		name           string
		resM, lat      float64
		latSec, lonSec int
	}{
		{"90 m at Rio", 90, -22.95, 3, 3},
		{"30 m at Rio", 30, -22.95, 1, 1},
		{"90 m at 60°S", 90, -60, 3, 6},
		{"tiny", 1, 0, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			la, lo := PixelArcSeconds(c.resM, c.lat)
			if la != c.latSec || lo != c.lonSec {
				t.Fatalf("got %d″×%d″, want %d″×%d″", la, lo, c.latSec, c.lonSec)
			}
		})
	}
	g := newGrid(appliance.Around(appliance.LatLon{Lat: -22.9516, Lon: -43.2372}, 30000), 3, 3)
	r := g.raster()
	for _, v := range []float64{r.West * 3600, r.North * 3600} {
		if math.Abs(v-math.Round(v)) > 1e-6 {
			t.Fatalf("corner %v not on a whole arc-second", v)
		}
	}
	tl := r.Tiles()
	last := tl[len(tl)-1]
	if last.X0+last.W != r.Width || last.Y0+last.H != r.Height || tl[0].ID != "r0c0" {
		t.Fatalf("tiles do not cover the raster: %+v", last)
	}
}

// TestMissingTilesNamed: a circle over the corner of S23W044 names the
// three absent neighbours, the diagonal one (behind the others on every
// radial) included.
func TestMissingTilesNamed(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.Tx = appliance.LatLon{Lat: -22.95, Lon: -43.05}
	req.RadiusM, req.ResolutionM = 12000, 300
	res, err := svc.Compute(context.Background(), req, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("summary %+v", s)
	if want := []string{"S23W043", "S24W043", "S24W044"}; !slices.Equal(s.MissingTiles, want) {
		t.Fatalf("missing tiles %v, want %v", s.MissingTiles, want)
	}
	if s.ValidPixels+s.NoDataMissingTerrain+s.NoDataOutsideEnvelope != s.InRadiusPixels || s.NoDataMissingTerrain == 0 {
		t.Fatalf("pixel counts do not add up: %+v", s)
	}
}

// TestPlanGeometryBitExact checks that newPlan's split trigonometry gives
// every pixel the distance of appliance.LatLon.DistanceM and the radial of
// BearingDeg, bit for bit, at several latitudes and radii.
func TestPlanGeometryBitExact(t *testing.T) {
	svc, _, reg := newService(t)
	eng, err := reg.Get(appliance.EngineFSPL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tx   appliance.LatLon
		rM   float64
	}{
		{"sumare 10 km", appliance.LatLon{Lat: -22.9516, Lon: -43.2372}, 10000},
		{"equator 3 km", appliance.LatLon{Lat: 0.01, Lon: -50.5}, 3000},
		{"far south 20 km", appliance.LatLon{Lat: -33.6, Lon: -53.4}, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := sumare(tc.rM)
			req.Tx = tc.tx
			p := svc.newPlan(req, Options{Workers: 3}, eng, gridFor(req))
			n := len(p.radials)
			seen := 0
			for k := range p.radials {
				rd := &p.radials[k]
				for j, px := range rd.pix {
					c := p.raster.PixelCenter(int(px)/p.raster.Width, int(px)%p.raster.Width)
					if d := req.Tx.DistanceM(c); d != rd.dist[j] {
						t.Fatalf("pixel %d: distance %v, DistanceM %v", px, rd.dist[j], d)
					}
					if want := int(math.Round(req.Tx.BearingDeg(c)*float64(n)/360)) % n; want != k {
						t.Fatalf("pixel %d on radial %d, BearingDeg gives %d", px, k, want)
					}
					seen++
				}
			}
			if seen == 0 {
				t.Fatal("no pixel in the plan")
			}
		})
	}
}
