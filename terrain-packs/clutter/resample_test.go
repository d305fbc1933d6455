package clutter_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"linkplan/terrain-packs/clutter"
	"linkplan/terrain-packs/geotiff"
)

// naiveSample is the reference for one ResampleTile sample: every vote point
// is projected exactly (no lattice) and read through Image.At, with the
// documented vote rules.
func naiveSample(tb testing.TB, img *geotiff.Image, latMin, lonMin, latMax, lonMax float64, n, k, i, j int) clutter.Class {
	tb.Helper()
	dLat := (latMax - latMin) / float64(n-1)
	dLon := (lonMax - lonMin) / float64(n-1)
	at := func(fi, fj float64) clutter.Class {
		c, err := clutter.ClassAtLatLon(img, latMax-fi*dLat, lonMin+fj*dLon)
		if errors.Is(err, geotiff.ErrOutOfBounds) {
			return clutter.Unknown
		}
		if err != nil {
			tb.Fatal(err)
		}
		return c
	}
	centre := at(float64(i), float64(j))
	if k == 1 {
		return centre
	}
	var votes [clutter.NumClasses + 1]int
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			votes[at(float64(i)+(float64(a)+0.5)/float64(k)-0.5, float64(j)+(float64(b)+0.5)/float64(k)-0.5)]++
		}
	}
	if 2*votes[clutter.Unknown] > k*k {
		return clutter.Unknown
	}
	best, bestN := clutter.Unknown, 0
	for _, c := range clutter.Classes() {
		if votes[c] > bestN {
			best, bestN = c, votes[c]
		}
	}
	if centre.Valid() && votes[centre] == bestN {
		best = centre
	}
	return best
}

func TestResampleTileMatchesNaive(t *testing.T) {
	img := openAP(t)
	cases := []struct {
		name                           string
		latMin, lonMin, latMax, lonMax float64 // degrees
		n, k                           int
		rowStep                        int // compare every rowStep-th row
		maxMismatch                    float64
	}{
		// 3″ grid over N00W052: 92.6 m cells = 3.1 AP pixels -> 3×3 votes.
		{"N00W052 3 arc-second majority", 0, -52, 1, -51, 1201, 3, 40, 0.001},
		// 0.9″ grid: cells of 27.8 m < 1.5 pixels -> nearest neighbour.
		{"nearest neighbour 0.1 degree", 1.0, -51.3, 1.1, -51.2, 401, 1, 4, 0.0005},
		// Tile across the north-east edge of the raster: 6.1″ cells = 6.2
		// pixels -> 6×6 votes; Unknown outside.
		{"raster edge", 1.5, -51.2, 2.0, -50.7, 301, 6, 3, 0.001},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := clutter.ResampleTile(img, c.latMin, c.lonMin, c.latMax, c.lonMax, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != c.n*c.n {
				t.Fatalf("%d samples, want %d", len(got), c.n*c.n)
			}
			compared, mismatched := 0, 0
			var hist [clutter.NumClasses + 1]int
			for i := 0; i < c.n; i += c.rowStep {
				for j := 0; j < c.n; j++ {
					want := naiveSample(t, img, c.latMin, c.lonMin, c.latMax, c.lonMax, c.n, c.k, i, j)
					compared++
					hist[got[i*c.n+j]]++
					if got[i*c.n+j] != want {
						mismatched++
					}
				}
			}
			// The lattice interpolation moves vote points by about 5 cm
			// (0.002 pixel): a point that close to a pixel edge may flip.
			t.Logf("%d samples compared, %d differ from the exact-projection reference; classes %v", compared, mismatched, hist)
			if float64(mismatched) > c.maxMismatch*float64(compared) {
				t.Errorf("%d of %d samples differ from the reference", mismatched, compared)
			}
			if hist[clutter.Forest] == 0 {
				t.Errorf("no forest in a forest-dominated tile: %v", hist)
			}
		})
	}
}

func TestResampleTileDeterministicAndEdges(t *testing.T) {
	img := openAP(t)
	a, err := clutter.ResampleTile(img, 0, -52, 1, -51, 301)
	if err != nil {
		t.Fatal(err)
	}
	b, err := clutter.ResampleTile(openAP(t), 0, -52, 1, -51, 301)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sample %d differs between runs: %s vs %s", i, a[i], b[i])
		}
	}
	// The AP raster starts at about 0.256° N: the south rows of N00W052
	// are outside and must be Unknown, the north-west corner is forest.
	if a[300*301+150] != clutter.Unknown {
		t.Errorf("south edge sample = %s, want Unknown", a[300*301+150])
	}
	far, err := clutter.ResampleTile(img, -23, -44, -22, -43, 11)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range far {
		if c != clutter.Unknown {
			t.Fatalf("tile far from the raster: sample %d = %s", i, c)
		}
	}
}

func TestResampleTileFuncCustomClassifier(t *testing.T) {
	img := openAP(t)
	// Everything valid becomes Urban; NoData (27) stays Unknown.
	got, err := clutter.ResampleTileFunc(img, 1.7, -52.47, 1.81, -52.4, 50, func(float64) clutter.Class { return clutter.Urban })
	if err != nil {
		t.Fatal(err)
	}
	var hist [clutter.NumClasses + 1]int
	for _, c := range got {
		hist[c]++
	}
	if hist[clutter.Urban] == 0 || hist[clutter.Unknown] == 0 || hist[clutter.Urban]+hist[clutter.Unknown] != 50*50 {
		t.Errorf("histogram %v: want only Urban and Unknown (NoData corner / outside)", hist)
	}
}

func TestResampleTileNeedsCRS(t *testing.T) {
	// The AP raster with its GeoKeyDirectory tag renamed (in memory) has
	// no CRS: resampling must refuse rather than guess.
	b, err := os.ReadFile("testdata/utm_cover_AP_rio_2020.tif")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	off := le.Uint32(b[4:])
	n := int(le.Uint16(b[off:]))
	for i := 0; i < n; i++ {
		e := b[int(off)+2+12*i:]
		if le.Uint16(e) == 34735 {
			le.PutUint16(e, 34999) // an unassigned private tag
		}
	}
	img, err := geotiff.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if img.EPSG != 0 {
		t.Fatalf("EPSG = %d after removing the geokeys", img.EPSG)
	}
	_, err = clutter.ResampleTile(img, 0, -52, 1, -51, 10)
	if !errors.Is(err, geotiff.ErrNoGeoreference) {
		t.Fatalf("err = %v, want ErrNoGeoreference", err)
	}
}

func BenchmarkResampleTile1201(b *testing.B) {
	img := openAP(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := clutter.ResampleTile(img, 0, -52, 1, -51, 1201); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResampleTile1201Naive is the baseline: exact projection and a
// locked Image.At for each of the 1201²×9 vote points.
func BenchmarkResampleTile1201Naive(b *testing.B) {
	img := openAP(b)
	b.ReportAllocs()
	for b.Loop() {
		out := make([]clutter.Class, 1201*1201)
		for i := 0; i < 1201; i++ {
			for j := 0; j < 1201; j++ {
				out[i*1201+j] = naiveSample(b, img, 0, -52, 1, -51, 1201, 3, i, j)
			}
		}
	}
}

func BenchmarkClassAtLatLon(b *testing.B) {
	img := openAP(b)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		lat := 0.3 + float64(k%1000)*0.0014
		lon := -52.4 + float64((k*7919)%1000)*0.0015
		k++
		if _, err := clutter.ClassAtLatLon(img, lat, lon); err != nil && !errors.Is(err, geotiff.ErrOutOfBounds) {
			b.Fatal(err)
		}
	}
}
