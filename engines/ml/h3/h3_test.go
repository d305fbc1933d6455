package h3

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
)

// Expected cells are h3-js 4.5.0's answers (build/h3-check), recorded.
func TestLatLngToCell(t *testing.T) {
	cases := []struct {
		name     string
		lat, lon float64
		res      int
		want     string
		base     int
	}{
		{"São Paulo, Praça da Sé, res 8", -23.55052, -46.633308, 8, "88a8100c03fffff", 84},
		{"São Paulo res 0", -23.55052, -46.633308, 0, "80a9fffffffffff", 84},
		{"São Paulo res 1 (class III)", -23.55052, -46.633308, 1, "81a83ffffffffff", 84},
		{"São Paulo res 15", -23.55052, -46.633308, 15, "8fa8100c028984c", 84},
		{"Rio de Janeiro res 8", -22.9068, -43.1729, 8, "88a8a06a0dfffff", 84},
		{"Brasília res 8", -15.7939, -47.8828, 8, "88a8c249d5fffff", 84},
		{"Manaus res 8", -3.1190, -60.0217, 8, "888af68ee9fffff", 69},
		{"Dortmund res 8", 51.5136, 7.4653, 8, "881f12cd09fffff", 15},
		{"null island res 8", 0, 0, 8, "88754e6499fffff", 58},
		{"north pole res 0", 90, 0, 0, "8001fffffffffff", 0},
		{"south pole res 0", -90, 0, 0, "80f3fffffffffff", 121},
		{"antimeridian east side", 0, 180, 5, "857eb573fffffff", 63},
		{"antimeridian west side, same cell", 0, -180, 5, "857eb573fffffff", 63},
		{"pentagon 4 centre res 8", 64.70000012793487, 10.536199075467682, 8, "8808000001fffff", 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LatLngToCell(tc.lat, tc.lon, tc.res)
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != tc.want || c.Resolution() != tc.res || c.BaseCell() != tc.base {
				t.Fatalf("got %s (res %d, base %d), want %s (res %d, base %d)", c, c.Resolution(), c.BaseCell(), tc.want, tc.res, tc.base)
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("%s does not validate: %v", c, err)
			}
		})
	}
}

func TestLatLngToCellRejects(t *testing.T) {
	cases := []struct {
		name     string
		lat, lon float64
		res      int
		want     error
	}{
		{"resolution -1", 0, 0, -1, ErrResolution},
		{"resolution 16", 0, 0, 16, ErrResolution},
		{"latitude NaN", math.NaN(), 0, 8, ErrLatLng},
		{"longitude +Inf", 0, math.Inf(1), 8, ErrLatLng},
		{"latitude 90.000001", 90.000001, 0, 8, ErrLatLng},
		{"longitude -180.5", 0, -180.5, 8, ErrLatLng},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := LatLngToCell(tc.lat, tc.lon, tc.res); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, %v; want %v", c, err, tc.want)
			}
		})
	}
}

func TestParseCell(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want error // nil: valid
	}{
		{"res 8 hexagon", "88a8100c03fffff", nil},
		{"upper case", "88A8100C03FFFFF", nil},
		{"res 0", "8001fffffffffff", nil},
		{"res 15", "8fa8100c028984c", nil},
		{"pentagon res 8", "8808000001fffff", nil},
		{"empty", "", ErrInvalidCell},
		{"16 digits with leading zero", "088a8100c03fffff", ErrInvalidCell},
		{"14 digits", "88a8100c03ffff", ErrInvalidCell},
		{"not hexadecimal", "88a8100c03fffzf", ErrInvalidCell},
		{"sign", "+8a8100c03fffff", ErrInvalidCell},
		{"mode 0", "08a8100c03fffff", ErrInvalidCell},
		{"base cell 122", "88f4100c03fffff", ErrInvalidCell},
		{"digit 1 is 7 inside the resolution", "88a9d00c03fffff", ErrInvalidCell},
		{"digit 5 is 7 inside the resolution", "88a8101c03fffff", ErrInvalidCell},
		{"used digit beyond the resolution", "87a8100c03fffff", ErrInvalidCell},
		{"reserved bits", "98a8100c03fffff", ErrInvalidCell},
		{"pentagon deleted k subsequence", "81087ffffffffff", ErrInvalidCell},
		{"pentagon res 3", "830800fffffffff", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCell(tc.in)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if c.String() != strings.ToLower(tc.in) {
					t.Fatalf("round trip: %q → %s", tc.in, c)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("ParseCell(%q) = %v, %v; want %v", tc.in, c, err, tc.want)
			}
		})
	}
}

func TestCellHierarchy(t *testing.T) {
	cases := []struct {
		name   string
		cell   string
		res    int
		parent string
		pent   bool
	}{
		{"res 8 to res 0", "88a8100c03fffff", 0, "80a9fffffffffff", false},
		{"res 8 to res 1", "88a8100c03fffff", 1, "81a83ffffffffff", false},
		{"res 15 to res 8", "8fa8100c028984c", 8, "88a8100c03fffff", false},
		{"res 8 to itself", "88a8100c03fffff", 8, "88a8100c03fffff", false},
		{"pentagon res 8", "8808000001fffff", 0, "8009fffffffffff", true},
		{"pentagon res 3", "830800fffffffff", 1, "81083ffffffffff", true},
		{"another res 8 hexagon", "88a8f00c03fffff", 1, "81a8fffffffffff", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCell(tc.cell)
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Parent(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			if p.String() != tc.parent {
				t.Fatalf("parent at %d: got %s, want %s", tc.res, p, tc.parent)
			}
			if c.IsPentagon() != tc.pent {
				t.Fatalf("IsPentagon = %v, want %v", c.IsPentagon(), tc.pent)
			}
		})
	}
	c, _ := ParseCell("88a8100c03fffff")
	if _, err := c.Parent(9); !errors.Is(err, ErrResolution) {
		t.Fatalf("parent at a finer resolution: %v", err)
	}
}

// TestCentreRoundTrip: every cell's centre encodes back to the cell, at
// every resolution (random points worldwide, seed printed).
func TestCentreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 2))
	for n := range 2000 {
		lat := radToDeg(math.Asin(2*rng.Float64() - 1))
		lon := 360*rng.Float64() - 180
		res := n % (MaxResolution + 1)
		c, err := LatLngToCell(lat, lon, res)
		if err != nil {
			t.Fatal(err)
		}
		clat, clon, err := CellToLatLng(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		back, err := LatLngToCell(clat, clon, res)
		if err != nil || back != c {
			t.Fatalf("(%v, %v) res %d → %s → centre (%v, %v) → %v (%v)", lat, lon, res, c, clat, clon, back, err)
		}
	}
}

// TestDeterministic: the same point always gives the same cell (no hidden
// state), across goroutines.
func TestDeterministic(t *testing.T) {
	want, err := LatLngToCell(-23.55052, -46.633308, 8)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 1000 {
				if c, err := LatLngToCell(-23.55052, -46.633308, 8); err != nil || c != want {
					errs <- errors.New("different cell")
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzParseCell(f *testing.F) {
	for _, s := range []string{"88a8100c03fffff", "8001fffffffffff", "8fa8100c028984c", "8808000001fffff", "8108fffffffffff", "", "zzzzzzzzzzzzzzz", "ffffffffffffffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCell(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidCell) {
				t.Fatalf("ParseCell(%q): error %v does not match ErrInvalidCell", s, err)
			}
			return
		}
		if c.String() != strings.ToLower(s) {
			t.Fatalf("ParseCell(%q) = %s: not its canonical form", s, c)
		}
		if c.Resolution() > MaxResolution || c.BaseCell() >= NumBaseCells {
			t.Fatalf("ParseCell(%q) accepted res %d base %d", s, c.Resolution(), c.BaseCell())
		}
		if _, err := c.Parent(0); err != nil {
			t.Fatal(err)
		}
		lat, lon, err := CellToLatLng(c)
		if err != nil {
			t.Fatalf("centre of valid %s: %v", c, err)
		}
		if back, err := LatLngToCell(lat, lon, c.Resolution()); err != nil || back != c {
			t.Fatalf("%s: centre (%v, %v) encodes to %v (%v)", c, lat, lon, back, err)
		}
	})
}

func BenchmarkLatLngToCell(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([][2]float64, 1024)
	for i := range pts {
		pts[i] = [2]float64{-33.75 + 39.03*rng.Float64(), -73.99 + 39.2*rng.Float64()}
	}
	b.ReportAllocs()
	cpu0 := cpuNanos(b)
	b.ResetTimer()
	for i := range b.N {
		p := pts[i%len(pts)]
		if _, err := LatLngToCell(p[0], p[1], 8); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNanos(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuNanos returns the process's user+system CPU time: on a loaded machine
// (CI shares 2 cores) cpu-ns/op is steadier than the wall-clock ns/op.
func cpuNanos(tb testing.TB) int64 {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkCellToLatLng(b *testing.B) {
	c, err := LatLngToCell(-23.55052, -46.633308, 8)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, n := cpuNanos(b), 0
	for b.Loop() {
		if _, _, err := CellToLatLng(c); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(cpuNanos(b)-cpu0)/float64(n), "cpu-ns/op")
}

func TestDigitOf(t *testing.T) {
	for d, u := range unitDigits {
		if got := digitOf(u); got != d {
			t.Errorf("digitOf(%v) = %d, want %d", u, got, d)
		}
		if got := digitOf(u.add(ijk{3, 3, 3})); got != d {
			t.Errorf("digitOf(%v + (3,3,3)) = %d, want %d", u, got, d)
		}
	}
	for _, c := range []ijk{{2, 0, 0}, {0, 2, 1}, {1, -1, 0}, {5, 5, 7}} {
		if got := digitOf(c); got != digitInvalid {
			t.Errorf("digitOf(%v) = %d, want invalid", c, got)
		}
	}
}

func TestCellText(t *testing.T) {
	type row struct {
		Cell Cell `json:"cell"`
	}
	cases := []struct {
		name    string
		json    string
		want    string
		wantErr bool
	}{
		{"valid", `{"cell":"88a8100c03fffff"}`, "88a8100c03fffff", false},
		{"upper case is read, written lower case", `{"cell":"88A8100C03FFFFF"}`, "88a8100c03fffff", false},
		{"invalid cell", `{"cell":"88f4100c03fffff"}`, "", true},
		{"number instead of string", `{"cell":123}`, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r row
			err := json.Unmarshal([]byte(tc.json), &r)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("accepted %s as %s", tc.json, r.Cell)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"cell":"` + tc.want + `"}`; string(out) != want {
				t.Fatalf("round trip: %s, want %s", out, want)
			}
		})
	}
	if _, err := json.Marshal(row{Cell: Cell(1)}); err == nil {
		t.Fatal("marshalled an invalid cell")
	}
}
