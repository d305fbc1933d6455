package packer_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

var update = flag.Bool("update", false, "rewrite the committed synthetic GeoTIFF")

// peakTIFF is the committed SYNTHETIC GeoTIFF of TestSyntheticPeak_Finding1
// (web/api tests read it too).
const peakTIFF = "../testdata/sugarloaf-synthetic-peak.tif"

// Sugarloaf path of issue 7 and the point of the Pão de Açúcar summit it
// quotes (inside the SRTM void).
var (
	sugarloafA    = appliance.LatLon{Lat: -22.9555, Lon: -43.1640}
	sugarloafB    = appliance.LatLon{Lat: -22.905, Lon: -43.112}
	sugarloafPeak = appliance.LatLon{Lat: -22.9486, Lon: -43.1567}
)

// syntheticPeak returns a SYNTHETIC DEM, not a survey: a flat-topped cone
// 396 m high (the surveyed height of Pão de Açúcar) within 80 m of
// sugarloafPeak, falling linearly to 0 m at 700 m from it, 0 m beyond. It lies on the 3″ grid of
// S23W044 (pixel centres on the tile's samples, rows 1122-1152, columns
// 990-1026), int16 metres. It stands in for a void-filled DEM (SRTM v3,
// TOPODATA, ALOS, a survey) to test the priority inputs, and gives no
// real heights.
func syntheticPeak() (heights []int16, w, h int, west, north float64) {
	const spd = 1200.0
	r0, c0 := 1122, 990
	w, h = 37, 31
	west, north = -44+float64(c0)/spd-0.5/spd, -22-float64(r0)/spd+0.5/spd
	heights = make([]int16, w*h)
	const mPerDeg = 111320.0 // metres per degree of latitude
	coslat := math.Cos(sugarloafPeak.Lat * math.Pi / 180)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			lat := -22 - float64(r0+r)/spd
			lon := -44 + float64(c0+c)/spd
			dy := (lat - sugarloafPeak.Lat) * mPerDeg
			dx := (lon - sugarloafPeak.Lon) * mPerDeg * coslat
			switch d := math.Hypot(dx, dy); {
			case d <= 80:
				heights[r*w+c] = 396
			case d < 700:
				heights[r*w+c] = int16(math.Round(396 * (1 - (d-80)/620)))
			}
		}
	}
	return heights, w, h, west, north
}

// writeGeoTIFF returns a minimal little-endian GeoTIFF: one uncompressed
// strip of int16 samples, EPSG:4326, PixelIsArea, pixel size 1/1200°,
// north-west corner (west, north) in degrees, GDAL_NODATA -32768.
func writeGeoTIFF(samples []int16, w, h int, west, north float64) []byte {
	type field struct {
		tag, typ uint16
		count    uint32
		data     []byte
	}
	le := binary.LittleEndian
	shorts := func(v ...uint16) []byte {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			le.PutUint16(b[2*i:], x)
		}
		return b
	}
	long := func(v uint32) []byte { b := make([]byte, 4); le.PutUint32(b, v); return b }
	doubles := func(v ...float64) []byte {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			le.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	const (
		tShort, tLong, tASCII, tDouble = 3, 4, 2, 12
	)
	pixel := make([]byte, 2*len(samples))
	for i, v := range samples {
		le.PutUint16(pixel[2*i:], uint16(v))
	}
	fields := []field{
		{256, tLong, 1, long(uint32(w))},
		{257, tLong, 1, long(uint32(h))},
		{258, tShort, 1, shorts(16)},
		{259, tShort, 1, shorts(1)},
		{262, tShort, 1, shorts(1)},
		{273, tLong, 1, nil}, // strip offset, set below
		{277, tShort, 1, shorts(1)},
		{278, tLong, 1, long(uint32(h))},
		{279, tLong, 1, long(uint32(len(pixel)))},
		{284, tShort, 1, shorts(1)},
		{339, tShort, 1, shorts(2)},
		{33550, tDouble, 3, doubles(1.0/1200, 1.0/1200, 0)},
		{33922, tDouble, 6, doubles(0, 0, 0, west, north, 0)},
		{34735, tShort, 16, shorts(1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326)},
		{42113, tASCII, 7, []byte("-32768\x00")},
	}
	ifdOff := 8
	extra := ifdOff + 2 + 12*len(fields) + 4
	var tail []byte
	for i := range fields {
		if fields[i].tag == 273 {
			continue
		}
		if len(fields[i].data) > 4 {
			off := extra + len(tail)
			tail = append(tail, fields[i].data...)
			if len(tail)%2 == 1 {
				tail = append(tail, 0)
			}
			fields[i].data = long(uint32(off))
		}
	}
	stripOff := extra + len(tail)
	var b bytes.Buffer
	b.WriteString("II")
	b.Write(shorts(42))
	b.Write(long(uint32(ifdOff)))
	b.Write(shorts(uint16(len(fields))))
	for _, f := range fields {
		if f.tag == 273 {
			f.data = long(uint32(stripOff))
		}
		b.Write(shorts(f.tag, f.typ))
		b.Write(long(f.count))
		v := make([]byte, 4)
		copy(v, f.data)
		b.Write(v)
	}
	b.Write(long(0))
	b.Write(tail)
	b.Write(pixel)
	return b.Bytes()
}

// TestSyntheticPeakFile: the committed synthetic GeoTIFF is what
// syntheticPeak and writeGeoTIFF make (go test -run TestSyntheticPeakFile
// -update rewrites it).
func TestSyntheticPeakFile(t *testing.T) {
	want := writeGeoTIFF(syntheticPeak())
	if *update {
		if err := os.WriteFile(peakTIFF, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(peakTIFF)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; run go test ./terrain-packs/packer -run TestSyntheticPeakFile -update", peakTIFF)
	}
}

// TestSyntheticPeak_Finding1 (issue 7, finding 1): with the SRTM tile
// alone, the Sugarloaf path crosses void-filled samples and its highest
// ground is the few metres of the fill; with a second DEM that measured
// the void (here the SYNTHETIC peak of syntheticPeak, layered after the
// SRTM tile: earlier inputs win, later ones fill their voids), the path
// reaches about 396 m and no sample on it is void-filled, while SRTM's
// measured samples are kept.
func TestSyntheticPeak_Finding1(t *testing.T) {
	srtmOnly, st1 := buildPack(t, []string{rio}, packer.Options{})
	layered, st2 := buildPack(t, []string{rio, peakTIFF}, packer.Options{})
	t.Logf("SRTM only: %d filled; with the synthetic DEM: %d filled, %d measured by it", st1.FilledSamples, st2.FilledSamples, st2.MeasuredFromLower)
	if st1.FilledSamples != 3789 || st1.MeasuredFromLower != 0 {
		t.Fatalf("SRTM only: stats %+v", st1)
	}
	if st2.MeasuredFromLower < 150 || st2.FilledSamples+st2.MeasuredFromLower != 3789 {
		t.Fatalf("layered: %d filled + %d from the second input, want 3789 voids in all", st2.FilledSamples, st2.MeasuredFromLower)
	}
	cases := []struct {
		name      string
		pack      string
		voids     bool
		minM      float64 // the highest ground on the path, metres: at least
		maxM      float64 // and at most
		peakVoid  bool
		peakAbove float64
	}{
		{"SRTM only", srtmOnly, true, 0, 60, true, -1},
		{"SRTM over the synthetic peak", layered, false, 380, 396, false, 380},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := openPack(t, tc.pack)
			prof, err := p.Profile(sugarloafA, sugarloafB, 30)
			if err != nil {
				t.Fatal(err)
			}
			top, at := -1e9, 0.0
			for i, h := range prof.HeightsM {
				if h > top {
					top, at = h, prof.DistancesM[i]
				}
			}
			n, span := prof.VoidStats()
			t.Logf("%s: highest ground %.1f m at %.0f m; %d void-filled samples, longest run %.0f m", tc.name, top, at, n, span)
			if (n > 0) != tc.voids || (prof.VoidFilled != nil) != tc.voids {
				t.Fatalf("void-filled samples %d, want any: %v", n, tc.voids)
			}
			if top < tc.minM || top > tc.maxM {
				t.Fatalf("highest ground %.1f m outside %.0f..%.0f m", top, tc.minM, tc.maxM)
			}
			v, err := p.VoidFilledAt(sugarloafPeak)
			if err != nil || v != tc.peakVoid {
				t.Fatalf("VoidFilledAt(summit) = %v, %v; want %v", v, err, tc.peakVoid)
			}
			if h, err := p.ElevationM(sugarloafPeak); err != nil || h < tc.peakAbove {
				t.Fatalf("summit height %.1f m (%v), want at least %.0f m", h, err, tc.peakAbove)
			}
		})
	}
	// Earlier inputs win: every sample SRTM measured is unchanged.
	src, _, err := packer.ReadHGT(rio)
	if err != nil {
		t.Fatal(err)
	}
	got, err := openPack(t, layered).ReadTile(terrain.TileID{Lat: -23, Lon: -44})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range src {
		if v != terrain.NoData && got[i] != v {
			t.Fatalf("measured SRTM sample %d = %d, want %d", i, got[i], v)
		}
	}
}
