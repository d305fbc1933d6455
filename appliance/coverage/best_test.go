package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/tooltest"
)

// TestBestSingleEqualsCompute: a best-server map of one transmitter is
// its own map, bit for bit, served by index 0.
func TestBestSingleEqualsCompute(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	one, err := svc.Compute(context.Background(), req, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	best, err := svc.ComputeBest(context.Background(), []Request{req}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, b := one.Raster, best.Raster
	if a.Width != b.Width || a.Height != b.Height || a.West != b.West || a.North != b.North {
		t.Fatalf("grids differ: %+v vs %+v", *a, *b)
	}
	for i := range a.DBm {
		if math.Float32bits(a.DBm[i]) != math.Float32bits(b.DBm[i]) {
			t.Fatalf("pixel %d: %v vs %v", i, a.DBm[i], b.DBm[i])
		}
		if want := int32(-1); a.DBm[i] == a.DBm[i] {
			want = 0
			if best.Server[i] != want {
				t.Fatalf("pixel %d served by %d", i, best.Server[i])
			}
		} else if best.Server[i] != want {
			t.Fatalf("no-data pixel %d served by %d", i, best.Server[i])
		}
	}
}

// TestBestTwoServers: the composite is the pixel-wise maximum whatever
// the order of the transmitters, and each serves part of the map.
func TestBestTwoServers(t *testing.T) {
	svc, _, _ := newService(t)
	a, b := tijuca(), tijuca()
	b.Tx = appliance.LatLon{Lat: -22.96, Lon: -43.24}
	b.AzimuthDeg = math.NaN()
	ab, err := svc.ComputeBest(context.Background(), []Request{a, b}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ba, err := svc.ComputeBest(context.Background(), []Request{b, a}, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	served := [2]int{}
	for i, v := range ab.Raster.DBm {
		if math.Float32bits(v) != math.Float32bits(ba.Raster.DBm[i]) {
			t.Fatalf("pixel %d: %v vs %v after swapping the transmitters", i, v, ba.Raster.DBm[i])
		}
		if s := ab.Server[i]; s >= 0 {
			served[s]++
			if o := ba.Server[i]; o != 1-s && ab.Raster.DBm[i] != v {
				t.Fatalf("pixel %d: server %d, swapped %d", i, s, o)
			}
		}
	}
	if served[0] == 0 || served[1] == 0 {
		t.Fatalf("servers %v: each transmitter should serve some pixels", served)
	}
	t.Logf("served %v, summary %+v", served, ab.Summary)
	var ve *appliance.ValidationError
	c := b
	c.ResolutionM = 30
	if _, err := svc.ComputeBest(context.Background(), []Request{a, c}, Options{}); !errors.As(err, &ve) || ve.Fields[0].Field != "sites[1].resolution_m" {
		t.Fatalf("mixed resolutions: got %v", err)
	}
}

// TestTilesProgressive: tiles are reported row-major, the first before the
// last radial finishes, each once, and their pixels do not change later.
func TestTilesProgressive(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.Engine = appliance.EngineITM
	req.RadiusM = 15000
	done, first := 0, -1
	var ids []string
	snap := map[string]string{}
	res, err := svc.Compute(context.Background(), req, Options{Workers: 2,
		OnProgress: func(d, _ int) { done = d },
		OnTile: func(td TileDone) {
			if first < 0 {
				first = done
			}
			ids = append(ids, td.Tile.ID)
			s, err := EncodeTile(td.Raster, td.Tile)
			if err != nil {
				t.Fatal(err)
			}
			snap[td.Tile.ID] = s
		}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Raster
	tiles := r.Tiles()
	if len(ids) != len(tiles) {
		t.Fatalf("%d tiles reported, want %d", len(ids), len(tiles))
	}
	for i, tl := range tiles {
		if ids[i] != tl.ID {
			t.Fatalf("tile %d is %s, want %s (row-major)", i, ids[i], tl.ID)
		}
		if s, _ := EncodeTile(r, tl); s != snap[tl.ID] {
			t.Fatalf("tile %s changed after it was reported", tl.ID)
		}
	}
	t.Logf("%d tiles; first reported after %d of %d radials", len(tiles), first, res.Summary.Radials)
	if len(tiles) > 1 && first >= res.Summary.Radials {
		t.Fatalf("first tile only after every radial")
	}
}

// TestGeoTIFFOfMap: gdalinfo reads the GeoTIFF of a map with the map's
// grid, NoData and the summary's extremes.
func TestGeoTIFFOfMap(t *testing.T) {
	bin := tooltest.Need(t, "gdalinfo", "gdal-bin")
	svc, _, _ := newService(t)
	req := tijuca()
	req.Tx = appliance.LatLon{Lat: -22.90, Lon: -43.05} // with missing terrain east of −43°
	req.RadiusM = 10000
	res, err := svc.Compute(context.Background(), req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Raster
	var buf bytes.Buffer
	if err := geoexport.WriteGeoTIFF(&buf, r.West, r.North, r.PixelLonDeg, r.PixelLatDeg, r.Width, r.Height, r.DBm, math.NaN()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "map.tif")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-stats", "-json", path).Output()
	if err != nil {
		t.Fatalf("gdalinfo: %v", err)
	}
	var gi struct {
		Size         []int     `json:"size"`
		GeoTransform []float64 `json:"geoTransform"`
		Bands        []struct {
			NoData   any     `json:"noDataValue"`
			Min      float64 `json:"minimum"`
			Maximum  float64 `json:"maximum"`
			Metadata map[string]map[string]string
		} `json:"bands"`
	}
	if err := json.Unmarshal(out, &gi); err != nil {
		t.Fatal(err)
	}
	if gi.Size[0] != r.Width || gi.Size[1] != r.Height || gi.GeoTransform[0] != r.West || gi.GeoTransform[3] != r.North {
		t.Fatalf("gdalinfo size %v geotransform %v, raster %dx%d at %g,%g", gi.Size, gi.GeoTransform, r.Width, r.Height, r.West, r.North)
	}
	b := gi.Bands[0]
	if nd, ok := b.NoData.(string); !ok || nd != "NaN" && nd != "nan" {
		t.Fatalf("nodata %v", b.NoData)
	}
	if math.Abs(b.Min-res.Summary.MinDBm) > 1e-3 || math.Abs(b.Maximum-res.Summary.MaxDBm) > 1e-3 {
		t.Fatalf("gdalinfo min/max %g/%g, summary %g/%g", b.Min, b.Maximum, res.Summary.MinDBm, res.Summary.MaxDBm)
	}
	valid := b.Metadata[""]["STATISTICS_VALID_PERCENT"]
	t.Logf("gdalinfo min/max %g/%g valid %s%% ; summary valid %d of %d", b.Min, b.Maximum, valid, res.Summary.ValidPixels, res.Summary.Pixels)
}
