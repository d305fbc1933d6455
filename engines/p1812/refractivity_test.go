package p1812_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

// writeMap writes a 121×241 map in the ITU-R text layout whose value at
// (lat, lon) is fn(lat, lon), lat from +90 down, lon from 0 up.
func writeMap(tb testing.TB, path string, fn func(lat, lon float64) float64) {
	tb.Helper()
	var b strings.Builder
	for r := 0; r < 121; r++ {
		lat := 90 - 1.5*float64(r)
		for c := 0; c < 241; c++ {
			if c > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.6f", fn(lat, 1.5*float64(c)))
		}
		b.WriteString("\r\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// The ITU maps cannot be redistributed, so the loader is tested on maps in
// the same layout holding functions that bilinear interpolation reproduces
// exactly (affine in latitude and longitude).
func TestLoadRefractivityMaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dnf := func(lat, lon float64) float64 { return 40 + 0.1*lat + 0.01*lon }
	n0f := func(lat, lon float64) float64 { return 300 - 0.5*lat + 0.02*lon }
	writeMap(t, filepath.Join(dir, "DN50.TXT"), dnf)
	writeMap(t, filepath.Join(dir, "n050.txt"), n0f)
	m, err := p1812.LoadRefractivityMaps(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		lat, lon float64 // lon as given to At (east positive, may be negative)
		lon360   float64 // the same longitude in 0..360
	}{
		{"Rio de Janeiro", -22.9, -43.2, 316.8},
		{"Manaus", -3.1, -60.0, 300},
		{"grid node", -15, 315, 315},
		{"north pole", 90, 10, 10},
		{"south pole", -90, 10, 10},
		{"greenwich", 51.5, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dn, n0 := m.At(tc.lat, tc.lon)
			if w := dnf(tc.lat, tc.lon360); math.Abs(dn-w) > 1e-6 {
				t.Errorf("ΔN = %.6f want %.6f", dn, w)
			}
			if w := n0f(tc.lat, tc.lon360); math.Abs(n0-w) > 1e-6 {
				t.Errorf("N0 = %.6f want %.6f", n0, w)
			}
			dr, nr := p1812.Refractivity(m, tc.lat, tc.lon)
			if dr != dn || nr != n0 {
				t.Errorf("Refractivity differs from At")
			}
		})
	}
	if _, err := p1812.LoadRefractivityMaps(t.TempDir()); err == nil {
		t.Error("empty directory: want an error")
	}
}

func TestRefractivityDefaults(t *testing.T) {
	t.Parallel()
	dn, n0 := p1812.Refractivity(nil, -22.9, -43.2)
	if dn != p1812.DefaultDeltaN || n0 != p1812.DefaultN0 {
		t.Errorf("got %g, %g want the defaults", dn, n0)
	}
}

func TestPathCentre(t *testing.T) {
	t.Parallel()
	// The rburg validation case logs φ = 48.58877214° for d = 96.2 km.
	lat, _ := p1812.PathCentre(48.99472222, 12.07722222, 48.18694444, 11.62972222, 96.2)
	if math.Abs(lat-48.58877214) > 1e-8 {
		t.Errorf("lat = %.10f want 48.58877214", lat)
	}
	// Along the equator the mid-point of 0°E–10°E at half the arc is 5°E.
	arc := 10 * math.Pi / 180 * p1812.EarthRadius
	lat, lon := p1812.PathCentre(0, 0, 0, 10, arc)
	if math.Abs(lat) > 1e-9 || math.Abs(lon-5) > 1e-9 {
		t.Errorf("equator mid-point = %g, %g want 0, 5", lat, lon)
	}
}

func TestParseMapInvalid(t *testing.T) {
	t.Parallel()
	row := strings.Repeat("1 ", 241) + "\n"
	tests := []struct {
		name string
		text string
	}{
		{"empty", ""},
		{"short row", strings.Repeat(row, 120) + strings.Repeat("1 ", 240) + "\n"},
		{"too few rows", strings.Repeat(row, 120)},
		{"too many rows", strings.Repeat(row, 122)},
		{"not a number", strings.Repeat(row, 120) + strings.Repeat("1 ", 240) + "x\n"},
		{"NaN", strings.Repeat(row, 120) + strings.Repeat("1 ", 240) + "NaN\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p1812.ParseMap(strings.NewReader(tc.text))
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if v, err := p1812.ParseMap(strings.NewReader("\n" + strings.Repeat(row, 121) + "\n\n")); err != nil || len(v) != 121*241 {
		t.Errorf("valid map with blank lines: %d values, %v", len(v), err)
	}
}

// FuzzParseMap checks that ParseMap never panics and that what it accepts
// has the map shape and finite values.
func FuzzParseMap(f *testing.F) {
	row := strings.Repeat("45.5 ", 241) + "\n"
	f.Add([]byte(strings.Repeat(row, 121)))
	f.Add([]byte(strings.Repeat(row, 120)))
	f.Add([]byte("1 2 3\n4 5 6\n"))
	f.Add([]byte(""))
	f.Add([]byte(strings.Repeat(strings.Repeat("3.2e2\t", 241)+"\r\n", 121)))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := p1812.ParseMap(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(v) != 121*241 {
			t.Fatalf("accepted %d values", len(v))
		}
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("accepted non-finite %v", x)
			}
		}
	})
}
