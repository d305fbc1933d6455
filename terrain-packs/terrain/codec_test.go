package terrain_test

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func seed(t testing.TB) int64 {
	s := int64(7)
	if v := os.Getenv("SEED"); v != "" {
		var err error
		if s, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("SEED: %v", err)
		}
	}
	t.Logf("seed %d (set SEED= to change)", s)
	return s
}

// TestCodecRoundTrip codes and decodes tiles with every codec through a
// pack and expects the exact samples back.
func TestCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	randomTile := func(n int, lo, hi int) []int16 {
		s := make([]int16, n*n)
		for i := range s {
			s[i] = int16(lo + rng.Intn(hi-lo+1))
		}
		return s
	}
	rio := realCrop(t)
	extremes := make([]int16, 25)
	for i := range extremes {
		extremes[i] = []int16{math.MinInt16, math.MaxInt16, 0, -1, 1}[i%5]
	}
	cases := []struct {
		name    string
		spd     int
		samples []int16
	}{
		{"real Rio crop", 30, rio},
		{"random full int16 range", 40, randomTile(41, math.MinInt16, math.MaxInt16)},
		{"random terrain-like", 60, randomTile(61, -20, 3000)},
		{"extremes wrap", 4, extremes},
		{"one sample per degree", 1, []int16{5, -5, 32767, -32768}},
	}
	for _, tc := range cases {
		for _, codec := range []terrain.Codec{terrain.CodecZstdRaw, terrain.CodecPredictive} {
			t.Run(tc.name+"/"+codec.String(), func(t *testing.T) {
				b := makePack(t, tc.spd, codec, terrain.VersionV2, []synthTile{{id: tRio, kind: terrain.KindLand, samples: tc.samples}})
				p, err := terrain.OpenBytes(b)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				got, err := p.ReadTile(tRio)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i] != tc.samples[i] {
						t.Fatalf("sample %d = %d, want %d", i, got[i], tc.samples[i])
					}
				}
			})
		}
	}
}

// TestVersionRules: a v1 pack cannot claim v2 codecs, nor a v2 pack the
// land-cover layer, nor a v3 pack the void mask, and this reader rejects
// versions it does not know.
func TestVersionRules(t *testing.T) {
	if _, err := terrain.MarshalHeaderIndex(terrain.Header{Version: terrain.VersionV1, SamplesPerDegree: 2, FileSize: 1},
		[]terrain.Entry{{Tile: tRio, Kind: terrain.KindLand, Codec: terrain.CodecPredictive, Offset: 96, Length: 1}}); err == nil {
		t.Fatal("a v1 header with a v2 codec was accepted")
	}
	if _, err := terrain.MarshalHeaderIndex(terrain.Header{Version: terrain.VersionV2, SamplesPerDegree: 2, FileSize: 64 + 96, Clutter: true},
		[]terrain.Entry{{Tile: tRio, Kind: terrain.KindSea, Clutter: terrain.ClutterEntry{Class: 8, Counts: [11]uint32{8: 9}}}}); err == nil {
		t.Fatal("a v2 header with the land-cover layer was accepted")
	}
	if _, err := terrain.MarshalHeaderIndex(terrain.Header{Version: terrain.VersionV3, SamplesPerDegree: 2, FileSize: 64 + 56, VoidMask: true},
		[]terrain.Entry{{Tile: tRio, Kind: terrain.KindSea}}); err == nil {
		t.Fatal("a v3 header with the void mask was accepted")
	}
	b := makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{{id: tRio, kind: terrain.KindLand, samples: grid3}})
	le := func(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	patched := func(version, flags byte) []byte {
		c := append([]byte(nil), b...)
		c[8], c[14] = version, flags
		copy(c[60:], le(terrain.Checksum(c[:60])))
		return c
	}
	cases := []struct {
		name           string
		version, flags byte
		ok             bool
	}{
		{"version 5", 5, 0, false},
		{"v4 without the mask", 4, 0, true},
		{"v4 unknown flag", 4, 4, false},
		{"v4 mask flag without the void-mask index", 4, 2, false},
		{"version 0", 0, 0, false},
		{"v1 flags are ignored", 1, 0xff, true},
		{"v3 without the layer", 3, 0, true},
		{"v3 unknown flag", 3, 2, false},
		{"v3 layer flag without the land-cover index", 3, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := terrain.OpenBytes(patched(tc.version, tc.flags))
			if (err == nil) != tc.ok {
				t.Fatalf("OpenBytes: err = %v, want ok=%v", err, tc.ok)
			}
			if err == nil {
				defer p.Close()
				if p.HasClutter() {
					t.Fatal("HasClutter on a pack without the land-cover index")
				}
				if h, err := p.ElevationM(appliance.LatLon{Lat: -22.5, Lon: -43.5}); err != nil || h != 40 {
					t.Fatalf("ElevationM = %v, %v; want 40", h, err)
				}
			} else if !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

// openGolden opens the committed pack at path, first writing it with build
// when the tests run with -update; the pack is closed when the test ends.
func openGolden(t *testing.T, path string, build func() []byte) *terrain.Pack {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, build(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := terrain.OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestReadsV1Golden reads a committed version-1 pack (a real 31×31 crop of
// S23W044, written by the v1 writer) so that every later reader keeps
// reading v1 files.
func TestReadsV1Golden(t *testing.T) {
	const path = "testdata/v1-rio-crop.ltp"
	crop := realCrop(t)
	p := openGolden(t, path, func() []byte {
		return makePack(t, 30, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
			{id: tRio, kind: terrain.KindLand, samples: crop},
			{id: tSea, kind: terrain.KindSea},
		})
	})
	if p.Header().Version != terrain.VersionV1 {
		t.Fatalf("golden is version %d", p.Header().Version)
	}
	got, err := p.ReadTile(tRio)
	if err != nil {
		t.Fatal(err)
	}
	checkCrop(t, got, crop)
	if p.HasVoidMask() {
		t.Fatal("a v1 pack claims a void mask")
	}
	h, err := p.ElevationM(appliance.LatLon{Lat: -22.5, Lon: -42.5})
	if err != nil || h != 0 {
		t.Fatalf("sea tile: %v, %v", h, err)
	}
}

// TestEncodeDeterministic: the same samples always give the same payload,
// from any number of goroutines.
func TestEncodeDeterministic(t *testing.T) {
	crop := realCrop(t)
	enc, err := terrain.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	want, err := enc.Encode(nil, crop, terrain.CodecPredictive)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 4)
	for g := 0; g < 4; g++ {
		go func() {
			b, _ := enc.Encode(nil, crop, terrain.CodecPredictive)
			done <- b
		}()
	}
	for g := 0; g < 4; g++ {
		if got := <-done; !bytes.Equal(got, want) {
			t.Fatal("concurrent Encode gave different bytes")
		}
	}
}
