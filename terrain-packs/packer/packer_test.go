package packer_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

const (
	rio     = "../testdata/S23W044.hgt.zip"
	interio = "../testdata/S22W043.hgt.zip"
	chubut  = "../testdata/S46W066.hgt.gz"
)

func buildPack(t testing.TB, inputs []string, opts packer.Options) (string, packer.Stats) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "test.ltp")
	st, err := packer.Build(t.Context(), out, inputs, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return out, st
}

// TestRoundTrip checks that every tile of a pack equals its .hgt source
// sample for sample, voids aside (they are filled).
func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		inputs []string
	}{
		{"srtm3 rio pair", []string{rio, interio}},
		{"srtm1 chubut", []string{chubut}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, st := buildPack(t, tc.inputs, packer.Options{})
			p, err := terrain.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if st.LandTiles != len(tc.inputs) {
				t.Fatalf("land tiles = %d, want %d", st.LandTiles, len(tc.inputs))
			}
			for _, in := range tc.inputs {
				raw, spd, err := packer.ReadHGT(in)
				if err != nil {
					t.Fatal(err)
				}
				if spd != p.Header().SamplesPerDegree {
					t.Fatalf("%s: grid %d, pack grid %d", in, spd, p.Header().SamplesPerDegree)
				}
				tile, _ := packer.TileFromFileName(in)
				got, err := p.ReadTile(tile)
				if err != nil {
					t.Fatal(err)
				}
				voids, diff := 0, 0
				for i, v := range raw {
					if v == terrain.NoData {
						voids++
						if got[i] == terrain.NoData {
							t.Fatalf("%s: void %d not filled", in, i)
						}
						continue
					}
					if got[i] != v {
						diff++
					}
				}
				if diff != 0 {
					t.Errorf("%s: %d non-void samples differ from the .hgt", in, diff)
				}
				e, _ := p.Entry(tile)
				if int(e.Filled) != voids {
					t.Errorf("%s: index says %d filled, source has %d voids", in, e.Filled, voids)
				}
				t.Logf("%s: %d samples equal, %d voids filled, payload %d bytes = %.1f %% of raw int16",
					tile, len(raw)-voids, voids, e.Length, 100*float64(e.Length)/float64(2*len(raw)))
			}
		})
	}
}

// TestRealVoidCounts pins the void counts documented in PROVENANCE.md.
func TestRealVoidCounts(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		voids int
		spd   int
	}{
		{"rio", rio, 3789, 1200},
		{"interior", interio, 160, 1200},
		{"chubut 1 arcsec", chubut, 0, 3600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, spd, err := packer.ReadHGT(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, v := range s {
				if v == terrain.NoData {
					n++
				}
			}
			if n != tc.voids || spd != tc.spd {
				t.Errorf("voids, grid = %d, %d; want %d, %d", n, spd, tc.voids, tc.spd)
			}
		})
	}
}

func TestFillVoids(t *testing.T) {
	const v = terrain.NoData
	cases := []struct {
		name   string
		n      int
		in     []int16
		want   []int16 // tolerance 0: integers
		filled int
		ok     bool
	}{
		{
			name: "single void in a plane takes the mean of its 4 neighbours",
			n:    3,
			in:   []int16{10, 20, 30, 10, v, 30, 10, 20, 30},
			want: []int16{10, 20, 30, 10, 20, 30, 10, 20, 30}, filled: 1, ok: true,
		},
		{
			name: "two voids solve the membrane equations",
			n:    4,
			// x1 = (20+20+10+x2)/4, x2 = (30+30+40+x1)/4: x1 = 20, x2 = 30.
			in:   []int16{10, 20, 30, 40, 10, v, v, 40, 10, 20, 30, 40, 10, 20, 30, 40},
			want: []int16{10, 20, 30, 40, 10, 20, 30, 40, 10, 20, 30, 40, 10, 20, 30, 40}, filled: 2, ok: true,
		},
		{
			name: "the coastline (0 m) is no-flux: the land border holds the void",
			n:    4,
			// Row 0: 0 x1 x2 90 over sea: the sea samples are left out of
			// the means, so x1 = x2 = 90.
			in:   []int16{0, v, v, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			want: []int16{0, 90, 90, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, filled: 2, ok: true,
		},
		{
			name: "a coastal void between two land samples is their membrane",
			n:    4,
			// Row 0: 10 x1 x2 90 over sea: x1 = (10+x2)/2, x2 = (x1+90)/2,
			// so x1 = 36.67, x2 = 63.33.
			in:   []int16{10, v, v, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			want: []int16{10, 37, 63, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, filled: 2, ok: true,
		},
		{
			name: "a void ringed by sea stays at sea level",
			n:    3,
			in:   []int16{0, 0, 0, 0, v, -1, 0, 0, 0},
			want: []int16{0, 0, 0, 0, 0, -1, 0, 0, 0}, filled: 1, ok: true,
		},
		{
			name: "no void changes nothing",
			n:    2, in: []int16{1, 2, 3, 4}, want: []int16{1, 2, 3, 4}, filled: 0, ok: true,
		},
		{
			name: "all void is not ok",
			n:    2, in: []int16{v, v, v, v}, want: []int16{v, v, v, v}, filled: 0, ok: false,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := append([]int16(nil), tc.in...)
			filled, ok := packer.FillVoids(s, tc.n)
			if filled != tc.filled || ok != tc.ok {
				t.Fatalf("filled, ok = %d, %v; want %d, %v", filled, ok, tc.filled, tc.ok)
			}
			for i := range s {
				if s[i] != tc.want[i] {
					t.Fatalf("sample %d = %d, want %d (all %v)", i, s[i], tc.want[i], s)
				}
			}
		})
	}
}

// TestFillVoidsSeaPinned checks the baseline TestFillError measures
// against: the membrane with the sea border held at 0 m.
func TestFillVoidsSeaPinned(t *testing.T) {
	const v = terrain.NoData
	// Row 0: 0 x1 x2 90 over sea: x1 = (0+0+x2)/3, x2 = (x1+90+0)/3, so
	// x2 = 33.75, x1 = 11.25.
	s := []int16{0, v, v, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if filled, ok := packer.FillVoidsSeaPinned(s, 4); filled != 2 || !ok || s[1] != 11 || s[2] != 34 {
		t.Fatalf("filled %d, ok %v, row 0 %v; want 2, true, [0 11 34 90]", filled, ok, s[:4])
	}
}

// TestFillVoidsRealHoles punches holes into the real Rio tile where the
// truth is known and checks that the fill is close to it.
func TestFillVoidsRealHoles(t *testing.T) {
	s, spd, err := packer.ReadHGT(interio)
	if err != nil {
		t.Fatal(err)
	}
	n := spd + 1
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	for trial := 0; trial < 20; trial++ {
		work := append([]int16(nil), s...)
		// A 5×5 hole away from the real voids and the edges.
		var r0, c0 int
		for {
			r0, c0 = 10+rng.Intn(n-30), 10+rng.Intn(n-30)
			clean := true
			for r := r0 - 3; r < r0+8; r++ {
				for c := c0 - 3; c < c0+8; c++ {
					clean = clean && work[r*n+c] != terrain.NoData
				}
			}
			if clean {
				break
			}
		}
		lo, hi := int16(math.MaxInt16), int16(math.MinInt16)
		for r := r0 - 1; r < r0+6; r++ {
			for c := c0 - 1; c < c0+6; c++ {
				lo, hi = min(lo, work[r*n+c]), max(hi, work[r*n+c])
			}
		}
		for r := r0; r < r0+5; r++ {
			for c := c0; c < c0+5; c++ {
				work[r*n+c] = terrain.NoData
			}
		}
		FillAndCheck := func() {
			if _, ok := packer.FillVoids(work, n); !ok {
				t.Fatal("not ok")
			}
		}
		FillAndCheck()
		for r := r0; r < r0+5; r++ {
			for c := c0; c < c0+5; c++ {
				// A convex combination of the hole's surroundings (the nearest
				// valid samples on the 8 lines lie in the 7×7 ring or beyond
				// it on the lines only if the ring is valid, which it is).
				if v := work[r*n+c]; v < lo || v > hi {
					t.Fatalf("seed %d trial %d: filled %d at (%d,%d) outside the ring's range %d..%d", seed, trial, v, r, c, lo, hi)
				}
			}
		}
	}
}

// defaultSeed seeds the randomized tests unless SEED= is set.
const defaultSeed = 20240601

func seedFromEnv(t *testing.T) int64 {
	seed := int64(defaultSeed)
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (set SEED= to change)", seed)
	return seed
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "S10W050.hgt")
	if err := os.WriteFile(bad, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	unnamed := filepath.Join(dir, "dem.hgt")
	if err := os.WriteFile(unnamed, make([]byte, 1201*1201*2), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		inputs  []string
		opts    packer.Options
		invalid bool
	}{
		{"no inputs", nil, packer.Options{}, true},
		{"the same input twice", []string{rio, rio}, packer.Options{}, true},
		{"sea tile that has an input", []string{rio}, packer.Options{SeaTiles: []string{"S23W044"}}, true},
		{"bad sea name", nil, packer.Options{SeaTiles: []string{"X23W044"}}, true},
		{"mixed grids", []string{rio, chubut}, packer.Options{}, true},
		{"wrong size", []string{bad}, packer.Options{}, false},
		{"name without a tile", []string{unnamed}, packer.Options{}, true},
		{"missing file", []string{filepath.Join(dir, "S01W001.hgt")}, packer.Options{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.ltp")
			_, err := packer.Build(t.Context(), out, tc.inputs, tc.opts)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			if got := errors.Is(err, appliance.ErrInvalid); got != tc.invalid {
				t.Errorf("errors.Is(ErrInvalid) = %v, want %v (%v)", got, tc.invalid, err)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("a failed build left %s", out)
			}
		})
	}
}

// TestMixedGridResample builds a 3″ pack from a 1″ tile: decimation is
// exact, so every pack sample equals every third source sample.
func TestMixedGridResample(t *testing.T) {
	out, _ := buildPack(t, []string{rio, chubut}, packer.Options{SamplesPerDegree: 1200})
	p, err := terrain.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src, _, err := packer.ReadHGT(chubut)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.ReadTile(terrain.TileID{Lat: -46, Lon: -66})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 1201; r++ {
		for c := 0; c < 1201; c++ {
			if want := src[3*r*3601+3*c]; got[r*1201+c] != want {
				t.Fatalf("(%d,%d) = %d, want %d", r, c, got[r*1201+c], want)
			}
		}
	}
}

func TestSeaTilesAndDeterminism(t *testing.T) {
	opts := packer.Options{SeaTiles: []string{"S24W043", "S23W043"}}
	a, sta := buildPack(t, []string{rio, interio}, opts)
	b, stb := buildPack(t, []string{interio, rio}, opts) // order of inputs does not matter
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) || sta.SHA256 != stb.SHA256 {
		t.Fatal("same inputs gave different packs")
	}
	if sta.SeaTiles != 2 || sta.Tiles != 4 {
		t.Fatalf("stats %+v", sta)
	}
	p, err := terrain.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	prof, err := p.Profile(appliance.LatLon{Lat: -22.9, Lon: -43.2}, appliance.LatLon{Lat: -22.9, Lon: -42.8}, 500)
	if err != nil {
		t.Fatal(err)
	}
	sawSea := false
	a0, b0 := appliance.LatLon{Lat: -22.9, Lon: -43.2}, appliance.LatLon{Lat: -22.9, Lon: -42.8}
	for i, d := range prof.DistancesM {
		q := a0.Intermediate(b0, d/prof.LengthM())
		if want := terrain.TileOf(q).Lon == -43; prof.Sea[i] != want {
			t.Fatalf("sample %d at %v: sea=%v, want %v", i, q, prof.Sea[i], want)
		}
		if prof.Sea[i] {
			sawSea = true
			if prof.HeightsM[i] != 0 {
				t.Fatalf("sea sample %d has height %g", i, prof.HeightsM[i])
			}
		}
	}
	if !sawSea {
		t.Fatal("no sea sample")
	}
}

func TestProgress(t *testing.T) {
	var got []packer.Progress
	_, _ = buildPack(t, []string{interio, rio}, packer.Options{
		SeaTiles: []string{"S24W043"},
		Progress: func(p packer.Progress) { got = append(got, p) },
	})
	if len(got) != 3 {
		t.Fatalf("%d progress calls, want 3", len(got))
	}
	for i, p := range got {
		if p.Done != i+1 || p.Total != 3 {
			t.Errorf("call %d: %+v", i, p)
		}
	}
}

func TestVerify(t *testing.T) {
	out, st := buildPack(t, []string{rio, interio}, packer.Options{})
	rep, err := packer.Verify(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TilesChecked != 2 || !rep.ManifestFound || !rep.ManifestOK || rep.SHA256 != st.SHA256 {
		t.Fatalf("report %+v", rep)
	}

	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := terrain.OpenBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	last := p.Entries()[1]
	cases := []struct {
		name string
		off  int64
	}{
		{"header byte", 20},
		{"index byte", terrain.HeaderSize + 3},
		{"first tile payload", p.Entries()[0].Offset + 100},
		{"last payload byte", last.Offset + last.Length - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]byte(nil), raw...)
			bad[tc.off] ^= 0x40
			path := filepath.Join(t.TempDir(), "bad.ltp")
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := packer.Verify(t.Context(), path); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("Verify = %v, want ErrCorrupt", err)
			}
		})
	}
	t.Run("manifest mismatch", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.ltp")
		other, _ := buildPack(t, []string{rio}, packer.Options{})
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := os.ReadFile(packer.ManifestPath(other))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(packer.ManifestPath(path), m, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := packer.Verify(t.Context(), path); !errors.Is(err, terrain.ErrCorrupt) {
			t.Fatalf("Verify = %v, want ErrCorrupt", err)
		}
	})
}
