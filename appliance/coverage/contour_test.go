package coverage

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/tooltest"
)

// synthRaster returns a raster of rows (dBm, NaN no data) with 3″ pixels
// at the north-west corner (−22.9, −43.3).
func synthRaster(rows ...[]float64) *Raster {
	r := &Raster{West: -43.3, North: -22.9, PixelLonDeg: 3.0 / 3600, PixelLatDeg: 3.0 / 3600, Width: len(rows[0]), Height: len(rows)}
	for _, row := range rows {
		for _, v := range row {
			r.DBm = append(r.DBm, float32(v))
		}
	}
	return r
}

var nanV = math.NaN()

// contourFacts checks the invariants of one contour feature of r at
// threshold t and returns its polygon count and ring counts:
//   - every pixel centre is inside the multipolygon (even-odd over all
//     rings) exactly when the pixel is at or above t;
//   - the rings' areas (exterior positive, holes negative, in pixels) sum
//     to the pixel count;
//   - every ring is closed, simple (no vertex twice), on pixel corners,
//     without collinear vertices;
//   - pixels and area_km2 match a direct count.
func contourFacts(t *testing.T, r *Raster, th float64, f geoexport.Feature) (polys int, rings []int) {
	t.Helper()
	if f.Geometry.Kind != geoexport.KindMultiPolygon {
		t.Fatalf("geometry %v", f.Geometry.Kind)
	}
	wantPixels, wantArea := 0, 0.0
	for row := range r.Height {
		for col := range r.Width {
			if v := r.DBm[row*r.Width+col]; v == v && float64(v) >= th {
				wantPixels++
				wantArea += r.PixelAreaKm2(row)
			}
		}
	}
	if got := f.Properties[0].Float64(); got != th {
		t.Errorf("threshold_dbm %g, want %g", got, th)
	}
	if got := f.Properties[2].Int64(); got != int64(wantPixels) {
		t.Errorf("threshold %g: pixels %d, want %d", th, got, wantPixels)
	}
	if got := f.Properties[1].Float64(); math.Abs(got-wantArea) > 1e-9*max(1, wantArea) {
		t.Errorf("threshold %g: area_km2 %g, want %g", th, got, wantArea)
	}
	sum := 0.0
	for p, poly := range f.Geometry.Polygons {
		rings = append(rings, len(poly))
		for j, ring := range poly {
			if len(ring) < 5 || ring[0] != ring[len(ring)-1] {
				t.Fatalf("threshold %g polygon %d ring %d: %d positions, closed %v", th, p, j, len(ring), ring[0] == ring[len(ring)-1])
			}
			seen := map[appliance.LatLon]bool{}
			for k, c := range ring[:len(ring)-1] {
				if seen[c] {
					t.Errorf("threshold %g polygon %d ring %d passes %v twice", th, p, j, c)
				}
				seen[c] = true
				x, y := (c.Lon-r.West)/r.PixelLonDeg, (r.North-c.Lat)/r.PixelLatDeg
				if math.Abs(x-math.Round(x)) > 1e-6 || math.Abs(y-math.Round(y)) > 1e-6 {
					t.Errorf("threshold %g: vertex %v is not a pixel corner", th, c)
				}
				a, b := ring[(k+len(ring)-2)%(len(ring)-1)], ring[k+1]
				if (a.Lat == c.Lat && c.Lat == b.Lat) || (a.Lon == c.Lon && c.Lon == b.Lon) {
					t.Errorf("threshold %g polygon %d ring %d: collinear vertex %v", th, p, j, c)
				}
			}
			// Shoelace on the pixel grid (x east, y north), exact in integers.
			gx := func(c appliance.LatLon) float64 { return math.Round((c.Lon - r.West) / r.PixelLonDeg) }
			gy := func(c appliance.LatLon) float64 { return math.Round((c.Lat - r.North) / r.PixelLatDeg) }
			a := 0.0
			for k := 0; k+1 < len(ring); k++ {
				a += gx(ring[k])*gy(ring[k+1]) - gx(ring[k+1])*gy(ring[k])
			}
			a /= 2
			if (j == 0) != (a > 0) {
				t.Errorf("threshold %g polygon %d ring %d area %g pixels: exterior must be positive, holes negative", th, p, j, a)
			}
			sum += a
		}
	}
	if sum != float64(wantPixels) {
		t.Errorf("threshold %g: rings enclose %g pixels, want %d", th, sum, wantPixels)
	}
	for row := range r.Height {
		for col := range r.Width {
			c := r.PixelCenter(row, col)
			in := false
			for _, poly := range f.Geometry.Polygons {
				for _, ring := range poly {
					for k := 0; k+1 < len(ring); k++ {
						p, q := ring[k], ring[k+1]
						if (p.Lat > c.Lat) != (q.Lat > c.Lat) && c.Lon < p.Lon+(c.Lat-p.Lat)*(q.Lon-p.Lon)/(q.Lat-p.Lat) {
							in = !in
						}
					}
				}
			}
			v := r.DBm[row*r.Width+col]
			if want := v == v && float64(v) >= th; in != want {
				t.Errorf("threshold %g: pixel (%d,%d) = %g inside %v, want %v", th, row, col, v, in, want)
			}
		}
	}
	return len(f.Geometry.Polygons), rings
}

func TestContoursSynthetic(t *testing.T) {
	r := synthRaster(
		[]float64{-70, -70, -70, -70, -90, nanV},
		[]float64{-70, -100, -70, -70, -90, -80},
		[]float64{-70, -70, -70, -90, -60, -90},
		[]float64{-90, -90, -90, -60, -90, -90},
		[]float64{nanV, -80, -80, -90, -90, -70},
	)
	ths := []float64{-75, -85, -95, -50, -100}
	fs, err := Contours(r, ths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != len(ths) {
		t.Fatalf("%d features, want %d", len(fs), len(ths))
	}
	want := []struct {
		pixels int
		rings  []int // rings per polygon, in row-major order of the first pixel
	}{
		// -75: the block with its −100 hole, then r2c4 and r3c3 (touching
		// each other and the block at corners only), and r4c5.
		{13, []int{2, 1, 1, 1}},
		// -85: adds r1c5 alone and r4c1..2.
		{16, []int{2, 1, 1, 1, 1, 1}},
		// -95: everything valid but the −100 pixel, one polygon with a hole.
		{27, []int{2}},
		{0, nil},
		{28, []int{1}},
	}
	for i, f := range fs {
		n, rings := contourFacts(t, r, ths[i], f)
		if got := int(f.Properties[2].Int64()); got != want[i].pixels || n != len(want[i].rings) || !equalInts(rings, want[i].rings) {
			t.Errorf("threshold %g: %d pixels, rings %v; want %d, %v", ths[i], got, rings, want[i].pixels, want[i].rings)
		}
	}
	for i := 1; i < 3; i++ {
		if fs[i-1].Properties[1].Float64() > fs[i].Properties[1].Float64() {
			t.Errorf("area at %g dBm above the area at %g dBm", ths[i-1], ths[i])
		}
	}
	if f := fs[3]; len(f.Geometry.Polygons) != 0 || f.Properties[1].Float64() != 0 {
		t.Errorf("-50 dBm: %d polygons, area %g; want none", len(f.Geometry.Polygons), f.Properties[1].Float64())
	}
	// The hole of the −75 block is pixel r1c1, exactly.
	hole := fs[0].Geometry.Polygons[0][1]
	if len(hole) != 5 {
		t.Errorf("hole %v, want one pixel", hole)
	}
}

// TestContoursPinchedHole: a ring of pixels closed by a diagonal contact
// gives one polygon whose hole touches the exterior at one corner, both
// rings simple.
func TestContoursPinchedHole(t *testing.T) {
	r := synthRaster(
		[]float64{-60, -60, -60},
		[]float64{-60, -99, -60},
		[]float64{-99, -60, -60},
	)
	fs, err := Contours(r, []float64{-70}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, rings := contourFacts(t, r, -70, fs[0])
	if n != 1 || !equalInts(rings, []int{2}) {
		t.Errorf("%d polygons, rings %v; want one polygon with one hole", n, rings)
	}
	// Checkerboard: every pixel its own polygon.
	r = synthRaster(
		[]float64{-60, -99, -60},
		[]float64{-99, -60, -99},
		[]float64{-60, -99, -60},
	)
	fs, _ = Contours(r, []float64{-70}, nil)
	if n, rings := contourFacts(t, r, -70, fs[0]); n != 5 || !equalInts(rings, []int{1, 1, 1, 1, 1}) {
		t.Errorf("checkerboard: %d polygons, rings %v; want 5 squares", n, rings)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestContoursRandom checks the invariants of contourFacts on random
// rasters of a few levels and NaN (printed seed).
func TestContoursRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 11))
	levels := []float64{-60, -70, -80, -90, nanV}
	for range 200 {
		w, h := 1+rng.IntN(14), 1+rng.IntN(11)
		rows := make([][]float64, h)
		for i := range rows {
			rows[i] = make([]float64, w)
			for j := range rows[i] {
				rows[i][j] = levels[rng.IntN(len(levels))]
			}
		}
		r := synthRaster(rows...)
		ths := []float64{-65, -75, -85}
		fs, err := Contours(r, ths, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range fs {
			contourFacts(t, r, ths[i], f)
			if i > 0 && fs[i].Properties[1].Float64() < fs[i-1].Properties[1].Float64() {
				t.Errorf("area at %g below the area at %g", ths[i], ths[i-1])
			}
		}
		if t.Failed() {
			t.Fatalf("raster %dx%d: %v", w, h, rows)
		}
	}
}

func TestContourThresholdValidation(t *testing.T) {
	r := synthRaster([]float64{-60})
	for _, ths := range [][]float64{nil, {}, make([]float64, 11), {-75, math.NaN()}, {math.Inf(1)}, {-201}, {100.5}} {
		_, err := Contours(r, ths, nil)
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "thresholds" || !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("thresholds %v: err %v, want a validation error naming thresholds", ths, err)
		}
	}
	for _, q := range []string{"", "-75,,-85", "-75;-85", "x", "-75,-85,-300"} {
		_, err := ParseThresholds(q)
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != "thresholds" {
			t.Errorf("ParseThresholds(%q): err %v, want a validation error naming thresholds", q, err)
		}
	}
	if got, err := ParseThresholds(" -75, -85,-95 "); err != nil || !slices.Equal(got, []float64{-75, -85, -95}) {
		t.Errorf("ParseThresholds: %v, %v", got, err)
	}
	if _, err := Contours(&Raster{Width: 2, Height: 2, DBm: make([]float32, 3)}, []float64{-75}, nil); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("mis-sized raster: err %v, want ErrInvalid", err)
	}
	if err := ValidateThresholds([]float64{-200, 100, -75, -85, -95}); err != nil {
		t.Errorf("valid thresholds: %v", err)
	}
}

// TestContoursOfRealMapReadByOgrinfo computes a 3 km fspl map on the Rio
// sample, checks the contours' invariants and that the area at the
// summary threshold equals Summary.CoveredKm2AboveThreshold bit for bit,
// and opens the Shapefile and GeoJSON exports with GDAL's ogrinfo.
func TestContoursOfRealMapReadByOgrinfo(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.RadiusM = 3000
	res, err := svc.Compute(context.Background(), req, Options{Workers: 2, ThresholdDBm: -50})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Raster
	ths := []float64{-45, -50, -55, -75}
	fs, err := Contours(r, ths, &res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		n, rings := contourFacts(t, r, ths[i], f)
		holes := 0
		for _, k := range rings {
			holes += k - 1
		}
		t.Logf("%g dBm: %d pixels, %.4f km², %d polygons, %d holes", ths[i], f.Properties[2].Int64(), f.Properties[1].Float64(), n, holes)
		if i > 0 && f.Properties[1].Float64() < fs[i-1].Properties[1].Float64() {
			t.Errorf("area at %g dBm below the area at %g dBm", ths[i], ths[i-1])
		}
	}
	if got, want := fs[1].Properties[1].Float64(), res.Summary.CoveredKm2AboveThreshold; got != want {
		t.Errorf("-50 dBm contour area %v km², summary %v", got, want)
	}
	if fs[0].Properties[2].Int64() == 0 || fs[3].Properties[2].Int64() == 0 {
		t.Fatalf("empty contours: the map does not exercise them")
	}

	ogrinfo := tooltest.Need(t, "ogrinfo", "gdal-bin")
	dir := t.TempDir()
	var zipb, gj bytes.Buffer
	if err := geoexport.Export(&zipb, geoexport.FormatShapefile, "contours", ContourSchema(), geoexport.Slice(fs), ContourKMLOptions(), geoexport.FixedDate()); err != nil {
		t.Fatal(err)
	}
	if err := geoexport.Export(&gj, geoexport.FormatGeoJSON, "contours", ContourSchema(), geoexport.Slice(fs), ContourKMLOptions(), geoexport.FixedDate()); err != nil {
		t.Fatal(err)
	}
	zipPath, gjPath := filepath.Join(dir, "contours.zip"), filepath.Join(dir, "contours.geojson")
	if err := os.WriteFile(zipPath, zipb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gjPath, gj.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, geom string }{
		{"/vsizip/" + zipPath + "/contours.shp", "Polygon"},
		{gjPath, "Multi Polygon"},
	} {
		out, err := exec.Command(ogrinfo, "-ro", "-al", "-so", c.path).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", c.path, err, out)
		}
		s := string(out)
		if !strings.Contains(s, "Feature Count: 4\n") || !strings.Contains(s, "Geometry: "+c.geom+"\n") {
			t.Errorf("%s: want 4 features of %s:\n%s", c.path, c.geom, s)
		}
		names := []string{"threshold_dbm", "area_km2", "pixels", "engine", "eirp_dbm", "warnings"}
		if strings.HasSuffix(c.path, ".shp") {
			sn := geoexport.ShortNames(ContourSchema()) // threshold_ in the .dbf
			names = append(sn[:5:5], sn[6])
		}
		for i, field := range names {
			typ := "(Real|Integer|Integer64)"
			if i == 3 || i == 5 {
				typ = "String"
			}
			if !regexp.MustCompile(`(?m)^` + field + `: ` + typ + ` `).MatchString(s) {
				t.Errorf("%s: no field %s:\n%s", c.path, field, s)
			}
		}
		// The extent is within the raster.
		m := regexp.MustCompile(`Extent: \(([-0-9.]+), ([-0-9.]+)\) - \(([-0-9.]+), ([-0-9.]+)\)`).FindStringSubmatch(s)
		if m == nil {
			t.Errorf("%s: no extent:\n%s", c.path, s)
		}
	}
	// Every feature's geometry reads back; -45 dBm areas in the attribute table.
	out, err := exec.Command(ogrinfo, "-ro", "-al", "-q", "/vsizip/"+zipPath+"/contours.shp").CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "POLYGON ("); n != 4 {
		t.Errorf("%d polygon geometries read back, want 4", n)
	}
}

// TestContoursValidForGDAL asks GDAL (SQLite dialect, SpatiaLite's GEOS
// ST_IsValid) whether the contour polygons of the synthetic rasters, of
// random ones (printed seed) and of a real map are valid OGC geometries:
// simple rings, holes inside their exterior touching it at points at
// most, connected interiors.
func TestContoursValidForGDAL(t *testing.T) {
	ogrinfo := tooltest.Need(t, "ogrinfo", "gdal-bin")
	rasters := []*Raster{
		synthRaster(
			[]float64{-70, -70, -70, -70, -90, nanV},
			[]float64{-70, -100, -70, -70, -90, -80},
			[]float64{-70, -70, -70, -90, -60, -90},
			[]float64{-90, -90, -90, -60, -90, -90},
			[]float64{nanV, -80, -80, -90, -90, -70}),
		synthRaster([]float64{-60, -60, -60}, []float64{-60, -99, -60}, []float64{-99, -60, -60}),
		synthRaster([]float64{-60, -99, -60}, []float64{-99, -60, -99}, []float64{-60, -99, -60}),
	}
	rng := rand.New(rand.NewPCG(seed(t), 13))
	levels := []float64{-60, -70, -80, -90, nanV}
	for range 40 {
		w, h := 2+rng.IntN(20), 2+rng.IntN(20)
		rows := make([][]float64, h)
		for i := range rows {
			rows[i] = make([]float64, w)
			for j := range rows[i] {
				rows[i][j] = levels[rng.IntN(len(levels))]
			}
		}
		rasters = append(rasters, synthRaster(rows...))
	}
	svc, _, _ := newService(t)
	req := tijuca()
	req.RadiusM = 3000
	res, err := svc.Compute(context.Background(), req, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rasters = append(rasters, res.Raster)
	var all []geoexport.Feature
	for _, r := range rasters {
		fs, err := Contours(r, []float64{-45, -55, -65, -75, -85}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if len(f.Geometry.Polygons) > 0 {
				all = append(all, f)
			}
		}
	}
	var gj bytes.Buffer
	if err := geoexport.WriteGeoJSON(&gj, ContourSchema(), geoexport.Slice(all)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "contours.geojson")
	if err := os.WriteFile(path, gj.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ogrinfo, "-ro", "-q", "-dialect", "sqlite", "-sql",
		"SELECT ST_IsValid(geometry) AS v, ST_IsValidReason(geometry) AS why FROM contours", path).CombinedOutput()
	valid := strings.Count(string(out), "v (Integer) = 1")
	if err != nil || valid+strings.Count(string(out), "v (Integer) = 0") != len(all) {
		if os.Getenv("CI") != "" {
			t.Fatalf("ogrinfo SQLite dialect: %v\n%s", err, out)
		}
		t.Skipf("GDAL without SpatiaLite's ST_IsValid: %v\n%s", err, out)
	}
	if valid != len(all) {
		t.Errorf("%d of %d multipolygons valid:\n%s", valid, len(all), out)
	}
	t.Logf("%d contour multipolygons of %d rasters valid for GEOS", valid, len(rasters))
}

// BenchmarkContours traces three thresholds of a 1200×1200 raster of
// smooth falloff plus noise (about a 50 km map at 90 m).
func BenchmarkContours(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1200
	r := &Raster{West: -43.8, North: -22.5, PixelLonDeg: 3.0 / 3600, PixelLatDeg: 3.0 / 3600, Width: n, Height: n, DBm: make([]float32, n*n)}
	for row := range n {
		for col := range n {
			d := math.Hypot(float64(row-n/2), float64(col-n/2))
			r.DBm[row*n+col] = float32(-40 - 20*math.Log10(1+d) - 15*rng.Float64())
			if d > n/2 {
				r.DBm[row*n+col] = float32(math.NaN())
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		fs, err := Contours(r, []float64{-75, -85, -95}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if b.N == 1 {
			for _, f := range fs {
				b.Logf("%g dBm: %d polygons, %d pixels", f.Properties[0].Float64(), len(f.Geometry.Polygons), f.Properties[2].Int64())
			}
		}
	}
}

// TestContourWarningCodesInShapefile: the .dbf's warnings field holds
// the eight codes the ray tracer itself can give a map (203 bytes, were
// cut at 200 mid-code), and a longer list (a tower's or a building
// layer's caveats besides) is cut between codes, saying how many it left
// out; GDAL reads what was written.
func TestContourWarningCodesInShapefile(t *testing.T) {
	ogrinfo := tooltest.Need(t, "ogrinfo", "gdal-bin")
	raytraced := []string{"eirp_assumed", "raytrace_material_out_of_range", "raytrace_tx_inside_building", "raytrace_assumed_heights",
		"raytrace_clutter_beyond_extent", "raytrace_rx_inside_building", "raytrace_no_path", "raytrace_pattern_along_bearing"}
	for _, c := range []struct {
		name  string
		codes []string
		want  string
	}{
		{"a ray-traced map's eight codes whole", raytraced, strings.Join(raytraced, ";")},
		{"twelve codes cut between codes", append(slices.Clone(raytraced), "raytrace_scene_truncated", "raytrace_paths_truncated", "raytrace_terrain_void", "outside_validity"),
			strings.Join(raytraced, ";") + ";raytrace_scene_truncated;+3 more"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum := &Summary{Engine: "raytrace", EIRPDBm: math.NaN()}
			for _, code := range c.codes {
				sum.Warnings = append(sum.Warnings, appliance.Warning{Code: code, Message: "m"})
			}
			fs, err := Contours(synthRaster([]float64{-60, -90}, []float64{-90, -60}), []float64{-70}, sum)
			if err != nil {
				t.Fatal(err)
			}
			var zipb bytes.Buffer
			if err := geoexport.Export(&zipb, geoexport.FormatShapefile, "contours", ContourSchema(), geoexport.Slice(fs), ContourKMLOptions(), geoexport.FixedDate()); err != nil {
				t.Fatal(err)
			}
			zipPath := filepath.Join(t.TempDir(), "contours.zip")
			if err := os.WriteFile(zipPath, zipb.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(ogrinfo, "-ro", "-al", "-q", "/vsizip/"+zipPath+"/contours.shp").CombinedOutput()
			if err != nil {
				t.Fatalf("ogrinfo: %v\n%s", err, out)
			}
			m := regexp.MustCompile(`(?m)^\s*warnings \(String\) = (.*)$`).FindStringSubmatch(string(out))
			if m == nil || m[1] != c.want {
				t.Fatalf("the .dbf's warnings read back as %q, want %q (%d bytes)", m, c.want, len(c.want))
			}
		})
	}
}
