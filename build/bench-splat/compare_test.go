package main

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// anoFixture is the head of a real SPLAT! 1.4.2 -ano file (Debian splat
// 1.4.2-3, `splat -t tx.qth -L 10 -R 30 -metric -olditm -ano splat.ano`,
// transmitter at Sumaré, 700 MHz, no ERP: path loss in dB), plus two later
// lines of the same file, with the header's tab and comments as written.
const anoFixture = "44, 42\t; max_west, min_west\n" +
	"-22, -24\t; max_north, min_north\n" +
	"-22.9505885, 43.2358701, 50.445, -24.770, 68.27\n" +
	"-22.9500828, 43.2352052, 50.445, -28.398, 74.29 *\n" +
	"-22.9495770, 43.2345402, 50.445, -28.398, 142.96 *\n" +
	"-22.9485656, 43.2332104, 50.445, -28.398, 128.95 *\n" +
	"-22.9480598, 43.2325454, 50.445, -24.567, 127.82\n" +
	"-22.9804653, 43.0960861, 102.553, -3.187, 112.70\n" +
	"-23.1934813, 43.3604411, 205.091, -1.663, 118.75\n"

func TestParseANO(t *testing.T) {
	pts, err := parseANO(strings.NewReader(anoFixture))
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 7 {
		t.Fatalf("got %d points, want 7", len(pts))
	}
	want0 := anoPoint{Lat: -22.9505885, Lon: -43.2358701, AzimuthDeg: 50.445, ElevationDeg: -24.770, Value: 68.27}
	if !reflect.DeepEqual(pts[0], want0) {
		t.Errorf("first point %+v, want %+v", pts[0], want0)
	}
	want1 := anoPoint{Lat: -22.9500828, Lon: -43.2352052, AzimuthDeg: 50.445, ElevationDeg: -28.398, Value: 74.29, Obstructed: true}
	if !reflect.DeepEqual(pts[1], want1) {
		t.Errorf("second point %+v, want %+v", pts[1], want1)
	}
	flagged := 0
	for _, p := range pts {
		if p.Obstructed {
			flagged++
		}
		if p.Lon > -43 || p.Lon < -44 || p.Lat > -22 || p.Lat < -24 {
			t.Errorf("point %+v outside the file's header bounds", p)
		}
	}
	if flagged != 3 {
		t.Errorf("%d flagged points, want 3", flagged)
	}
	if pts[6].Value != 118.75 || pts[6].Obstructed {
		t.Errorf("last point %+v", pts[6])
	}
}

func TestParseANOErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"no header":    "-22.9505885, 43.2358701, 50.445, -24.770, 68.27\n",
		"short line":   "44, 42\n-22, -24\n-22.95, 43.23, 50.4, 68.27\n",
		"bad number":   "44, 42\n-22, -24\n-22.95, 43.23, 50.4, x, 68.27\n",
		"flag on head": "44, 42 *\n-22, -24\n",
	} {
		if _, err := parseANO(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A raster of 3″ pixels; points are matched to the pixel that holds them
// and compared as loss = EIRP − dBm on unflagged points only.
func TestAgree(t *testing.T) {
	const px = 1.0 / 1200
	r := &raster{w: 2, h: 2, x0: -43.24, y0: -22.95, dx: px, dy: -px,
		v:      []float64{-40, -50, -60, -9999},
		nodata: func(x float64) bool { return x == -9999 }}
	pts := []anoPoint{
		{Lat: -22.95 - 0.4*px, Lon: -43.24 + 0.2*px, Value: 101},                   // pixel (0,0): ours 60+40=100, |Δ| 1
		{Lat: -22.95 - 0.6*px, Lon: -43.24 + 1.9*px, Value: 107},                   // pixel (1,0): ours 110, |Δ| 3
		{Lat: -22.95 - 1.5*px, Lon: -43.24 + 0.5*px, Value: 100, Obstructed: true}, // pixel (0,1): ours 120, flagged
		{Lat: -22.95 - 1.5*px, Lon: -43.24 + 1.5*px, Value: 100},                   // NoData
		{Lat: -22.90, Lon: -43.24, Value: 100},                                     // outside
	}
	s := agree(pts, r, 60)
	if s.splatPoints != 5 || s.unflagged != 4 || s.matched != 2 || s.matchedAll != 3 {
		t.Fatalf("counts %+v", s)
	}
	if math.Abs(s.median-2) > 1e-9 || math.Abs(s.p95-2.9) > 1e-9 || math.Abs(s.meanSigned-1) > 1e-9 {
		t.Errorf("median %g p95 %g mean %g, want 2, 2.9, 1", s.median, s.p95, s.meanSigned)
	}
	if math.Abs(s.medianAll-3) > 1e-9 {
		t.Errorf("median over all points %g, want 3", s.medianAll)
	}
}

func TestTilesTouched(t *testing.T) {
	got := tilesTouched(-22.9516, -43.2372, 50)
	want := []string{"S23W043", "S23W044", "S24W043", "S24W044"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Rio 50 km: %v, want %v", got, want)
	}
	if got := tilesTouched(-22.9516, -43.2372, 30); !reflect.DeepEqual(got, want) {
		t.Errorf("Rio 30 km: %v, want %v", got, want)
	}
	if got, want := tilesTouched(10.5, 20.5, 1), []string{"N10E020"}; !reflect.DeepEqual(got, want) {
		t.Errorf("small circle: %v, want %v", got, want)
	}
}

func TestMissingMap(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if rc := run([]string{"compare", "-work", dir, "-maps", "nope", "-eirp-dbm", "60"}, &buf, &buf); rc != 1 {
		t.Errorf("missing map: exit %d, want 1 (%s)", rc, buf.String())
	}
	if !strings.Contains(buf.String(), "SPLAT! output missing") {
		t.Errorf("missing map message: %q", buf.String())
	}
}

// FuzzParseANO: SPLAT!'s alphanumeric output parser never panics, and
// what it accepts are finite numbers.
func FuzzParseANO(f *testing.F) {
	f.Add("44, 42\t; max_west, min_west\n-22, -24\t; max_north, min_north\n-22.9516, 43.2372, 90.00, 1.23, 120.50 *\n")
	f.Add("garbage\n1,2,3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := parseANO(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, p := range pts {
			if math.IsNaN(p.Lat) || math.IsInf(p.Lat, 0) || math.IsNaN(p.Lon) || math.IsInf(p.Lon, 0) || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				t.Fatalf("accepted a non-finite point %+v from %q", p, s)
			}
		}
	})
}
