//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/tooltest"
)

// covSummary is the JSON line of `linkplan coverage` the tests check.
type covSummary struct {
	Out                  string   `json:"out"`
	Width                int      `json:"width"`
	Height               int      `json:"height"`
	West                 float64  `json:"west"`
	North                float64  `json:"north"`
	PixelLonDeg          float64  `json:"pixel_lon_deg"`
	PixelLatDeg          float64  `json:"pixel_lat_deg"`
	Pixels               int      `json:"pixels"`
	InRadiusPixels       int      `json:"in_radius_pixels"`
	ValidPixels          int      `json:"valid_pixels"`
	NoDataPixels         int      `json:"nodata_pixels"`
	NoDataMissingTerrain int      `json:"nodata_missing_terrain"`
	MissingTiles         []string `json:"missing_tiles"`
	MinDBm               *float64 `json:"min_dbm"`
	MaxDBm               *float64 `json:"max_dbm"`
	ElapsedMS            *int64   `json:"elapsed_ms"`
	Engine               string   `json:"engine"`
	EngineVersion        string   `json:"engine_version"`
	Tower                string   `json:"tower"`
	EIRPDBm              float64  `json:"eirp_dbm"`
	EIRPAssumed          bool     `json:"eirp_assumed"`
}

// covGdalInfo is the part of `gdalinfo -json -stats` the tests check.
type covGdalInfo struct {
	Driver           string    `json:"driverShortName"`
	Size             []int     `json:"size"`
	GeoTransform     []float64 `json:"geoTransform"`
	CoordinateSystem struct {
		WKT string `json:"wkt"`
	} `json:"coordinateSystem"`
	Bands []struct {
		Type        string                       `json:"type"`
		NoDataValue any                          `json:"noDataValue"`
		Metadata    map[string]map[string]string `json:"metadata"`
	} `json:"bands"`
}

// rioSite is Sumaré (Rio de Janeiro), 50 m above ground: inside the
// embedded sample tile S23W044, the transmitter of the SPLAT! benchmark.
const rioSite = "-22.9516,-43.2372,50"

// runCoverage runs `linkplan coverage` and decodes its summary line.
func runCoverage(t *testing.T, bin string, args ...string) (covSummary, string) {
	t.Helper()
	out, errOut, code := runCLI(t, bin, append([]string{"coverage"}, args...)...)
	if code != 0 {
		t.Fatalf("coverage %v: exit %d\nstderr %s", args, code, errOut)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("stdout is not one JSON line: %q", out)
	}
	var s covSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	return s, errOut
}

func gdalinfoStats(t *testing.T, path string) covGdalInfo {
	t.Helper()
	bin := tooltest.Need(t, "gdalinfo", "gdal-bin")
	out, err := exec.Command(bin, "-json", "-stats", path).CombinedOutput()
	if err != nil {
		t.Fatalf("gdalinfo: %v\n%s", err, out)
	}
	var gi covGdalInfo
	if err := json.Unmarshal(out, &gi); err != nil {
		t.Fatalf("gdalinfo json: %v\n%s", err, out)
	}
	return gi
}

// TestCoverageGeoTIFF computes 5 km maps around Sumaré on the embedded Rio
// sample with fspl and itm and checks the GeoTIFF with gdalinfo against
// the printed summary: size, georeferencing, EPSG:4326, NoData, valid
// share and the band's extremes.
func TestCoverageGeoTIFF(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	for _, engine := range []string{"fspl", "itm"} {
		t.Run(engine, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "map.tif")
			s, _ := runCoverage(t, bin, "--site", rioSite, "--eirp-dbm", "60", "--frequency-mhz", "700",
				"--radius-km", "5", "--rx-height-m", "10", "--engine", engine, "--resolution-m", "90", "--out", path)
			if s.Engine != engine || s.EngineVersion == "" || s.ElapsedMS == nil || s.EIRPDBm != 60 {
				t.Fatalf("summary engine %q version %q elapsed %v eirp %g", s.Engine, s.EngineVersion, s.ElapsedMS, s.EIRPDBm)
			}
			if s.Pixels != s.Width*s.Height || s.ValidPixels == 0 || s.ValidPixels != s.InRadiusPixels ||
				s.NoDataPixels != s.Pixels-s.ValidPixels || len(s.MissingTiles) != 0 || s.NoDataMissingTerrain != 0 {
				t.Fatalf("summary counts: %+v", s)
			}
			if s.MinDBm == nil || s.MaxDBm == nil || *s.MinDBm >= *s.MaxDBm || *s.MaxDBm > 60 {
				t.Fatalf("summary min/max %v/%v", s.MinDBm, s.MaxDBm)
			}
			// 3″ pixels at Rio for 90 m, and a 5 km box: about 10 km square.
			if s.PixelLatDeg != 3.0/3600 || s.PixelLonDeg != 3.0/3600 || s.Width < 100 || s.Width > 140 || s.Height < 100 || s.Height > 140 {
				t.Fatalf("grid %dx%d pixels of %g×%g°", s.Width, s.Height, s.PixelLonDeg, s.PixelLatDeg)
			}

			gi := gdalinfoStats(t, path)
			if gi.Driver != "GTiff" || len(gi.Size) != 2 || gi.Size[0] != s.Width || gi.Size[1] != s.Height {
				t.Fatalf("gdalinfo driver %q size %v, want GTiff %dx%d", gi.Driver, gi.Size, s.Width, s.Height)
			}
			want := []float64{s.West, s.PixelLonDeg, 0, s.North, 0, -s.PixelLatDeg}
			for i := range want {
				if len(gi.GeoTransform) != 6 || math.Abs(gi.GeoTransform[i]-want[i]) > 1e-12 {
					t.Fatalf("geotransform %v, want %v", gi.GeoTransform, want)
				}
			}
			if !strings.Contains(gi.CoordinateSystem.WKT, `ID["EPSG",4326]`) {
				t.Fatalf("coordinate system is not EPSG:4326: %s", gi.CoordinateSystem.WKT)
			}
			if len(gi.Bands) != 1 || gi.Bands[0].Type != "Float32" {
				t.Fatalf("bands %+v, want one Float32", gi.Bands)
			}
			b := gi.Bands[0]
			if nd, ok := b.NoDataValue.(string); !ok || !strings.EqualFold(nd, "nan") {
				t.Fatalf("NoData %v (%T), want NaN", b.NoDataValue, b.NoDataValue)
			}
			md := b.Metadata[""]
			stat := func(key string) float64 {
				v, err := strconv.ParseFloat(md[key], 64)
				if err != nil {
					t.Fatalf("band metadata %s: %v (%v)", key, err, md)
				}
				return v
			}
			// GDAL prints the statistics with 14 significant digits; the
			// summary's extremes are the float32 pixels widened to float64.
			for _, c := range []struct {
				key  string
				want float64
			}{{"STATISTICS_MAXIMUM", *s.MaxDBm}, {"STATISTICS_MINIMUM", *s.MinDBm}} {
				got := stat(c.key)
				if math.Abs(got-c.want) > 1e-6*math.Abs(c.want) || float32(got) != float32(c.want) {
					t.Errorf("%s %.10g, summary %.10g", c.key, got, c.want)
				}
			}
			if got, want := stat("STATISTICS_VALID_PERCENT"), 100*float64(s.ValidPixels)/float64(s.Pixels); math.Abs(got-want) > 0.01 {
				t.Errorf("valid %.2f %%, summary %.4f %%", got, want)
			}
		})
	}
}

// TestCoverageDeterministicWorkers: the GeoTIFF does not depend on --workers.
func TestCoverageDeterministicWorkers(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	var files [2][]byte
	for i, w := range []string{"1", "3"} {
		path := filepath.Join(dir, "w"+w+".tif")
		runCoverage(t, bin, "--site", rioSite, "--frequency-mhz", "700", "--radius-km", "3", "--engine", "itm", "--workers", w, "--out", path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("the GeoTIFFs of --workers 1 and 3 differ")
	}
}

// TestCoverageMissingTerrain: a map crossing into a tile no pack holds
// names it, its pixels are NoData, and the run still succeeds; a
// transmitter without terrain fails with the tile named and no file left.
func TestCoverageMissingTerrain(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	// 2 km west of the meridian −43: S23W043 (Niterói) is not in the sample.
	s, errOut := runCoverage(t, bin, "--site", "-22.95,-43.02,30", "--frequency-mhz", "700", "--radius-km", "5", "--out", filepath.Join(dir, "edge.tif"))
	if len(s.MissingTiles) == 0 || s.MissingTiles[0] != "S23W043" || s.NoDataMissingTerrain == 0 || s.ValidPixels+s.NoDataMissingTerrain != s.InRadiusPixels {
		t.Fatalf("missing tiles %v, %d pixels no-data for missing terrain, %d valid of %d in radius", s.MissingTiles, s.NoDataMissingTerrain, s.ValidPixels, s.InRadiusPixels)
	}
	if !strings.Contains(errOut, "S23W043") {
		t.Errorf("stderr does not name the missing tile: %q", errOut)
	}

	out := filepath.Join(dir, "nowhere.tif")
	stdout, errOut, code := runCLI(t, bin, "coverage", "--site", "-10,-50,30", "--frequency-mhz", "700", "--radius-km", "5", "--out", out)
	if code != 1 || stdout != "" || !strings.Contains(errOut, "no terrain under the transmitter") || !strings.Contains(errOut, "S10W050") {
		t.Fatalf("transmitter off the terrain: exit %d\nstdout %q\nstderr %q", code, stdout, errOut)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a failed run left files: %v", ents)
	}
}

// TestCoverageTower takes the transmitter from the embedded sample towers.
func TestCoverageTower(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	s, _ := runCoverage(t, bin, "--tower", "anatel:1000029007", "--frequency-mhz", "700", "--radius-km", "2", "--out", filepath.Join(t.TempDir(), "tower.tif"))
	// The Anatel sample has no ERP: the planner's assumed EIRP.
	if s.Tower != "anatel:1000029007" || !s.EIRPAssumed || s.EIRPDBm != 58 || s.ValidPixels == 0 {
		t.Fatalf("tower map summary %+v", s)
	}
}

// TestCoverageBadFlags: command-line mistakes exit 2 and name the flag.
func TestCoverageBadFlags(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "map.tif")
	base := func(extra ...string) []string {
		return append([]string{"coverage", "--site", rioSite, "--frequency-mhz", "700", "--radius-km", "5"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		flag string
	}{
		{"missing --out", base(), "--out"},
		{"png out", base("--out", filepath.Join(dir, "map.png")), "--out"},
		{"bad --site", []string{"coverage", "--site", "-22.9,-43.2", "--frequency-mhz", "700", "--radius-km", "5", "--out", out}, "--site"},
		{"site not a number", []string{"coverage", "--site", "rio,-43.2,50", "--frequency-mhz", "700", "--radius-km", "5", "--out", out}, "--site"},
		{"site off the globe", []string{"coverage", "--site", "-95,-43.2,50", "--frequency-mhz", "700", "--radius-km", "5", "--out", out}, "--site"},
		{"no transmitter", []string{"coverage", "--frequency-mhz", "700", "--radius-km", "5", "--out", out}, "--site"},
		{"site and tower", base("--tower", "anatel:1000029007", "--out", out), "--site"},
		{"radius 0", []string{"coverage", "--site", rioSite, "--frequency-mhz", "700", "--radius-km", "0", "--out", out}, "--radius-km"},
		{"radius missing", []string{"coverage", "--site", rioSite, "--frequency-mhz", "700", "--out", out}, "--radius-km"},
		{"frequency missing", []string{"coverage", "--site", rioSite, "--radius-km", "5", "--out", out}, "--frequency-mhz"},
		{"unknown engine", base("--engine", "splat", "--out", out), "--engine"},
		{"resolution 0", base("--resolution-m", "0", "--out", out), "--resolution-m"},
		{"itm climate 9", base("--itm-climate", "9", "--out", out), "--itm-climate"},
		{"itm n0 100", base("--itm-n0", "100", "--out", out), "--itm-n0"},
		{"unknown tower", []string{"coverage", "--tower", "anatel:0", "--frequency-mhz", "700", "--radius-km", "5", "--out", out}, "--tower"},
		{"undefined flag", base("--power", "3", "--out", out), "-power"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, errOut, code := runCLI(t, bin, c.args...)
			if code != 2 || stdout != "" || !strings.Contains(errOut, c.flag) {
				t.Fatalf("exit %d, want 2 naming %s\nstdout %q\nstderr %q", code, c.flag, stdout, errOut)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("bad flags left files: %v", ents)
	}
}

// TestCoverageHelpListsBenchFlags: build/bench-splat/run.sh greps
// `linkplan coverage --help` for the flags it passes.
func TestCoverageHelpListsBenchFlags(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	out, _, _ := runCLI(t, bin, "coverage", "--help")
	for _, f := range []string{"site", "eirp-dbm", "frequency-mhz", "radius-km", "rx-height-m", "engine", "resolution-m", "terrain", "itm-climate", "itm-n0", "out", "tower", "towers", "azimuth-deg", "beamwidth-deg", "workers"} {
		if !strings.Contains(out, "-"+f+" ") {
			t.Errorf("--help lacks -%s:\n%s", f, out)
		}
	}
}

// TestIssue22_ExactCLI: `linkplan coverage --exact` computes every pixel
// on its own profile; the summary and the GeoTIFF metadata say so, and the
// default mode's say theirs.
func TestIssue22_ExactCLI(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	for _, mode := range []string{"exact", "default"} {
		path := filepath.Join(t.TempDir(), "map.tif")
		args := []string{"--site", rioSite, "--frequency-mhz", "700", "--radius-km", "3", "--engine", "itm", "--out", path}
		if mode == "exact" {
			args = append(args, "--exact")
		}
		out, errOut, code := runCLI(t, bin, append([]string{"coverage"}, args...)...)
		if code != 0 {
			t.Fatalf("coverage %v: exit %d\nstderr %s", args, code, errOut)
		}
		var s struct {
			Pixel struct {
				Mode, Receiver, Profile string
			} `json:"pixel"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Pixel.Mode != mode || !strings.Contains(s.Pixel.Receiver, "pixel centre") {
			t.Fatalf("%s: summary pixel %+v (%v): %s", mode, s.Pixel, err, out)
		}
		if _, err := exec.LookPath("gdalinfo"); err != nil {
			continue
		}
		gi, err := exec.Command("gdalinfo", "-json", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(gi), `"PIXEL_MODE":"`+mode+`"`) {
			t.Errorf("%s: GeoTIFF metadata lacks PIXEL_MODE: %s", mode, gi)
		}
	}
}
