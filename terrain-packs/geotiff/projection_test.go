package geotiff_test

import (
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/terrain-packs/geotiff"
)

// TestUTMAgainstPROJ compares Forward and Inverse with PROJ 9.1.1 (cs2cs
// EPSG:4326 -> EPSG:xxxxx, printed to 0.1 mm) at points up to 3.9° from the
// central meridian, for SIRGAS 2000 and WGS 84 UTM zones north and south.
func TestUTMAgainstPROJ(t *testing.T) {
	f, err := os.Open("testdata/utm_reference_proj.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	const tolM = 0.001  // metres: 0.1 mm print rounding + algorithm differences
	const tolDeg = 1e-8 // degrees, about 1 mm
	var maxFwd, maxInv float64
	for _, r := range rows[1:] {
		epsg, _ := strconv.Atoi(r[0])
		v := make([]float64, 4)
		for i := range v {
			v[i], err = strconv.ParseFloat(r[i+1], 64)
			if err != nil {
				t.Fatal(err)
			}
		}
		lat, lon, x, y := v[0], v[1], v[2], v[3]
		name := r[0] + " " + r[1] + " " + r[2]
		t.Run(name, func(t *testing.T) {
			p, err := geotiff.NewProjection(epsg)
			if err != nil {
				t.Fatal(err)
			}
			gx, gy := p.Forward(lat, lon)
			d := math.Hypot(gx-x, gy-y)
			maxFwd = math.Max(maxFwd, d)
			if d > tolM {
				t.Errorf("Forward = (%.4f, %.4f), PROJ (%.4f, %.4f): %.4f m apart", gx, gy, x, y, d)
			}
			glat, glon := p.Inverse(x, y)
			dd := math.Max(math.Abs(glat-lat), math.Abs(glon-lon))
			maxInv = math.Max(maxInv, dd)
			if dd > tolDeg {
				t.Errorf("Inverse = (%.10f, %.10f), want (%g, %g)", glat, glon, lat, lon)
			}
		})
	}
	t.Logf("%d points: max forward difference %.2e m, max inverse difference %.2e deg", len(rows)-1, maxFwd, maxInv)
}

func TestUTMRoundTrip(t *testing.T) {
	seed := uint64(20240607)
	if s := os.Getenv("SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, epsg := range []int{31965, 31976, 31977, 31982, 31983, 31985, 32601, 32722, 32760} {
		p, err := geotiff.NewProjection(epsg)
		if err != nil {
			t.Fatal(err)
		}
		zone, south := p.Zone()
		cm := float64(6*zone - 183)
		t.Run(strconv.Itoa(epsg), func(t *testing.T) {
			for i := 0; i < 2000; i++ {
				lat := rng.Float64()*80 - 40
				if south {
					lat = -lat*0.9 - 1
				} else {
					lat = math.Abs(lat) * 0.9
				}
				lon := cm + rng.Float64()*8 - 4
				x, y := p.Forward(lat, lon)
				glat, glon := p.Inverse(x, y)
				if math.Abs(glat-lat) > 1e-11 || math.Abs(glon-lon) > 1e-11 { // degrees, ~1 µm
					t.Fatalf("round trip (%g, %g) -> (%.3f, %.3f) -> (%.13f, %.13f)", lat, lon, x, y, glat, glon)
				}
			}
		})
	}
}

func TestNewProjection(t *testing.T) {
	cases := []struct {
		name       string
		epsg       int
		zone       int
		south      bool
		geographic bool
		err        error
	}{
		{"wgs84 geographic", 4326, 0, false, true, nil},
		{"sirgas geographic", 4674, 0, false, true, nil},
		{"sirgas utm 11N", 31965, 11, false, false, nil},
		{"sirgas utm 22N", 31976, 22, false, false, nil},
		{"sirgas utm 17S", 31977, 17, true, false, nil},
		{"sirgas utm 23S", 31983, 23, true, false, nil},
		{"sirgas utm 25S", 31985, 25, true, false, nil},
		{"wgs84 utm 1N", 32601, 1, false, false, nil},
		{"wgs84 utm 60S", 32760, 60, true, false, nil},
		{"unknown", 0, 0, false, false, geotiff.ErrNoGeoreference},
		{"sad69 utm 23S", 29193, 0, false, false, geotiff.ErrUnsupported},
		{"wgs84 utm 61N does not exist", 32661, 0, false, false, geotiff.ErrUnsupported},
		{"web mercator", 3857, 0, false, false, geotiff.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := geotiff.NewProjection(c.epsg)
			if !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			z, s := p.Zone()
			if z != c.zone || s != c.south || p.Geographic() != c.geographic || p.EPSG() != c.epsg {
				t.Errorf("zone %d south %v geographic %v epsg %d", z, s, p.Geographic(), p.EPSG())
			}
		})
	}
}

func TestUTMZone(t *testing.T) {
	cases := []struct {
		lon  float64
		want int
	}{{-180, 1}, {-177.1, 1}, {-51, 22}, {-48.0001, 22}, {-48, 23}, {-34.8, 25}, {179.99, 60}, {180, 60}}
	for _, c := range cases {
		t.Run(strconv.FormatFloat(c.lon, 'g', -1, 64), func(t *testing.T) {
			if got := geotiff.UTMZone(c.lon); got != c.want {
				t.Errorf("UTMZone(%g) = %d, want %d", c.lon, got, c.want)
			}
		})
	}
}

func TestLatLonLookupFortaleza(t *testing.T) {
	// fortaleza-srtm.tif has no geokeys; the caller supplies EPSG:4326.
	img := openFile(t, "fortaleza-srtm.tif", geotiff.Options{DefaultEPSG: 4326})
	for _, c := range fortalezaGDAL {
		lat := img.Transform.OriginY + (float64(c.row)+0.5)*img.Transform.PixelHeight
		lon := img.Transform.OriginX + (float64(c.col)+0.5)*img.Transform.PixelWidth
		got, err := img.AtLatLon(lat, lon)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12*math.Abs(c.want)+1e-13 {
			t.Errorf("AtLatLon(%g, %g) = %g, want %g", lat, lon, got, c.want)
		}
		glat, glon, err := img.PixelToLatLon(float64(c.col)+0.5, float64(c.row)+0.5)
		if err != nil || math.Abs(glat-lat) > 1e-12 || math.Abs(glon-lon) > 1e-12 {
			t.Errorf("PixelToLatLon = %g, %g, %v", glat, glon, err)
		}
	}
	if _, err := img.AtLatLon(-3.0, -38.5); !errors.Is(err, geotiff.ErrOutOfBounds) {
		t.Errorf("outside raster err = %v", err)
	}
	minX, minY, maxX, maxY, err := img.Bounds()
	// gdalinfo corners: UL (-38.5352766, -3.7191667), LR (-38.4497208, -3.8338889).
	if err != nil || math.Abs(minX+38.5352766) > 1e-7 || math.Abs(maxY+3.7191667) > 1e-7 ||
		math.Abs(maxX+38.4497208) > 1e-7 || math.Abs(minY+3.8338889) > 1e-7 {
		t.Errorf("bounds %g %g %g %g %v", minX, minY, maxX, maxY, err)
	}
}
